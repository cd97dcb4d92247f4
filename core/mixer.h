/*
 * mixer.h - 1-D sequence mixers: one layer that mixes along a line.
 *
 * A mixer maps a buffer x of shape [lines][length][channels] (row-major,
 * channels fastest) to y of the same shape, independently for every line,
 * mixing along length. It knows nothing of lattices: the composition
 * families fold an N-D lattice into lines before calling it.
 *
 * Kinds:
 *   TD_MIXER_LRU   a real diagonal linear recurrence (S4D/LRU-like):
 *                    u_t = B x_t,  h_t = a * h_{t-1} + u_t,  y_t = C h_t + D * x_t
 *                  with a = exp(-softplus(w)) in (0, 1) per state, h_{-1} = 0;
 *                  the projections run as one GEMM over all lines and steps.
 *   TD_MIXER_CONV  a causal depthwise convolution:
 *                    y_t[c] = bias[c] + sum_j w[c][j] * x_{t - j * dilation}[c]
 *                  for j < kernel_size, with x before the start taken as 0.
 *   TD_MIXER_GRU   a gated recurrent unit with H = channels (PyTorch's gate
 *                  convention; y_t = h_t, h_{-1} = 0):
 *                    r = sigmoid(Wr x_t + br + Ur h_{t-1} + cr)
 *                    z = sigmoid(Wz x_t + bz + Uz h_{t-1} + cz)
 *                    n = tanh(Wn x_t + bn + r * (Un h_{t-1} + cn))
 *                    h_t = (1 - z) * n + z * h_{t-1}
 *                  the input projections W x_t + b for every line and step
 *                  are one GEMM; each step's U h_{t-1} is one GEMM over lines.
 *   TD_MIXER_ATTENTION  multi-head self-attention (torch.nn.MultiheadAttention
 *                  with bias): [q k v] = x Wqkv^T + bqkv, split into `heads`
 *                  heads of d = channels / heads; per line and head
 *                    p_ts = softmax_s(q_t . k_s / sqrt(d)),  o_t = sum_s p_ts v_s
 *                  with s restricted to s <= t when causal; y = o Wo^T + bo.
 *                  The softmax subtracts each row's maximum before exp.
 *   TD_MIXER_LSTM  a long short-term memory with H = channels (torch.nn.LSTM's
 *                  gate convention; y_t = h_t, h_{-1} = s_{-1} = 0, the cell
 *                  state s_t being PyTorch's c_t):
 *                    [i f g o] = W x_t + b + U h_{t-1} + c   (4 blocks of H)
 *                    s_t = sigmoid(f) * s_{t-1} + sigmoid(i) * tanh(g)
 *                    h_t = sigmoid(o) * tanh(s_t)
 *                  the input projections W x_t + b + c for every line and
 *                  step are one GEMM; each step's U h_{t-1} is one GEMM over
 *                  lines, added in place.
 *   TD_MIXER_CLRU  the LRU with a complex diagonal state (the LRU paper's,
 *                  without its input normalisation):
 *                    h_t = lambda * h_{t-1} + B x_t,  y_t = Re(C h_t) + D * x_t
 *                  with lambda = exp(-exp(nu) + i theta) per state (so
 *                  |lambda| < 1), h_{-1} = 0, B = B_re + i B_im (state x
 *                  channels), C = C_re + i C_im (channels x state), D real
 *                  per channel. A kind of its own rather than an LRU option:
 *                  it has other parameters (nu, theta, the imaginary parts)
 *                  and shares no arithmetic with the real LRU.
 * With reverse set, "before" means "after": the line is swept from its end
 * to its start (forward of reverse = reverse of forward of reversed input).
 *
 * Parameters live in one slab and their gradients in another of the same
 * layout, made of named tensors (td_mixer_tensor_at). td_mixer_init draws
 * tensor t from rng stream (stream + t): a parameter's initial value is a
 * pure function of (seed, stream + t, element index).
 *
 * Training step: td_mixer_forward saves what the backward needs into a
 * caller-owned workspace of td_mixer_ws_size() values (a copy of x and the
 * intermediate states); td_mixer_backward reads it, so the caller keeps the
 * workspace untouched between the two calls. The mixer allocates nothing
 * after td_mixer_new. Calls on one mixer must not run concurrently; distinct
 * mixers are independent. Results are bitwise independent of opts.threads.
 */
#ifndef TD_MIXER_H
#define TD_MIXER_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

typedef enum {
	TD_MIXER_LRU = 1,
	TD_MIXER_CONV = 2,
	TD_MIXER_GRU = 3,
	TD_MIXER_ATTENTION = 4,
	TD_MIXER_LSTM = 5,
	TD_MIXER_CLRU = 6,
} td_mixer_kind;

