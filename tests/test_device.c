/*
 * test_device.c - the device choice (core/device.c, the config key device,
 * tdtrain's --device): cuda is refused, saying what to do, wherever it
 * cannot run, and never becomes a CPU run in silence.
 *
 * The refusals are reached on any machine through td_device_probe: the
 * "built without CUDA" one through kernels/nocuda.c itself, compiled here
 * under other names (a CUDA build links cuda.cu's td_cuda_* instead), "no
 * device" through fakes; "a device" passes the check through a fake. The
 * end-to-end tests run build/tdtrain against this machine's real backend
 * and expect the refusal td_device_check gives here.
 *
 * Edits that make them fail (each tried): td_device_check refusing when
 * a device is present (the present-device test); dropping its
 * compiled() test (the no-CUDA test: the message loses "make CUDA=1");
 * dropping the td_device_check call from train.c's read_config (the
 * tdtrain tests: exit 0 and a run directory); marking device
 * affects_weights in config.c (the resume test); eval ignoring --device
 * (the eval test).
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../core/config.h"
#include "../core/device.h"
#include "fixture.h"

/* kernels/nocuda.c as a build without CUDA has it, under names of its own. */
#define td_cuda_compiled nocuda_compiled
#define td_cuda_device_count nocuda_device_count
#define td_cuda_axpy nocuda_axpy
#define td_cuda_sgemm nocuda_sgemm
#define td_cuda_rmsnorm_forward nocuda_rmsnorm_forward
#define td_cuda_rmsnorm_backward nocuda_rmsnorm_backward
#define td_cuda_softmax_rows nocuda_softmax_rows
#define td_cuda_relu nocuda_relu
#define td_cuda_xent nocuda_xent
#define td_cuda_grad_norm nocuda_grad_norm
#define td_cuda_adamw nocuda_adamw
#define td_cuda_conv_forward nocuda_conv_forward
#define td_cuda_conv_backward nocuda_conv_backward
#define td_cuda_lru_scan nocuda_lru_scan
#define td_cuda_lru_grads nocuda_lru_grads
#define td_cuda_adamw_steps nocuda_adamw_steps
#define td_cuda_fold_select nocuda_fold_select
#define td_cuda_exec_new nocuda_exec_new
#define td_cuda_exec_free nocuda_exec_free
#define td_cuda_exec_hold nocuda_exec_hold
#define td_cuda_exec_busy nocuda_exec_busy
#include "../kernels/nocuda.c"
#undef td_cuda_compiled
#undef td_cuda_device_count
#undef td_cuda_axpy
#undef td_cuda_sgemm
#undef td_cuda_rmsnorm_forward
#undef td_cuda_rmsnorm_backward
#undef td_cuda_softmax_rows
#undef td_cuda_relu
#undef td_cuda_xent
#undef td_cuda_grad_norm
#undef td_cuda_adamw
#undef td_cuda_conv_forward
#undef td_cuda_conv_backward
#undef td_cuda_lru_scan
#undef td_cuda_lru_grads
#undef td_cuda_adamw_steps
#undef td_cuda_fold_select
#undef td_cuda_exec_new
#undef td_cuda_exec_free
#undef td_cuda_exec_hold
#undef td_cuda_exec_busy

#ifndef TD_BUILD_DIR
#define TD_BUILD_DIR "build"
#endif

static int yes(void)
{
	return 1;
}

static int no_device(int *n)
{
	*n = 0;
	return TD_FAIL(TD_EIO, "no usable CUDA device: the fake runtime found no driver");
}

static int none_counted(int *n)
{
	*n = 0;
	return 0;
}

static int one_device(int *n)
{
	*n = 1;
	return 0;
}

/* A runtime that answers with a reason of 600 x's. */
static int long_reason(int *n)
{
	char x[601];

	memset(x, 'x', 600), x[600] = '\0';
	*n = 0;
	return TD_FAIL(TD_EIO, "%s", x);
}

/* A runtime that answers success and leaves the number unwritten. */
static int nothing_written(int *n)
{
	(void)n;
	return 0;
}

/* Asserts the last message holds every one of the NULL-terminated needles. */
static void says(const char *const *needles)
{
	for (; *needles; needles++)
		if (!strstr(td_error_last(), *needles))
			fail_msg("message lacks \"%s\": %s", *needles, td_error_last());
}

static void test_cpu_is_accepted_whatever_the_cuda_backend_says(void **state)
{
	const td_device_probe nocuda = {nocuda_compiled, nocuda_device_count};
	td_device d = TD_DEVICE_CUDA;

	(void)state;
	assert_int_equal(td_device_parse(&d, "cpu"), 0);
	assert_int_equal(d, TD_DEVICE_CPU);
	assert_int_equal(td_device_check(d, &nocuda), 0);
	assert_int_equal(td_device_check(d, NULL), 0);
	TD_ASSERT_REFUSED(td_device_parse(&d, "gpu"), TD_EINVAL, "'gpu' is not one of cpu, cuda");
}

