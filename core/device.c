/*
 * device.c - the device choice held against the build and the machine
 * (see device.h).
 *
 * Must never answer 0 for cuda without a CUDA build and a device, and
 * never drop the backend's own reason from a refusal.
 */
#include "device.h"

#include <stdio.h>
#include <string.h>

#include "../base/error.h"
#include "../kernels/backend.h"

int td_device_parse(td_device *out, const char *name)
{
	if (name && !strcmp(name, "cpu"))
		return *out = TD_DEVICE_CPU, 0;
	if (name && !strcmp(name, "cuda"))
		return *out = TD_DEVICE_CUDA, 0;
	return TD_FAIL(TD_EINVAL, "device '%s' is not one of cpu, cuda", name ? name : "(null)");
}

int td_device_check(td_device d, const td_device_probe *probe)
{
	static const td_device_probe real = {td_cuda_compiled, td_cuda_device_count};
	char why[512];
	int n = 0, err;

	if (d == TD_DEVICE_CPU)
		return 0;
	if (!probe)
		probe = &real;
	err = probe->count(&n);
	snprintf(why, sizeof why, "%s", err ? td_error_last() : "");
	if (!probe->compiled())
		return TD_FAIL(err ? err : TD_ENOTSUP, "device = cuda: %s; or train on the CPU "
						     "with --device cpu",
			       err ? why : "built without CUDA; rebuild with nvcc on PATH (make CUDA=1)");
	if (err)
		return TD_FAIL(err, "device = cuda: %s; run where an NVIDIA GPU and its driver are "
				    "present, or use --device cpu",
			       why);
	if (n < 1)
		return TD_FAIL(TD_EIO, "device = cuda: the CUDA runtime finds no device; run where "
				       "an NVIDIA GPU is present, or use --device cpu");
	return 0;
}
