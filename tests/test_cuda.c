/*
 * test_cuda.c - the GPU backend: compiled where nvcc exists, run where a
 * device exists, skipped visibly (with the reason) everywhere else.
 *
 * Independent reference: a naive host loop for the placeholder kernel and
 * a naive double-precision loop for cuBLAS's GEMM. The GEMM's inputs are
 * small multiples of 1/4, so every product and sum is exact in float: the
 * GPU must agree bitwise whatever its summation order.
 * Edits that break them, seen on an H200 (ci/gpu-check.sh runs the same
 * checks without cmocka): `y[i] = a * x[i]` (dropping + y[i]) in
 * axpy_kernel; swapping the two operands' transpose flags in
 * td_cuda_sgemm. The training kernels (kernels/ops.cu) against the same
 * bodies of kernels/ops.h on the CPU, bitwise but for cross-entropy's
 * device exp and log (a derived bound); their breaks are meant for the
 * device machine (ci/device-check): building ops.cu without -fmad=false
 * (rmsnorm, softmax, adamw), and a kernel calling a wrong body. The script's own paths: naming core/error.c (it moved to
 * base/) in ci/gpu-check.sh.
 */
#include "tdtest.h"

#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/error.h"
#include "../kernels/backend.h"
#include "../core/real.h"
#include "device_ops.h"
#include "fixture.h"

static void test_the_cuda_axpy_kernel_matches_a_host_loop(void **state)
{
	float x[1000], y[1000], want[1000];
	int count = 0;

	(void)state;
	if (!td_cuda_compiled())
		TD_SKIP("built without CUDA (no nvcc found, or CUDA=0)");
	if (td_cuda_device_count(&count) != 0 || count == 0)
		TD_SKIP("no CUDA device here: %s", td_error_last());
	for (int i = 0; i < 1000; i++) {
		x[i] = (float)i * 0.5f;
		y[i] = (float)(1000 - i);
		want[i] = 3.0f * x[i] + y[i];
	}
	assert_int_equal(td_cuda_axpy(1000, 3.0f, x, y), 0);
	for (int i = 0; i < 1000; i++)
		assert_true(y[i] == want[i]);
}

/* C = 1.5 op(A) op(B) + 0.5 C against a double loop, each transpose case, odd sizes. */
static void test_cublas_sgemm_matches_a_host_loop_in_every_transpose_case(void **state)
{
	enum { M = 37, N = 45, K = 129, LD = 131 };
	float *a, *b, *c, *c2;
	int count = 0;

	(void)state;
	if (!td_cuda_compiled())
		TD_SKIP("built without CUDA (no nvcc found, or CUDA=0)");
	if (td_cuda_device_count(&count) != 0 || count == 0)
		TD_SKIP("no CUDA device here: %s", td_error_last());
	/* allocated after the skips: a skip returns from the test */
	a = malloc(K * LD * sizeof *a), b = malloc(K * LD * sizeof *b);
	c = malloc(M * LD * sizeof *c), c2 = malloc(M * LD * sizeof *c2);
	assert_true(a && b && c && c2);
	for (int i = 0; i < K * LD; i++) {
		a[i] = (float)(i * 7 % 9 - 4) / 4;
		b[i] = (float)(i * 5 % 9 - 4) / 4;
	}
	for (int t = 0; t < 4; t++) {
		int ta = t & 1, tb = t >> 1;

		for (int i = 0; i < M * LD; i++)
			c[i] = c2[i] = (float)(i % 11 - 5) / 4;
		assert_int_equal(td_cuda_sgemm(c, LD, a, LD, b, LD, M, N, K, ta, tb, 1.5f, 0.5f), 0);
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;

				for (int p = 0; p < K; p++)
					s += (double)(ta ? a[p * LD + i] : a[i * LD + p]) *
					     (double)(tb ? b[j * LD + p] : b[p * LD + j]);
				assert_true((double)c[i * LD + j] == 1.5 * s + 0.5 * (double)c2[i * LD + j]);
			}
		for (int i = 0; i < M; i++) /* the padding beyond n is not written */
			for (int j = N; j < LD; j++)
				assert_true(c[i * LD + j] == c2[i * LD + j]);
	}
	free(a), free(b), free(c), free(c2);
}

static void test_cublas_sgemm_refuses_a_short_leading_dimension(void **state)
{
	float a[4] = {0}, b[4] = {0}, c[4] = {0};

	(void)state;
	if (!td_cuda_compiled())
		TD_SKIP("built without CUDA (no nvcc found, or CUDA=0)");
	TD_ASSERT_REFUSED(td_cuda_sgemm(c, 2, a, 1, b, 2, 2, 2, 2, 0, 0, 1, 0), TD_EINVAL,
			  "leading dimension");
}

static void test_a_build_without_cuda_says_so(void **state)
{
	int count = -1;

	(void)state;
	if (td_cuda_compiled())
		TD_SKIP("this build has CUDA; the no-CUDA path is tested by make CUDA=0 and make asan");
	TD_ASSERT_REFUSED(td_cuda_device_count(&count), TD_ENOTSUP, "built without CUDA");
	assert_int_equal(count, 0);
}