static void test_a_build_without_cuda_refuses_device_cuda_saying_how_to_rebuild(void **state)
{
	const td_device_probe nocuda = {nocuda_compiled, nocuda_device_count};
	const char *want[] = {"device = cuda: ", "built without CUDA", "make CUDA=1",
			      "--device cpu", NULL};

	(void)state;
	TD_ASSERT_REFUSED(td_device_check(TD_DEVICE_CUDA, &nocuda), TD_ENOTSUP, "built without");
	says(want);
	/* a GPU would not help this binary: the advice is to rebuild, not to move */
	assert_null(strstr(td_error_last(), "NVIDIA GPU"));
}

static void test_a_machine_without_a_device_refuses_device_cuda(void **state)
{
	const td_device_probe gone = {yes, no_device}, zero = {yes, none_counted};
	const char *want[] = {"device = cuda: ", "no usable CUDA device", "fake runtime",
			      "--device cpu", NULL};
	const char *want0[] = {"device = cuda: ", "finds no device", "--device cpu", NULL};

	(void)state;
	TD_ASSERT_REFUSED(td_device_check(TD_DEVICE_CUDA, &gone), TD_EIO, "NVIDIA GPU");
	says(want);
	TD_ASSERT_REFUSED(td_device_check(TD_DEVICE_CUDA, &zero), TD_EIO, "NVIDIA GPU");
	says(want0);
}

static void test_a_cuda_build_with_a_device_may_train_on_it(void **state)
{
	const td_device_probe one = {yes, one_device};

	(void)state;
	assert_int_equal(td_device_check(TD_DEVICE_CUDA, &one), 0);
}

/*
 * The backend's reason is kept to its first 511 characters, and the advice
 * still follows it.
 */
static void test_a_long_backend_reason_is_cut_and_the_advice_follows_it(void **state)
{
	const td_device_probe gone = {yes, long_reason};
	char want[sizeof "device = cuda: " + 511 + sizeof "; run where"];
	const size_t at = strlen("device = cuda: ");

	(void)state;
	strcpy(want, "device = cuda: ");
	memset(want + at, 'x', 511);
	strcpy(want + at + 511, "; run where");
	TD_ASSERT_REFUSED(td_device_check(TD_DEVICE_CUDA, &gone), TD_EIO, want);
}

/* A count that says nothing of the number it found is read as no device. */
static void test_a_count_that_writes_no_number_is_read_as_no_device(void **state)
{
	const td_device_probe silent = {yes, nothing_written};

	(void)state;
	TD_ASSERT_REFUSED(td_device_check(TD_DEVICE_CUDA, &silent), TD_EIO, "finds no device");
}

/* A config with the one override set (NULL: the defaults); fails the test on error. */
static td_config *config_with(const char *set)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_config *cfg = NULL;

	spec.overrides = &set, spec.n_overrides = set ? 1 : 0;
	if (td_config_new(&cfg, &spec) != 0)
		fail_msg("%s", td_error_last());
	return cfg;
}

/*
 * device is weight-independent, as threads is: the config hash sees it
 * (it is in config.txt), a resume does not; and a snapshot from before the
 * key existed resumes as cpu.
 */
static void test_a_resume_may_change_the_device_as_it_may_the_thread_count(void **state)
{
	td_config *cpu = config_with(NULL), *cuda = config_with("device=cuda");
	char *snap = NULL, *old, *line;
	uint64_t h1, h2;

	(void)state;
	assert_int_equal(td_config_hash(&h1, cpu), 0);
	assert_int_equal(td_config_hash(&h2, cuda), 0);
	assert_true(h1 != h2);
	assert_int_equal(td_config_serialize(&snap, cuda), 0);
	assert_non_null(strstr(snap, "\ndevice = cuda\n"));
	assert_int_equal(td_config_check_resume(cpu, snap, "ck"), 0);
	old = strdup(snap);
	line = strstr(old, "device = cuda\n");
	memmove(line, line + strlen("device = cuda\n"), strlen(line + strlen("device = cuda\n")) + 1);
	assert_int_equal(td_config_check_resume(cpu, old, "ck"), 0);
	assert_int_equal(td_config_check_resume(cuda, old, "ck"), 0);
	free(old), free(snap);
	td_config_free(cpu), td_config_free(cuda);
}

#define TINY "--set", "dataset=synth-row", "--set", "width=8", "--set", "layers=4", "--set", \
	     "steps=10", "--set", "warmup=2", "--set", "batch=4", "--quiet"

