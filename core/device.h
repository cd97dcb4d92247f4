/*
 * device.h - where tdtrain computes: the config key `device` (cpu or cuda)
 * held against what this build and this machine can do.
 *
 * Must never let a run asked for on the GPU go on silently on the CPU:
 * device = cuda is refused, saying what to do, when the build has no CUDA
 * backend and when the CUDA runtime finds no device (and by train.c, with
 * the reason, for a model the GPU path does not compute yet: xmodel.h).
 * The choice changes where the run
 * computes, not what it is: the key is weight-independent, as threads is
 * (config.c), so a resume may change it.
 */
#ifndef TD_DEVICE_H
#define TD_DEVICE_H

typedef enum { TD_DEVICE_CPU, TD_DEVICE_CUDA } td_device;

/*
 * What td_device_check asks of the CUDA backend: kernels/backend.h's
 * td_cuda_compiled and td_cuda_device_count, which a test may replace.
 * count sets *n and returns 0, or a TD_E* code with the runtime's reason.
 */
typedef struct {
	int (*compiled)(void);
	int (*count)(int *n);
} td_device_probe;

/* The device named name ("cpu" or "cuda") in *out; TD_EINVAL naming it otherwise. */
int td_device_parse(td_device *out, const char *name);

/*
 * 0 when a run may compute on d; otherwise a negative code with a message
 * that starts "device = cuda:" and says what to do: TD_ENOTSUP when the
 * build has no CUDA backend (its own message kept); the backend's code
 * (TD_EIO) when the runtime finds no usable device. probe NULL: the real
 * backend (kernels/backend.h).
 */
int td_device_check(td_device d, const td_device_probe *probe);

#endif
