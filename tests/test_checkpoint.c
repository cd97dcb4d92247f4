/*
 * test_checkpoint.c - checkpoints: a bitwise round trip, every refusal
 * (a flipped byte anywhere, truncation, wrong magic, newer version, another
 * model, another config), the atomic write, and resume through a checkpoint
 * that equals the uninterrupted run bitwise.
 *
 * What these tests guard: tdaudit mutate --list --file core/checkpoint.c
 *   and --list --file core/adamw.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - payload() writing weights[i ? 1 : 0] for every i -> a_checkpoint_round_trips_bitwise
 *   - decode() leaving rng_counter 0 -> a_checkpoint_round_trips_bitwise
 *   - check_header() without the truncation test -> a_truncated_or_extended_...
 *   - check_data() without the config hash check -> the_writer_refuses_inconsistent_data
 */
#include "tdtest.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../core/adamw.h"
#include "../core/checkpoint.h"
#include "../core/config.h"
#include "../base/error.h"
#include "../base/fileio.h"

#define NW 16
#define SIG "test-model w=4 n=16"

/* What one test checkpoints: a config, weights and an optimizer that took steps. */
typedef struct {
	td_config *cfg;
	char *config_text;
	uint64_t config_hash;
	td_adamw *opt;
	td_real w[NW];
	unsigned char *opt_state;
	size_t opt_len;
	td_checkpoint_data d;
} run_state;

static void grads(td_real *g, int k)
{
	for (size_t i = 0; i < NW; i++)
		g[i] = (td_real)(sin(0.3 * (double)i + 0.9 * (double)k) + 0.05);
}

static void steps(run_state *r, int first, int n)
{
	td_real g[NW];

	for (int k = first; k < first + n; k++) {
		grads(g, k);
		assert_int_equal(td_adamw_step(r->opt, r->w, g, NULL), 1);
	}
}

/* Builds a run under config overrides sets, after n optimizer steps. */
static void run_new(run_state *r, const char *set, int n)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;

	memset(r, 0, sizeof *r);
	spec.overrides = &set, spec.n_overrides = set ? 1 : 0;
	assert_int_equal(td_config_new(&r->cfg, &spec), 0);
	assert_int_equal(td_config_serialize(&r->config_text, r->cfg), 0);
	assert_int_equal(td_config_hash(&r->config_hash, r->cfg), 0);
	o.warmup = 3, o.total_steps = 20, o.lr = 0.01;
	assert_int_equal(td_adamw_new(&r->opt, NW, &o), 0);
	for (size_t i = 0; i < NW; i++)
		r->w[i] = (td_real)(0.1 * (double)i - 0.7);
	r->w[3] = (td_real)-0.0;
	steps(r, 0, n);
}

/* Fills r->d from the run's current state. */
static const td_checkpoint_data *snapshot(run_state *r)
{
	td_checkpoint_data d = TD_CHECKPOINT_DATA_INIT;

	free(r->opt_state);
	r->opt_len = td_adamw_state_size(r->opt);
	r->opt_state = malloc(r->opt_len);
	assert_non_null(r->opt_state);
	assert_int_equal(td_adamw_export(r->opt, r->opt_state, r->opt_len), 0);
	d.signature = SIG, d.weights = r->w, d.n_weights = NW;
	d.optimizer = r->opt_state, d.optimizer_len = r->opt_len;
	d.step = td_adamw_steps(r->opt), d.data_position = 1234567, d.rng_counter = UINT64_MAX - 5;
	d.config_text = r->config_text, d.config_hash = r->config_hash;
	r->d = d;
	return &r->d;
}

static void run_free(run_state *r)
{
	td_config_free(r->cfg);
	free(r->config_text);
	td_adamw_free(r->opt);
	free(r->opt_state);
}

static td_checkpoint_expect expect_of(const run_state *r)
{
	td_checkpoint_expect e = TD_CHECKPOINT_EXPECT_INIT;

	e.signature = SIG, e.n_weights = NW, e.check_config_hash = 1, e.config_hash = r->config_hash;
	return e;
}

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_a_checkpoint_round_trips_bitwise(void **state)
{
	td_checkpoint *ck;
	const td_checkpoint_data *got;
	td_checkpoint_expect e;
	run_state r;

	(void)state;
	run_new(&r, NULL, 3);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	e = expect_of(&r);
	assert_int_equal(td_checkpoint_load(&ck, "ck.bin", &e), 0);
	got = td_checkpoint_get(ck);
	assert_string_equal(got->signature, SIG);
	assert_int_equal(got->n_weights, NW);
	assert_memory_equal(got->weights, r.w, sizeof r.w);
	assert_int_equal(got->optimizer_len, r.opt_len);
	assert_memory_equal(got->optimizer, r.opt_state, r.opt_len);
	assert_int_equal(got->step, 3);
	assert_true(got->data_position == 1234567);
	assert_true(got->rng_counter == UINT64_MAX - 5);
	assert_string_equal(got->config_text, r.config_text);
	assert_true(got->config_hash == r.config_hash);
	td_checkpoint_free(ck);
	assert_int_equal(td_checkpoint_load(&ck, "ck.bin", NULL), 0); /* nothing expected */
	td_checkpoint_free(ck);
	td_checkpoint_free(NULL);
	run_free(&r);
}

