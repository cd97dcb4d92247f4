/*
 * test_config.c - the strict config: refusals with their origin, override
 * precedence, the canonical text, its hash, the atomic write.
 *
 * What these tests guard: tdaudit mutate --list --file core/config.c
 *   and --list --file base/fileio.c
 */
#include "tdtest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/config.h"
#include "../base/error.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* td_config_new from a file holding text (NULL: no file) and overrides. */
static int resolve(td_config **out, const char *text, const char *const *sets, size_t n_sets)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;

	if (text) {
		write_file("run.cfg", text);
		spec.path = "run.cfg";
	}
	spec.overrides = sets, spec.n_overrides = n_sets;
	return td_config_new(out, &spec);
}

/* Asserts that the file holding text is refused and the message holds every needle. */
static void assert_file_refused(const char *text, const char *const *needles, size_t n)
{
	td_config *cfg = (td_config *)1;

	assert_int_equal(resolve(&cfg, text, NULL, 0), TD_EINVAL);
	assert_null(cfg);
	for (size_t i = 0; i < n; i++)
		if (!strstr(td_error_last(), needles[i]))
			fail_msg("for \"%s\": message lacks \"%s\": %s", text, needles[i],
				 td_error_last());
}

#define REFUSED(text, ...)                                                                         \
	do {                                                                                       \
		const char *const needles_[] = {__VA_ARGS__};                                      \
		assert_file_refused((text), needles_, sizeof needles_ / sizeof needles_[0]);       \
	} while (0)

static void test_defaults_resolve_and_read_back_typed(void **state)
{
	td_config *cfg;
	int64_t i;
	double f;
	const char *s;
	int b;

	(void)state;
	assert_int_equal(td_config_new(&cfg, NULL), 0);
	assert_int_equal(td_config_int(&i, cfg, "seed"), 0);
	assert_int_equal(i, 1);
	assert_int_equal(td_config_float(&f, cfg, "lr"), 0);
	assert_true(f == 0.001);
	assert_int_equal(td_config_string(&s, cfg, "plan"), 0);
	assert_string_equal(s, "cyclic");
	assert_int_equal(td_config_bool(&b, cfg, "bidirectional"), 0);
	assert_int_equal(b, 1);
	assert_string_equal(td_config_origin(cfg, "lr"), "default");
	assert_null(td_config_origin(cfg, "nope"));
	TD_ASSERT_REFUSED(td_config_int(&i, cfg, "lr"), TD_EINVAL,
			  "'lr' holds a float; read it with td_config_float");
	TD_ASSERT_REFUSED(td_config_float(&f, cfg, "lrate"), TD_EINVAL, "did you mean 'lr'");
	td_config_free(cfg);
	td_config_free(NULL);
}

static void test_an_unknown_key_is_refused_with_the_nearest_key_suggested(void **state)
{
	const char *const set[] = {"bach=3"};
	td_config *cfg;

	(void)state;
	REFUSED("lrr = 0.1\n", "run.cfg:1", "unknown key 'lrr'", "did you mean 'lr'?");
	REFUSED("# c\nwieght_decay = 0\n", "run.cfg:2", "did you mean 'weight_decay'?");
	REFUSED("setps = 3\n", "did you mean 'steps'?");
	REFUSED("LR = 0.1\n", "unknown key 'LR'", "did you mean 'lr'?");
	REFUSED("eval_evry = 3\n", "did you mean 'eval_every'?");
	TD_ASSERT_REFUSED(resolve(&cfg, NULL, set, 1), TD_EINVAL,
			  "--set bach=3: unknown key 'bach'; did you mean 'batch'?");
}

