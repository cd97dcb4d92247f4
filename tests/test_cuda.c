/*
 * test_cuda.c - the GPU backend: compiled where nvcc exists, run where a
 * device exists, skipped visibly (with the reason) everywhere else.
 *
 * Independent reference: a naive host loop for the placeholder kernel.
 * Edit that breaks it: `y[i] = a * x[i]` (dropping + y[i]) in axpy_kernel,
 * on a machine with a GPU.
 */
#include "tdtest.h"

#include "../core/error.h"
#include "../kernels/backend.h"

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

static void test_a_build_without_cuda_says_so(void **state)
{
	int count = -1;

	(void)state;
	if (td_cuda_compiled())
		TD_SKIP("this build has CUDA; the no-CUDA path is tested by make CUDA=0 and make asan");
	TD_ASSERT_REFUSED(td_cuda_device_count(&count), TD_ENOTSUP, "built without CUDA");
	assert_int_equal(count, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_cuda_axpy_kernel_matches_a_host_loop),
	cmocka_unit_test(test_a_build_without_cuda_says_so),
};
TD_TEST_GROUP(cuda, tests);