static void test_every_flipped_byte_is_refused(void **state)
{
	char *file;
	size_t len;
	td_checkpoint *ck;
	run_state r;

	(void)state;
	run_new(&r, NULL, 2);
	assert_int_equal(td_checkpoint_write("good.bin", snapshot(&r)), 0);
	assert_int_equal(td_file_read("good.bin", &file, &len), 0);
	for (size_t at = 0; at < len; at++) {
		file[at] ^= 0x10;
		write_bytes("bad.bin", file, len);
		file[at] ^= 0x10;
		if (td_checkpoint_load(&ck, "bad.bin", NULL) == 0)
			fail_msg("a checkpoint with byte %zu of %zu flipped was accepted", at, len);
		assert_null(ck);
		assert_non_null(strstr(td_error_last(), "bad.bin"));
		if (at >= TD_CHECKPOINT_HEADER && !strstr(td_error_last(), "checksum"))
			fail_msg("byte %zu: not refused by the checksum: %s", at, td_error_last());
	}
	free(file);
	run_free(&r);
}

static void test_a_truncated_or_extended_checkpoint_is_refused_naming_the_file(void **state)
{
	const size_t cuts[] = {0, 7, TD_CHECKPOINT_HEADER - 1, TD_CHECKPOINT_HEADER, 100};
	td_checkpoint *ck;
	char *file;
	size_t len;
	run_state r;

	(void)state;
	run_new(&r, NULL, 1);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	assert_int_equal(td_file_read("ck.bin", &file, &len), 0);
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		write_bytes("cut.bin", file, cuts[i]);
		TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "cut.bin", NULL), TD_EINVAL,
				  "checkpoint cut.bin is truncated");
	}
	write_bytes("cut.bin", file, len - 1);
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "cut.bin", NULL), TD_EINVAL, "is truncated");
	file[len] = 'x'; /* td_file_read leaves room for its NUL */
	write_bytes("long.bin", file, len + 1);
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "long.bin", NULL), TD_EINVAL,
			  "long.bin has 1 bytes after its payload");
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "missing.bin", NULL), TD_EIO, "missing.bin");
	free(file);
	run_free(&r);
}

static void test_a_wrong_magic_or_a_newer_version_is_refused(void **state)
{
	td_checkpoint *ck;
	char *file;
	size_t len;
	run_state r;

	(void)state;
	run_new(&r, NULL, 1);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	assert_int_equal(td_file_read("ck.bin", &file, &len), 0);
	file[8] = 2; /* version 2, checksum and all else intact */
	write_bytes("v2.bin", file, len);
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "v2.bin", NULL), TD_EINVAL,
			  "v2.bin has format version 2, newer than this build reads (1)");
	file[8] = 1;
	memcpy(file, "PK\x03\x04", 4);
	write_bytes("zip.bin", file, len);
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "zip.bin", NULL), TD_EINVAL,
			  "zip.bin is not a tdaudit checkpoint (wrong magic number)");
	free(file);
	run_free(&r);
}

static void test_another_config_is_refused_naming_both_hashes(void **state)
{
	td_checkpoint_expect e;
	td_checkpoint *ck;
	run_state r, other;
	char want[200];

	(void)state;
	run_new(&r, NULL, 1);
	run_new(&other, "lr=0.002", 0);
	assert_true(r.config_hash != other.config_hash);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	e = expect_of(&other);
	snprintf(want, sizeof want, "ck.bin was written under config hash %016llx; this run's config "
				    "hashes to %016llx",
		 (unsigned long long)r.config_hash, (unsigned long long)other.config_hash);
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "ck.bin", &e), TD_EINVAL, want);
	assert_null(ck);
	run_free(&r);
	run_free(&other);
}

static void test_another_model_is_refused_naming_both(void **state)
{
	td_checkpoint_expect e;
	td_checkpoint *ck;
	run_state r;

	(void)state;
	run_new(&r, NULL, 1);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	e = expect_of(&r);
	e.signature = "test-model w=8 n=32";
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "ck.bin", &e), TD_EINVAL,
			  "checkpoint ck.bin is for model '" SIG "'; this run builds "
			  "'test-model w=8 n=32'");
	e = expect_of(&r);
	e.n_weights = NW + 1;
	TD_ASSERT_REFUSED(td_checkpoint_load(&ck, "ck.bin", &e), TD_EINVAL,
			  "checkpoint ck.bin holds 16 weights; this model has 17");
	run_free(&r);
}