static void test_a_value_of_the_wrong_type_names_the_key_value_and_line(void **state)
{
	(void)state;
	REFUSED("# a comment\nwarmup = 0\nsteps = 1.5\n", "run.cfg:3", "steps", "'1.5'",
		"not an integer");
	REFUSED("lr = fast\n", "run.cfg:1", "lr", "'fast'", "not a finite number");
	REFUSED("lr = nan\n", "lr", "'nan'", "not a finite number");
	REFUSED("seed = 12abc\n", "seed", "'12abc'");
	REFUSED("seed = 99999999999999999999\n", "seed", "not an integer");
	REFUSED("bidirectional = yes\n", "bidirectional", "'yes'", "true or false");
	REFUSED("mixer = l ru\n", "mixer", "'l ru'");
}

static void test_a_value_out_of_range_names_the_key_value_and_line(void **state)
{
	(void)state;
	REFUSED("\nbatch = 0\n", "run.cfg:2", "batch = 0", "out of range [1, 65536]");
	REFUSED("lr = 20\n", "run.cfg:1", "lr = 20", "out of range");
	REFUSED("absent_fraction = 1\n", "absent_fraction = 1", "out of range [0, 0.99]");
	REFUSED("threads = -1\n", "threads = -1", "out of range");
	REFUSED("mixer = transformer\n", "mixer = 'transformer'", "lru|clru|gru|lstm|conv|attention");
	REFUSED("dataset = mnist\n", "dataset", "'mnist'", "fashion-mnist|");
}

static void test_a_key_given_twice_in_the_file_or_the_overrides_is_refused(void **state)
{
	const char *const sets[] = {"lr=0.1", "steps=9", "lr=0.2"};
	td_config *cfg;

	(void)state;
	REFUSED("lr = 0.1\nsteps = 900\nlr = 0.1\n", "run.cfg:3", "'lr' is given twice",
		"first at line 1");
	TD_ASSERT_REFUSED(resolve(&cfg, NULL, sets, 3), TD_EINVAL,
			  "--set lr=0.2: key 'lr' is overridden twice");
}

static void test_malformed_lines_are_refused_with_their_line(void **state)
{
	const char *const sets[] = {"lr"};
	td_config *cfg;

	(void)state;
	REFUSED("steps = 5\nlr 0.1\n", "run.cfg:2", "not of the form key = value");
	REFUSED("= 3\n", "run.cfg:1", "no key");
	REFUSED("lr =\n", "run.cfg:1", "lr has no value");
	REFUSED("lr = 0.1 0.2\n", "'0.1 0.2'");
	TD_ASSERT_REFUSED(resolve(&cfg, NULL, sets, 1), TD_EINVAL,
			  "--set lr: 'lr' is not of the form");
}

static void test_comments_blank_lines_and_spacing_are_ignored(void **state)
{
	td_config *cfg;
	double f;
	int64_t i;

	(void)state;
	assert_int_equal(
	    resolve(&cfg, "# top\n\n   lr=5e-1   # peak\n\t steps =\t200\n# end", NULL, 0), 0);
	assert_int_equal(td_config_float(&f, cfg, "lr"), 0);
	assert_true(f == 0.5);
	assert_int_equal(td_config_int(&i, cfg, "steps"), 0);
	assert_int_equal(i, 200);
	assert_string_equal(td_config_origin(cfg, "steps"), "run.cfg:4");
	td_config_free(cfg);
}

static void test_overrides_beat_the_file_and_the_file_beats_the_defaults(void **state)
{
	const char *const sets[] = {"lr = 0.2", "mixer=gru"};
	td_config *cfg;
	int64_t steps, batch;
	double lr;
	const char *mixer;

	(void)state;
	assert_int_equal(resolve(&cfg, "lr = 0.1\nsteps = 500\nmixer = conv\n", sets, 2), 0);
	assert_int_equal(td_config_float(&lr, cfg, "lr"), 0);
	assert_true(lr == 0.2);
	assert_int_equal(td_config_string(&mixer, cfg, "mixer"), 0);
	assert_string_equal(mixer, "gru");
	assert_int_equal(td_config_int(&steps, cfg, "steps"), 0);
	assert_int_equal(steps, 500);
	assert_int_equal(td_config_int(&batch, cfg, "batch"), 0);
	assert_int_equal(batch, 64);
	assert_string_equal(td_config_origin(cfg, "lr"), "--set");
	assert_string_equal(td_config_origin(cfg, "steps"), "run.cfg:2");
	assert_string_equal(td_config_origin(cfg, "batch"), "default");
	td_config_free(cfg);
}