/* Runs build/tdtrain with args in the current directory, output to ../tdtrain.log. */
static int tdtrain(const char *const *args)
{
	const char *argv[40] = {TD_BUILD_DIR "/tdtrain"};
	int n = 1;

	while (args[n - 1] && n < 39) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	return fx_run(".", "tdtrain.log", argv);
}

/*
 * What this machine's backend makes td_device_check say about cuda (static
 * buffer): its refusal, or NULL where a CUDA build finds a GPU.
 */
static const char *refusal_here(void)
{
	static char msg[1024];

	if (td_device_check(TD_DEVICE_CUDA, NULL) == 0)
		return NULL;
	snprintf(msg, sizeof msg, "%s", td_error_last());
	return msg;
}

static void enter(void)
{
	assert_int_equal(mkdir("w", 0755), 0);
	assert_int_equal(chdir("w"), 0);
}

/*
 * Where cuda cannot run, tdtrain refuses it before reading or writing
 * anything. Where it can (a CUDA build on a GPU machine: ci/device-check),
 * the same commands train there and hash as on the CPU.
 */
static void test_tdtrain_refuses_device_cuda_before_it_reads_or_writes_anything(void **state)
{
	const char *train[] = {"train", TINY, "--device", "cuda", "--out", "r", NULL};
	const char *set[] = {"train", TINY, "--set", "device=cuda", "--out", "s", NULL};
	const char *hash[] = {"hash", TINY, "--device", "cuda", NULL};
	const char *cpu_hash[] = {"hash", TINY, "--device", "cpu", NULL};
	const char *want = refusal_here();
	char gpu[64];
	struct stat st;

	(void)state;
	enter();
	print_message("  here: %s\n", want ? want : "a GPU: device = cuda trains on it");
	if (!want) {
		assert_int_equal(tdtrain(train), 0);
		assert_non_null(strstr(fx_slurp("r/config.txt"), "\ndevice = cuda\n"));
		assert_int_equal(tdtrain(hash), 0);
		snprintf(gpu, sizeof gpu, "%s", fx_slurp("../tdtrain.log"));
		assert_int_equal(tdtrain(cpu_hash), 0);
		assert_string_equal(gpu, fx_slurp("../tdtrain.log"));
		return;
	}
	assert_int_equal(tdtrain(train), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), want));
	assert_int_not_equal(stat("r", &st), 0); /* no run directory: nothing ran on the CPU */
	assert_int_equal(tdtrain(set), 2);
	assert_int_not_equal(stat("s", &st), 0);
	assert_int_equal(tdtrain(hash), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), want));
	assert_null(strstr(fx_slurp("../tdtrain.log"), "\n0")); /* no hash printed */
}

static void test_tdtrain_eval_takes_the_device_from_its_option(void **state)
{
	const char *train[] = {"train", TINY, "--device", "cpu", "--out", "r", NULL};
	const char *cuda[] = {"eval", "--checkpoint", "r/checkpoint.bin", "--device", "cuda", NULL};
	const char *cpu[] = {"eval", "--checkpoint", "r/checkpoint.bin", "--device", "cpu", NULL};
	const char *plain[] = {"eval", "--checkpoint", "r/checkpoint.bin", NULL};
	const char *want = refusal_here();

	(void)state;
	enter();
	assert_int_equal(tdtrain(train), 0);
	assert_non_null(strstr(fx_slurp("r/config.txt"), "\ndevice = cpu\n"));
	if (want) {
		assert_int_equal(tdtrain(cuda), 2);
		assert_non_null(strstr(fx_slurp("../tdtrain.log"), want));
	} else { /* a GPU here: the CPU's checkpoint is scored there */
		assert_int_equal(tdtrain(cuda), 0);
		assert_non_null(strstr(fx_slurp("../tdtrain.log"), "eval  loss"));
	}
	assert_int_equal(tdtrain(cpu), 0);
	assert_int_equal(tdtrain(plain), 0);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "eval  loss"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_cpu_is_accepted_whatever_the_cuda_backend_says),
	cmocka_unit_test(test_a_build_without_cuda_refuses_device_cuda_saying_how_to_rebuild),
	cmocka_unit_test(test_a_machine_without_a_device_refuses_device_cuda),
	cmocka_unit_test(test_a_cuda_build_with_a_device_may_train_on_it),
	cmocka_unit_test(test_a_long_backend_reason_is_cut_and_the_advice_follows_it),
	cmocka_unit_test(test_a_count_that_writes_no_number_is_read_as_no_device),
	cmocka_unit_test(test_a_resume_may_change_the_device_as_it_may_the_thread_count),
	cmocka_unit_test(test_tdtrain_refuses_device_cuda_before_it_reads_or_writes_anything),
	cmocka_unit_test(test_tdtrain_eval_takes_the_device_from_its_option),
};
TD_TEST_GROUP(device, tests);
