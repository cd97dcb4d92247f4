/*
 * fuzz_catalogue.c - libFuzzer target: the catalogue loader
 * (harness/catalogue.c through harness/luahost.c) on any bytes as
 * mutations/fuzz.lua of a temporary repository root that also holds one
 * small C file, src/a.c, for entries and generate {} to edit; the
 * loader's own Lua budgets are in force. A loaded entry is located (a
 * generated one comes located) and applied to its file.
 */
#include "fuzz.h"

#include "../harness/catalogue.h"

static const char a_c[] = "/* a.c - a file for the catalogue fuzzer's entries to edit. */\n"
			  "int twice(int x)\n"
			  "{\n"
			  "\tif (x > 0 && x < 100)\n"
			  "\t\treturn x * 2;\n"
			  "\treturn -1;\n"
			  "}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *const globs[] = {"mutations/*.lua", NULL};
	td_mutants list = {0};
	char path[4200];

	fuzz_write(path, sizeof path, "src/a.c", a_c, sizeof a_c - 1);
	fuzz_write(path, sizeof path, "mutations/fuzz.lua", data, size);
	if (td_catalogue_load(&list, fuzz_tmpdir(), globs) == 0)
		for (size_t i = 0; i < list.n; i++) {
			td_mutant *m = &list.v[i];
			char *out = NULL;
			size_t count = 0, len = 0;

			if (strcmp(m->file, "src/a.c") != 0)
				continue;
			if (!m->generated && td_mutant_locate(m, a_c, sizeof a_c - 1, &count) != 0)
				continue; /* generated mutants come located */
			if (td_mutant_apply(m, a_c, sizeof a_c - 1, &out, &len) == 0)
				free(out);
		}
	td_mutants_free(&list);
	return 0;
}