static void test_combinations_that_cannot_mean_anything_are_refused(void **state)
{
	const char *const paired[] = {"plan=paired", "bidirectional=false"};
	const char *const ok[] = {"plan=paired"};
	td_config *cfg;

	(void)state;
	REFUSED("steps = 100\nwarmup = 100\n", "warmup = 100 (run.cfg:2)",
		"steps = 100 (run.cfg:1)");
	TD_ASSERT_REFUSED(resolve(&cfg, NULL, paired, 2), TD_EINVAL, "plan = paired (--set)");
	assert_int_equal(resolve(&cfg, NULL, ok, 1), 0);
	td_config_free(cfg);
}

/* A valid value for k other than its default, written as in a file. */
static void other_value(char *buf, size_t n, const td_config_key *k)
{
	double d;
	char words[256];

	switch (k->type) {
	case TD_CFG_INT:
		d = strtod(k->def, NULL);
		snprintf(buf, n, "%lld", (long long)d + (d < (double)k->imax ? 1 : -1));
		return;
	case TD_CFG_FLOAT:
		d = strtod(k->def, NULL);
		snprintf(buf, n, "%.17g", d < k->fmax ? (d + k->fmax) / 2 : (d + k->fmin) / 2);
		return;
	case TD_CFG_BOOL:
		snprintf(buf, n, "%s", strcmp(k->def, "true") == 0 ? "false" : "true");
		return;
	case TD_CFG_STRING:
		snprintf(words, sizeof words, "%s", k->allowed ? k->allowed : "");
		for (char *w = strtok(words, "|"); w; w = strtok(NULL, "|"))
			if (strcmp(w, k->def) != 0) {
				snprintf(buf, n, "%s", w);
				return;
			}
	}
	fail_msg("key %s has no second value: a key that cannot vary cannot change a run", k->name);
}

static uint64_t hash_with(const char *set)
{
	const char *const sets[] = {set};
	td_config *cfg;
	uint64_t h;

	if (resolve(&cfg, NULL, sets, set ? 1 : 0) != 0)
		fail_msg("--set %s refused: %s", set, td_error_last());
	assert_int_equal(td_config_hash(&h, cfg), 0);
	td_config_free(cfg);
	return h;
}

static void test_changing_any_one_key_changes_the_hash(void **state)
{
	size_t n;
	const td_config_key *keys = td_config_keys(&n);
	uint64_t base = hash_with(NULL), seen[64];
	char set[300], value[64];

	(void)state;
	assert_true(n >= 18 && n <= 64);
	for (size_t k = 0; k < n; k++) {
		other_value(value, sizeof value, &keys[k]);
		snprintf(set, sizeof set, "%s=%s", keys[k].name, value);
		seen[k] = hash_with(set);
		if (seen[k] == base)
			fail_msg("--set %s leaves the hash unchanged", set);
		for (size_t j = 0; j < k; j++)
			if (seen[j] == seen[k])
				fail_msg("keys %s and %s give the same hash", keys[j].name,
					 keys[k].name);
	}
}

