/*
 * fuzz_project.c - libFuzzer target: the tdaudit.lua loader
 * (harness/project.c through harness/luahost.c) on any bytes as the
 * tdaudit.lua of a temporary repository root, with the loader's own Lua
 * budgets (memory, instructions, wall clock) in force.
 */
#include "fuzz.h"

#include "../harness/project.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_project *p = NULL;
	char path[4200];

	fuzz_write(path, sizeof path, "tdaudit.lua", data, size);
	td_project_load(&p, fuzz_tmpdir());
	td_project_free(p);
	return 0;
}