/* The number of entries in the current directory, . and .. left out. */
static int entries(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* td_checkpoint_write under a file-size limit of limit bytes (SIGXFSZ ignored). */
static int write_limited(const char *path, const td_checkpoint_data *d, rlim_t limit)
{
	struct rlimit old, lim;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	int err;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old, lim.rlim_cur = limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err = td_checkpoint_write(path, d);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	return err;
}

static void test_an_existing_checkpoint_survives_a_failed_write(void **state)
{
	td_checkpoint *ck;
	char *before, *after;
	size_t len_before, len_after;
	run_state r;

	(void)state;
	run_new(&r, NULL, 1);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&r)), 0);
	assert_int_equal(td_file_read("ck.bin", &before, &len_before), 0);
	/* The next write dies half way: the disk (here, the file-size limit) is full. */
	steps(&r, 1, 2);
	TD_ASSERT_REFUSED(write_limited("ck.bin", snapshot(&r), (rlim_t)len_before / 2), TD_EIO,
			  "ck.bin");
	assert_int_equal(td_file_read("ck.bin", &after, &len_after), 0);
	assert_int_equal(len_after, len_before);
	assert_memory_equal(after, before, len_before);
	assert_int_equal(entries(), 1); /* no temporary file left behind */
	assert_int_equal(td_checkpoint_load(&ck, "ck.bin", NULL), 0);
	assert_int_equal(td_checkpoint_get(ck)->step, 1);
	td_checkpoint_free(ck);
	TD_ASSERT_REFUSED(td_checkpoint_write("no/such/dir/ck.bin", &r.d), TD_EIO,
			  "no/such/dir/ck.bin");
	free(before), free(after);
	run_free(&r);
}

static void test_the_writer_refuses_inconsistent_data(void **state)
{
	td_checkpoint_data d;
	run_state r;

	(void)state;
	run_new(&r, NULL, 0);
	d = *snapshot(&r);
	d.config_hash ^= 1;
	TD_ASSERT_REFUSED(td_checkpoint_write("ck.bin", &d), TD_EINVAL,
			  "is not the hash of config_text");
	d = *snapshot(&r), d.signature = "";
	TD_ASSERT_REFUSED(td_checkpoint_write("ck.bin", &d), TD_EINVAL, "signature");
	d = *snapshot(&r), d.step = -1;
	TD_ASSERT_REFUSED(td_checkpoint_write("ck.bin", &d), TD_EINVAL, "step -1 is negative");
	assert_int_equal(entries(), 0);
	run_free(&r);
}

static void test_resuming_from_a_checkpoint_equals_the_uninterrupted_run_bitwise(void **state)
{
	td_checkpoint_expect e;
	td_checkpoint *ck;
	const td_checkpoint_data *got;
	run_state whole, first, resumed;

	(void)state;
	run_new(&whole, NULL, 9);
	run_new(&first, NULL, 4);
	assert_int_equal(td_checkpoint_write("ck.bin", snapshot(&first)), 0);
	run_free(&first);
	run_new(&resumed, NULL, 0);
	e = expect_of(&resumed);
	assert_int_equal(td_checkpoint_load(&ck, "ck.bin", &e), 0);
	got = td_checkpoint_get(ck);
	memcpy(resumed.w, got->weights, sizeof resumed.w);
	assert_int_equal(td_adamw_import(resumed.opt, got->optimizer, got->optimizer_len), 0);
	assert_int_equal(got->step, 4);
	td_checkpoint_free(ck);
	steps(&resumed, 4, 5);
	assert_memory_equal(resumed.w, whole.w, sizeof whole.w);
	assert_memory_equal(td_adamw_m(resumed.opt), td_adamw_m(whole.opt), sizeof whole.w);
	assert_memory_equal(td_adamw_v(resumed.opt), td_adamw_v(whole.opt), sizeof whole.w);
	assert_int_equal(td_adamw_steps(resumed.opt), 9);
	run_free(&whole);
	run_free(&resumed);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_checkpoint_round_trips_bitwise),
    cmocka_unit_test(test_every_flipped_byte_is_refused),
    cmocka_unit_test(test_a_truncated_or_extended_checkpoint_is_refused_naming_the_file),
    cmocka_unit_test(test_a_wrong_magic_or_a_newer_version_is_refused),
    cmocka_unit_test(test_another_config_is_refused_naming_both_hashes),
    cmocka_unit_test(test_another_model_is_refused_naming_both),
    cmocka_unit_test(test_an_existing_checkpoint_survives_a_failed_write),
    cmocka_unit_test(test_the_writer_refuses_inconsistent_data),
    cmocka_unit_test(test_resuming_from_a_checkpoint_equals_the_uninterrupted_run_bitwise),
};

TD_TEST_GROUP(checkpoint, tests);