static void test_every_key_is_documented_and_named_once(void **state)
{
	size_t n;
	const td_config_key *keys = td_config_keys(&n);

	(void)state;
	for (size_t k = 0; k < n; k++) {
		assert_ptr_equal(td_config_key_find(keys[k].name), &keys[k]);
		assert_true(keys[k].doc && strlen(keys[k].doc) > 10);
		assert_true(strspn(keys[k].name, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
			    strlen(keys[k].name));
	}
	assert_null(td_config_key_find("nope"));
}

static void test_the_text_is_sorted_complete_and_reads_back_to_the_same_config(void **state)
{
	td_config *cfg, *back;
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	const char *const sets[] = {"lr=0.25", "mixer=attention", "bidirectional=false"};
	char *text, *back_text, *line, prev[64] = "";
	size_t n, lines = 0;

	(void)state;
	td_config_keys(&n);
	assert_int_equal(resolve(&cfg, NULL, sets, 3), 0);
	assert_int_equal(td_config_serialize(&text, cfg), 0);
	assert_true(strncmp(text, TD_CONFIG_MAGIC "\n", strlen(TD_CONFIG_MAGIC) + 1) == 0);
	assert_non_null(strstr(text, "\nlr = 0.25\n"));
	assert_non_null(strstr(text, "\nbidirectional = false\n"));
	for (line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1, lines++) {
		char name[64];

		assert_int_equal(sscanf(line, "%63s = ", name), 1);
		if (strcmp(prev, name) >= 0)
			fail_msg("'%s' follows '%s': keys are not sorted", name, prev);
		strcpy(prev, name);
	}
	assert_int_equal(lines, n);
	assert_int_equal(td_config_write(cfg, "snap.cfg"), 0);
	spec.path = "snap.cfg";
	assert_int_equal(td_config_new(&back, &spec), 0);
	assert_int_equal(td_config_serialize(&back_text, back), 0);
	assert_string_equal(back_text, text);
	free(text);
	free(back_text);
	td_config_free(back);
	td_config_free(cfg);
}

/* The number of entries in the current directory, . and .. excluded. */
static int dir_entries(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void test_the_write_replaces_the_file_whole_and_leaves_no_temporary(void **state)
{
	td_config *cfg;
	char *text, got[4096];
	FILE *f;
	size_t len;

	(void)state;
	write_file("out.cfg", "old contents that are longer than nothing at all\n");
	assert_int_equal(td_config_new(&cfg, NULL), 0);
	assert_int_equal(td_config_write(cfg, "out.cfg"), 0);
	assert_int_equal(td_config_serialize(&text, cfg), 0);
	f = fopen("out.cfg", "r");
	assert_non_null(f);
	len = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	got[len] = '\0';
	assert_string_equal(got, text);
	assert_int_equal(dir_entries(), 1);
	TD_ASSERT_REFUSED(td_config_write(cfg, "no/such/dir/out.cfg"), TD_EIO,
			  "no/such/dir/out.cfg");
	assert_int_equal(dir_entries(), 1);
	free(text);
	td_config_free(cfg);
}

static void test_an_unreadable_file_is_refused_naming_it(void **state)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_config *cfg;

	(void)state;
	spec.path = "missing.cfg";
	TD_ASSERT_REFUSED(td_config_new(&cfg, &spec), TD_EIO, "missing.cfg");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults_resolve_and_read_back_typed),
    cmocka_unit_test(test_an_unknown_key_is_refused_with_the_nearest_key_suggested),
    cmocka_unit_test(test_a_value_of_the_wrong_type_names_the_key_value_and_line),
    cmocka_unit_test(test_a_value_out_of_range_names_the_key_value_and_line),
    cmocka_unit_test(test_a_key_given_twice_in_the_file_or_the_overrides_is_refused),
    cmocka_unit_test(test_malformed_lines_are_refused_with_their_line),
    cmocka_unit_test(test_comments_blank_lines_and_spacing_are_ignored),
    cmocka_unit_test(test_overrides_beat_the_file_and_the_file_beats_the_defaults),
    cmocka_unit_test(test_combinations_that_cannot_mean_anything_are_refused),
    cmocka_unit_test(test_changing_any_one_key_changes_the_hash),
    cmocka_unit_test(test_every_key_is_documented_and_named_once),
    cmocka_unit_test(test_the_text_is_sorted_complete_and_reads_back_to_the_same_config),
    cmocka_unit_test(test_the_write_replaces_the_file_whole_and_leaves_no_temporary),
    cmocka_unit_test(test_an_unreadable_file_is_refused_naming_it),
};

TD_TEST_GROUP(config, tests);
