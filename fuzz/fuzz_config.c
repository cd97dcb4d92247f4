/*
 * fuzz_config.c - libFuzzer target: the trainer's config parser
 * (core/config.c) on any bytes as a config file. A config that resolves
 * must serialize, and its text must resolve again to the same text.
 */
#include "fuzz.h"

#include "../core/config.h"

/* The canonical text of the config file at path, or NULL when it does not resolve. */
static char *resolve(const char *path)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_config *cfg = NULL;
	char *text = NULL;

	spec.path = path;
	if (td_config_new(&cfg, &spec) == 0 && td_config_serialize(&text, cfg) != 0)
		abort(); /* resolved but cannot be written */
	td_config_free(cfg);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];
	char *text, *again;

	fuzz_write(path, sizeof path, "fuzz.conf", data, size);
	text = resolve(path);
	if (!text)
		return 0;
	fuzz_write(path, sizeof path, "again.conf", text, strlen(text));
	again = resolve(path);
	if (!again || strcmp(text, again) != 0)
		abort(); /* the serialized config does not read back to itself */
	free(text);
	free(again);
	return 0;
}