typedef struct {
	td_mixer_kind kind;
	size_t channels;    /* width of x and y, >= 1 (required) */
	size_t state;	    /* LRU, CLRU: state size per line; 0 means equal to channels */
	size_t kernel_size; /* CONV: taps, >= 1 */
	size_t dilation;    /* CONV: distance between taps, >= 1 */
	int reverse;	    /* nonzero: sweep each line from its end to its start */
	int threads;	    /* threads for the GEMMs, and for the lines of a recurrence
			       (GRU, LSTM) or of attention; >= 1 */
	size_t heads;	    /* ATTENTION: heads, must divide channels; 0 means 1 */
	int causal;	    /* ATTENTION: nonzero: position t attends only to the past
			       (s <= t; with reverse, s >= t) */
} td_mixer_opts;

/*
 * Fields a kind does not use are ignored: state by CONV, GRU, LSTM and
 * ATTENTION (whose hidden size is channels), kernel_size and dilation by
 * all but CONV, heads and causal by all but ATTENTION. causal defaults to 0: an
 * attention mixer sees the whole line unless asked otherwise.
 */
#define TD_MIXER_OPTS_INIT                                                                         \
	{                                                                                          \
		.kind = TD_MIXER_LRU, .kernel_size = 4, .dilation = 1, .threads = 1                \
	}

/* One named parameter tensor: its values are params[offset .. offset + count). */
typedef struct {
	const char *name; /* "B", "w", "bias", ...; static storage */
	size_t offset;
	size_t count;
	size_t rows, cols; /* its shape; count = rows * cols (a vector has rows 1) */
} td_mixer_tensor;

typedef struct td_mixer td_mixer;

/*
 * Builds a mixer with zeroed parameters and gradients (call td_mixer_init
 * next). Copies opts. Refused with TD_EINVAL and a message naming the
 * option: an unknown kind, channels 0, kernel_size 0, dilation 0, threads
 * < 1, heads that do not divide channels, a size that overflows. On
 * success the caller frees *out with td_mixer_free; on failure *out is NULL.
 */
int td_mixer_new(td_mixer **out, const td_mixer_opts *opts);

/* Frees m; accepts NULL. */
void td_mixer_free(td_mixer *m);

/*
 * The options m was built with, state and heads filled in. Borrowed: valid
 * until td_mixer_free(m).
 */
const td_mixer_opts *td_mixer_options(const td_mixer *m);

/* A stable name for the kind ("lru", "conv", "gru", "attention", "lstm", "clru"). */
const char *td_mixer_kind_name(const td_mixer *m);

size_t td_mixer_n_params(const td_mixer *m);
size_t td_mixer_n_tensors(const td_mixer *m);

/* Tensor i, or NULL when i >= td_mixer_n_tensors(m). Borrowed: valid until td_mixer_free(m). */
const td_mixer_tensor *td_mixer_tensor_at(const td_mixer *m, size_t i);

/*
 * The parameter and gradient slabs, td_mixer_n_params(m) values each, laid
 * out as the tensors say. Borrowed: valid until td_mixer_free(m). The caller
 * may write parameters (an optimizer does) and zero gradients.
 */
td_real *td_mixer_params(td_mixer *m);
td_real *td_mixer_grads(td_mixer *m);

/*
 * Moves m's parameters and gradients into caller-owned slabs of
 * td_mixer_n_params(m) values each, copying the current values; from then
 * on td_mixer_params and td_mixer_grads return them and td_mixer_free does
 * not free them (the caller does, after td_mixer_free). This lets a model
 * keep every parameter in one slab. Refused with TD_EINVAL: a NULL slab.
 */
int td_mixer_use_slabs(td_mixer *m, td_real *params, td_real *grads);

/* Sets every gradient to zero. */
void td_mixer_zero_grads(td_mixer *m);

/*
 * Overwrites every parameter with its initial value for seed: tensor t is
 * drawn from stream (stream + t), element e from index e. The mixer uses
 * streams stream .. stream + td_mixer_n_tensors(m) - 1; give each layer a
 * disjoint range.
 */
void td_mixer_init(td_mixer *m, uint64_t seed, uint64_t stream);

/*
 * The number of td_real values of workspace forward and backward need for
 * a batch of lines x length, in *out. Refused with TD_EINVAL for lines or
 * length 0 and TD_ENOMEM when the size overflows.
 */
int td_mixer_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length);

/*
 * y = mixer(x) for lines x length x channels values. ws holds ws_len values
 * (at least td_mixer_ws_size); forward fills it for the backward. y must not
 * overlap x or ws. Refused with TD_EINVAL: NULL buffers, lines or length 0,
 * a workspace that is too small (the message gives the size needed).
 */
int td_mixer_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		     td_real *ws, size_t ws_len);

/*
 * The backward of the last forward on this ws (same lines and length):
 * writes dx = dL/dx (overwriting it) and adds dL/dparams to the gradient
 * slab, given dy = dL/dy. Reads the saved part of ws and leaves it intact,
 * so the backward may be run again. dx must not overlap dy or ws. Refused
 * as forward.
 */
int td_mixer_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
		      td_real *ws, size_t ws_len);

#endif
