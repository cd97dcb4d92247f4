/*
 * backend.h - the core's GPU backend interface.
 *
 * Built from kernels/cuda.cu by nvcc where the CUDA toolkit exists
 * (make CUDA=auto, the default), or from kernels/nocuda.c otherwise, so
 * callers never need an #ifdef: without CUDA every call returns TD_ENOTSUP
 * with a message saying so. Nothing here may abort on a machine without a
 * GPU: "no device" is an answer, not a crash.
 */
#ifndef TD_BACKEND_H
#define TD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* 1 if this build has the CUDA backend compiled in, else 0. */
int td_cuda_compiled(void);

/*
 * Number of usable CUDA devices in *count. Returns TD_EIO with the runtime's
 * reason (no driver, no device) and *count = 0 when the runtime cannot be
 * used, and TD_ENOTSUP when the build has no CUDA backend.
 */
int td_cuda_device_count(int *count);

/*
 * y[i] = a * x[i] + y[i] for i < n, on device 0: a placeholder kernel that
 * exercises compile, launch and copy until the real kernels land. Host
 * pointers in and out.
 */
int td_cuda_axpy(size_t n, float a, const float *x, float *y);

/*
 * C = alpha * op(A) op(B) + beta * C in single precision on device 0
 * through cuBLAS, with td_gemm's row-major layout and arguments (gemm.h):
 * C is m x n with leading dimension ldc, op(A) m x k, op(B) k x n, A and B
 * stored transposed when trans_a / trans_b is nonzero. Host pointers in and
 * out. cuBLAS runs in pedantic math mode (no TF32, IEEE float products and
 * sums), and a given GPU architecture, SM count and toolkit give the same
 * bits every run; its summation order is not td_gemm's, so results agree
 * with the CPU to rounding, not bitwise. Refused with TD_EINVAL, before any
 * device work: a leading dimension below its row length, a NULL matrix
 * with m, n and k nonzero.
 */
int td_cuda_sgemm(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb,
		  size_t m, size_t n, size_t k, int trans_a, int trans_b, float alpha, float beta);

/*
 * The training kernels (kernels/ops.cu) on device 0, each one launch whose
 * threads call one body of kernels/ops.h for one row, channel, example or
 * element, so that the device tests compare them with the same bodies on
 * the CPU. float only (the double build's td_real is not theirs). Host
 * pointers in and out: device memory is allocated, filled, read back and
 * freed per call (the training path will keep its own). TD_EIO with the
 * runtime's reason when a CUDA call fails; TD_ENOTSUP without CUDA.
 */
/* y [rows][width] and inv [rows]: td_op_rmsnorm_row per row. */
int td_cuda_rmsnorm_forward(float *y, float *inv, const float *x, const float *gain, size_t rows,
			    size_t width);
/* dx [rows][width] (add: dx += ) per row, then dgain [width] += per channel. */
int td_cuda_rmsnorm_backward(float *dx, float *dgain, const float *dy, const float *x,
			     const float *inv, const float *gain, size_t rows, size_t width, int add);
/* w [rows][n] = the softmax of each row of s [rows][n]. */
int td_cuda_softmax_rows(float *w, const float *s, size_t rows, size_t n);
/* act[i] = relu(pre[i]); then, when dpre is not NULL, dpre[i] = relu'(pre[i]) dact[i]. */
int td_cuda_relu(float *act, float *dpre, const float *pre, const float *dact, size_t n);
/*
 * Per example b < batch: loss[b], best[b] and dy [b][n_cells][k] from
 * y [b][n_cells][k], present [b][n_cells] and labels[b] (td_op_xent).
 */
int td_cuda_xent(float *dy, double *loss, int *best, const float *y, const uint8_t *present,
		 const int *labels, size_t batch, size_t n_cells, size_t k, double scale);
/* The global norm of g [n]: parts of TD_OPS_NORM_PART, one thread each, totalled in order. */
int td_cuda_grad_norm(double *norm, const float *g, size_t n);
/* One applied AdamW step over p, m, v [n] from g [n] with the step's shared figures. */
struct td_op_adamw_step;
int td_cuda_adamw(float *p, float *m, float *v, const float *g, size_t n,
		  const struct td_op_adamw_step *s);
/*
 * The causal convolution (td_op_conv's shape s) over lines lines of
 * [length][channels]: forward, y from x and the mixer's slab w ([taps]
 * [channels] weights, then [channels] bias); backward, dx (written) and g
 * (the slab's gradient, added to) from dy, the forward's x and w.
 */
struct td_op_conv;
int td_cuda_conv_forward(float *y, const float *x, const float *w, size_t lines,
			 const struct td_op_conv *s);
int td_cuda_conv_backward(float *dx, float *g, const float *dy, const float *x, const float *w,
			  size_t lines, const struct td_op_conv *s);
/*
 * The LRU's recurrences on lines lines of [length][n] states: h in place,
 * td_op_lru_scan per (line, state), or with adjoint its adjoint. Then its
 * sums: da [n] (td_op_lru_decay_grad over adjoints g and states h) and dd
 * [c] (td_op_lru_skip_grad over dy and x, lines of [length][c]).
 */
int td_cuda_lru_scan(float *h, const float *a, size_t lines, size_t length, size_t n, int reverse,
		     int adjoint);
int td_cuda_lru_grads(float *da, float *dd, const float *g, const float *h, const float *dy,
		      const float *x, size_t lines, size_t length, size_t n, size_t c, int reverse);
/*
 * steps optimizer steps over p, m, v [n] as training runs them, with no
 * copy and no wait between steps: per step the norm's parts with the
 * firewall's search, td_op_opt_decide in one thread, and the update
 * where it applied the step. Step k reads g + k n and lr[k] (lr(s) for
 * its s, taken on the host); bc1 and bc2 hold 1 - beta^t for t = 0 ..
 * st->t + steps. st (its s, t, skips and step's betas and eps) is the
 * state before, and after the call the state after.
 */
/*
 * dst [batch][n_cells][channels] from src: td_op_fold_select per value, a
 * fold (unfold 0, map the fold's fold) or an unfold (1, map its unfold)
 * with selection by mask [n_cells] and emask [batch][n_cells] (NULL: none).
 */
int td_cuda_fold_select(float *dst, const float *src, const size_t *map, const uint8_t *mask,
			const uint8_t *emask, size_t batch, size_t n_cells, size_t channels,
			int unfold);
struct td_op_opt_state;
int td_cuda_adamw_steps(float *p, float *m, float *v, struct td_op_opt_state *st, const float *g,
			size_t n, size_t steps, const double *lr, double clip, double weight_decay,
			const double *bc1, const double *bc2);

/*
 * The CUDA executor (core/exec.h) on device 0: its own stream, cuBLAS
 * handle and workspace. *out is freed with td_cuda_exec_free (which
 * accepts NULL). real_size is the caller's sizeof(td_real): the kernels
 * are float, so a double build is refused with TD_ENOTSUP, as is a build
 * without CUDA; TD_EIO with the runtime's reason when CUDA cannot start.
 */
struct td_exec;
int td_cuda_exec_new(const struct td_exec **out, size_t real_size);
void td_cuda_exec_free(const struct td_exec *x);

/*
 * For the device check that a step never waits: td_cuda_exec_hold queues
 * on x's stream a kernel that returns after seconds; td_cuda_exec_busy is
 * 1 while x has queued work, 0 when it has none, or a TD_E* code.
 */
int td_cuda_exec_hold(const struct td_exec *x, double seconds);
int td_cuda_exec_busy(const struct td_exec *x);

#endif