/*
 * ci/gpu-check.sh runs on the device machine only, where a broken path
 * costs the device minutes: every repository source it names (a word
 * like base/x.c, core/x.h, kernels/x.cu) must exist here.
 */
static void test_the_gpu_check_script_names_only_files_that_exist(void **state)
{
	const char *text = fx_slurp(TD_SOURCE_DIR "/ci/gpu-check.sh");
	const char *dirs[] = {"base/", "core/", "kernels/"};
	int named = 0, missing = 0;

	(void)state;
	for (const char *p = text; *p; p++)
		for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
			size_t n = strlen(dirs[d]), len = n;
			char path[512], rel[128];
			struct stat st;

			if (strncmp(p, dirs[d], n) || (p > text && (p[-1] == '/' || p[-1] == '_' ||
								  (p[-1] >= 'a' && p[-1] <= 'z'))))
				continue;
			while (len < sizeof rel - 1 && (strchr("abcdefghijklmnopqrstuvwxyz0123456789_.", p[len])))
				len++;
			snprintf(rel, sizeof rel, "%.*s", (int)len, p);
			if (!strstr(rel, ".c") && !strstr(rel, ".h"))
				continue;
			named++;
			snprintf(path, sizeof path, "%s/%s", TD_SOURCE_DIR, rel);
			if (stat(path, &st) != 0)
				print_message("  ci/gpu-check.sh names %s, which does not exist\n", rel),
				    missing++;
		}
	assert_true(named > 0);
	assert_int_equal(missing, 0);
}

/* ---- the training kernels (kernels/ops.cu) against their bodies on the CPU ---- */


/* Skips, saying why, unless this build and machine can run the float kernels. */
#define NEED_DEVICE_KERNELS()                                                                     \
	do {                                                                                      \
		int count_ = 0;                                                                   \
		if (!td_cuda_compiled())                                                          \
			TD_SKIP("built without CUDA (no nvcc found, or CUDA=0)");                 \
		if (sizeof(td_real) != sizeof(float))                                             \
			TD_SKIP("the kernels are float; this build's td_real is double");         \
		if (td_cuda_device_count(&count_) != 0 || count_ == 0)                            \
			TD_SKIP("no CUDA device here: %s", td_error_last());                      \
	} while (0)

/* tests/device_ops.c's checks, each one test (its header says what they compare). */
static void test_the_rmsnorm_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_rmsnorm_kernels_give_their_bodies_bits(), 0);
}

static void test_the_softmax_and_relu_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_softmax_and_relu_kernels_give_their_bodies_bits(), 0);
}

static void test_the_cross_entropy_kernel_agrees_with_its_body(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_cross_entropy_kernel_agrees_with_its_body(), 0);
}

static void test_the_norm_and_adamw_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_norm_and_adamw_kernels_give_their_bodies_bits(), 0);
}

static void test_the_conv_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_conv_kernels_give_their_bodies_bits(), 0);
}

static void test_the_lru_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_lru_kernels_give_their_bodies_bits(), 0);
}

static void test_the_attention_kernels_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_attention_kernels_give_their_bodies_bits(), 0);
}

static void test_the_optimizer_steps_give_their_bodies_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_optimizer_steps_give_their_bodies_bits(), 0);
}

static void test_the_fold_kernels_give_their_bodies_values(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_fold_kernels_give_their_bodies_values(), 0);
}

static void test_the_models_forward_and_backward_on_the_gpu_agree_with_the_host(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_xmodel_agrees_with_the_host(), 0);
}

static void test_training_on_the_gpu_agrees_with_the_host_and_repeats_its_bits(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_training_agrees_with_the_host(), 0);
}

static void test_a_training_step_never_waits_for_the_gpu(void **state)
{
	(void)state;
	NEED_DEVICE_KERNELS();
	assert_int_equal(td_devcheck_a_step_never_waits_for_the_gpu(), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_gpu_check_script_names_only_files_that_exist),
	cmocka_unit_test(test_the_cuda_axpy_kernel_matches_a_host_loop),
	cmocka_unit_test(test_cublas_sgemm_matches_a_host_loop_in_every_transpose_case),
	cmocka_unit_test(test_cublas_sgemm_refuses_a_short_leading_dimension),
	cmocka_unit_test(test_a_build_without_cuda_says_so),
	cmocka_unit_test(test_the_rmsnorm_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_softmax_and_relu_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_cross_entropy_kernel_agrees_with_its_body),
	cmocka_unit_test(test_the_norm_and_adamw_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_conv_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_lru_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_attention_kernels_give_their_bodies_bits),
	cmocka_unit_test(test_the_optimizer_steps_give_their_bodies_bits),
	cmocka_unit_test(test_the_fold_kernels_give_their_bodies_values),
	cmocka_unit_test(test_the_models_forward_and_backward_on_the_gpu_agree_with_the_host),
	cmocka_unit_test(test_training_on_the_gpu_agrees_with_the_host_and_repeats_its_bits),
	cmocka_unit_test(test_a_training_step_never_waits_for_the_gpu),
};
TD_TEST_GROUP(cuda, tests);
