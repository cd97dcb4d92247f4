/*
 * gemm.c - cache-blocked GEMM with a fixed reduction order (see gemm.h).
 *
 * C is cut into MC x NC output blocks. For one block, the k-panels (KC
 * deep, KC / 2 with a transposed A) are summed in ascending order into an
 * accumulator tile, the sums starting from zero in the kernel's registers,
 * and the tile is written to C once, at the end; a block with one panel,
 * alpha 1 and beta 0 uses C itself as the tile, unless its last columns
 * from a packed B^T are not whole vectors (the kernel computes those whole,
 * in a tile with room for them: wide). When k spans several
 * panels and all of C fits one tile (a weight gradient), a worker takes
 * each panel across all its blocks before the next (run_panels), so that
 * the panel is read from memory once, and with several threads its rows
 * are cut into as many blocks as keep the workers even (split_rows). op(A) B
 * with fewer than 8 columns is computed as its transpose and stored back
 * (swap_pays). The kernel reads op(A) in place
 * through two strides, whichever way A is stored (its elements are
 * broadcast one at a time, so they need not be contiguous), and op(B) in
 * place when its rows are B's rows; a transposed B is first packed into
 * contiguous rows (padded with zeros to PAD columns), once per column
 * block when k fits one panel, so that the kernel's inner loop always runs
 * over contiguous columns the compiler can vectorise. A product of at most
 * GEMM_SMALL_WORK multiply-adds skips all that and is computed element by
 * element (small_product).
 *
 * What this file must never do: let the summation order of an element depend
 * on anything but k. Threads take whole output blocks (block b goes to
 * worker b mod T); blocks never share an accumulator, so no reduction crosses
 * threads, and the result is bitwise independent of the thread count.
 */
#include "gemm.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "pool.h"
#include "transpose.h"

enum {
	MC = 32,	  /* rows of an output block */
	NC = 128,	  /* columns of an output block */
	KC = 128,	  /* depth of one packed panel */
	PAD = 16,	  /* a packed panel's rows are a multiple of this long: two
			     vectors of the widest kernel (its micro_4x2), and NC is a
			     multiple of it */
};

/*
 * At most this many multiply-adds run on one thread: below it a second
 * costs more than it saves. Measured at 2 threads on the mixers' chunk
 * shapes (98 calls each): 256x32x32 0.57 -> 0.33 ms and 64x32x32 0.143 ->
 * 0.128 ms split, while 64x16x32 (2^15) split was slower.
 */
#define GEMM_SERIAL_WORK ((size_t)1 << 15)

/* At most this many multiply-adds: small_product, without blocks. */
#define GEMM_SMALL_WORK 64

/*
 * One k-panel of an output block as the kernel reads it: A(i, p) =
 * a[i * ars + p * aps] and B(p, j) = b[p * brs + j] for i < mc, j < nc,
 * p < kc.
 */
typedef struct {
	const td_real *a, *b;
	size_t ars, aps, brs;
	size_t mc, nc, kc;
	int first;  /* the block's first k-panel: the tile's old values are not read */
	size_t ts;  /* the tile's row stride: NC, or ldc when the tile is C itself */
	int padded; /* B's rows hold zeros from nc up to a multiple of PAD (a packed
		       panel): the kernel reads its last columns in place */
	int wide;   /* the tile's rows have room up to nc rounded up to PAD: the kernel
		       writes its last vectors whole, spare lanes included (store() and
		       the next panel's sums never read those into C) */
} panel;

/* acc[i][j] += sum over p ascending of A(i, p) B(p, j) (gemm_kernel.inc). */
typedef void (*kernel_fn)(td_real *acc, const panel *pn);

/* One call's arguments, shared read-only by its workers. */
typedef struct {
	td_real *c;
	const td_real *a, *b;
	size_t ldc, lda, ldb, m, n, k;
	td_gemm_opts o;
	size_t mb;	   /* rows of an output block: MC, or fewer (split_rows) */
	size_t n_bi, n_bj; /* output blocks down and across */
	size_t workers;	   /* worker w computes blocks w, w + workers, ... */
	kernel_fn kernel;  /* the panel kernel (all give the same bits) */
	int swapped;	   /* the job computes C^T (see swap_pays): element (i, j) is C's (j, i) */
} gemm_job;

/* A worker's scratch: the accumulator tile and a transposed B's packed panel. */
typedef struct {
	td_real acc[MC * NC]; /* [mc][NC]: row i at acc + i * NC */
	td_real bp[KC * NC];  /* [kc][nc rounded up to PAD]: op(B)[p0 + p][j0 + j], then
				 zeros, with trans_b only */
	size_t bp_bj;	      /* bp holds column block bj's only k-panel; SIZE_MAX: nothing */
} gemm_scratch;

static size_t min_size(size_t x, size_t y)
{
	return x < y ? x : y;
}

/* The row length of a packed panel of nc columns. */
static size_t padded(size_t nc)
{
	return (nc + PAD - 1) / PAD * PAD;
}

/*
 * Packs op(B)[p0 .. p0+kc)[j0 .. j0+nc) = B^T's into bp, rows padded(nc)
 * long, zeros after column nc (trans_b only).
 */
static void pack_bt(const gemm_job *g, td_real *bp, size_t p0, size_t kc, size_t j0,
		    size_t nc)
{
	const size_t np = padded(nc);

	td_transpose(bp, np, g->b + j0 * g->ldb + p0, g->ldb, nc, kc);
	for (size_t p = 0; np > nc && p < kc; p++)
		memset(bp + p * np + nc, 0, (np - nc) * sizeof *bp);
}

/*
 * The kernel, once per vector width (gemm_kernel.inc): 16 bytes, which the
 * baseline x86-64 and arm64 instruction sets have everywhere, and on x86-64
 * 32 bytes with AVX2 (no FMA), chosen at run time where the CPU has it.
 * Both give bitwise the same results (see the .inc's header).
 */
#define KERNEL_VEC_BYTES 16
#define KERNEL_SUFFIX baseline
#define KERNEL_TARGET
#include "gemm_kernel.inc"
#undef KERNEL_VEC_BYTES
#undef KERNEL_SUFFIX
#undef KERNEL_TARGET

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_KERNEL 1
#define KERNEL_VEC_BYTES 32
#define KERNEL_SUFFIX avx2
#define KERNEL_TARGET __attribute__((target("avx2")))
#include "gemm_kernel.inc"
#undef KERNEL_VEC_BYTES
#undef KERNEL_SUFFIX
#undef KERNEL_TARGET
#endif

typedef struct {
	const char *name;
	kernel_fn fn;
} kernel_entry;

static const kernel_entry kernels[] = {
    {"baseline", kernel_baseline},
#ifdef HAVE_AVX2_KERNEL
    {"avx2", kernel_avx2},
#endif
};

enum { N_KERNELS = sizeof kernels / sizeof kernels[0] };

/* The kernel td_gemm_use_kernel chose; -1: the widest this CPU can run. */
static int kernel_chosen = -1;

static int cpu_can_run(size_t i)
{
#ifdef HAVE_AVX2_KERNEL
	if (!strcmp(kernels[i].name, "avx2"))
		return __builtin_cpu_supports("avx2");
#endif
	return i == 0;
}

static size_t kernel_index(void)
{
	size_t i = N_KERNELS - 1;

	if (kernel_chosen >= 0)
		return (size_t)kernel_chosen;
	while (i > 0 && !cpu_can_run(i))
		i--;
	return i;
}

const char *td_gemm_kernel(void)
{
	return kernels[kernel_index()].name;
}

int td_gemm_use_kernel(const char *name)
{
	if (!name) {
		kernel_chosen = -1;
		return 0;
	}
	for (size_t i = 0; i < N_KERNELS; i++) {
		if (strcmp(kernels[i].name, name))
			continue;
		if (!cpu_can_run(i))
			return TD_FAIL(TD_ENOTSUP, "GEMM kernel \"%s\" needs an instruction set this CPU lacks", name);
		kernel_chosen = (int)i;
		return 0;
	}
	return TD_FAIL(TD_EINVAL, "no GEMM kernel is called \"%s\"; this build has baseline%s", name,
		       N_KERNELS > 1 ? " and avx2" : "");
}

/*
 * C block = alpha * acc + beta * C block (acc's rows ts apart); with beta
 * 0, C is not read. A swapped job's block is C^T's: acc[i][j] goes to C's
 * (j0 + j, i0 + i).
 */
static void store(const gemm_job *g, const td_real *acc, size_t ts, size_t i0, size_t mc, size_t j0,
		  size_t nc)
{
	const td_real alpha = g->o.alpha, beta = g->o.beta;

	for (size_t i = 0; g->swapped && i < mc; i++)
		for (size_t j = 0; j < nc; j++) {
			td_real *cji = g->c + (j0 + j) * g->ldc + i0 + i;

			*cji = beta == 0 ? alpha * acc[i * ts + j] : alpha * acc[i * ts + j] + beta * *cji;
		}
	for (size_t i = 0; !g->swapped && i < mc; i++) {
		td_real *restrict crow = g->c + (i0 + i) * g->ldc + j0;
		const td_real *restrict arow = acc + i * ts;

		if (beta == 0)
			for (size_t j = 0; j < nc; j++)
				crow[j] = alpha * arow[j];
		else
			for (size_t j = 0; j < nc; j++)
				crow[j] = alpha * arow[j] + beta * crow[j];
	}
}

/*
 * The depth of one k-panel: KC, or half of it for a transposed A, whose
 * panel the kernel reads a few values from each of kc rows: 32 rows' worth
 * of those lines and the panel of B fill the L1 cache at KC, and the
 * kernel then waits on A's loads (the weight gradients, A^T B with k the
 * batch's positions, ran at half the speed of the other products).
 */
static size_t panel_depth(const gemm_job *g)
{
	return g->o.trans_a ? KC / 2 : KC;
}

/*
 * Points pn (mc, nc, first and ts set) at block (bi, bj)'s k-panel from
 * p0, kc deep at most, packing a transposed B.
 */
static void panel_at(const gemm_job *g, gemm_scratch *s, panel *pn, size_t bi, size_t bj,
		     size_t p0, size_t kc)
{
	const size_t i0 = bi * g->mb, j0 = bj * NC;

	pn->kc = min_size(kc, g->k - p0);
	if (g->o.trans_a) /* A is stored k x m: A(i, p) = a[(p0 + p) lda + i0 + i] */
		pn->a = g->a + p0 * g->lda + i0, pn->ars = 1, pn->aps = g->lda;
	else
		pn->a = g->a + i0 * g->lda + p0, pn->ars = g->lda, pn->aps = 1;
	if (!g->o.trans_b) {
		pn->b = g->b + p0 * g->ldb + j0, pn->brs = g->ldb;
		return;
	}
	if (g->k > kc || s->bp_bj != bj) /* with one k-panel, a row block reuses it */
		pack_bt(g, s->bp, p0, pn->kc, j0, pn->nc);
	s->bp_bj = g->k > kc ? SIZE_MAX : bj;
	pn->b = s->bp, pn->brs = padded(pn->nc);
}

/* Computes output block (bi, bj) completely: every k-panel, then the store (if any). */
static void do_block(const gemm_job *g, gemm_scratch *s, size_t bi, size_t bj)
{
	size_t i0 = bi * g->mb, j0 = bj * NC;
	size_t mc = min_size(g->mb, g->m - i0), nc = min_size(NC, g->n - j0);

	/*
	 * With one panel, alpha 1 and beta 0, C = the sums: the kernel writes
	 * them into C itself (as the tile, row stride ldc), and the copy from
	 * the tile is saved. Otherwise the sums collect in the tile, and so
	 * they do when B is a packed B^T (zeros after column nc) and nc is not
	 * a multiple of 8: the kernel then computes the last columns whole
	 * vectors wide in the tile (wide), where C has no room for them, and
	 * the store copies nc columns. Through a small tile of their own,
	 * copied in and out four rows at a time, they had cost more than the
	 * rest: 25088x10x32 (a model's head) 0.52 -> 0.43 ms, 896 calls of
	 * 28x28x32 (the kernel family's dK) 1.15 -> 0.99 ms.
	 */
	const size_t kc = panel_depth(g);
	const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0 && !g->swapped;
	const int in_c = direct && !(g->o.trans_b && nc % 8 != 0);
	td_real *tile = in_c ? g->c + i0 * g->ldc + j0 : s->acc;
	panel pn = {NULL, NULL, 0, 0, 0, mc, nc, 0, 1, in_c ? g->ldc : NC, g->o.trans_b,
		    !in_c && g->o.trans_b};

	for (size_t i = 0; g->k == 0 && i < mc; i++) /* no panel: the sums are 0 */
		memset(s->acc + i * NC, 0, nc * sizeof *s->acc);
	for (size_t p0 = 0; p0 < g->k; p0 += kc, pn.first = 0) {
		panel_at(g, s, &pn, bi, bj, p0, kc);
		g->kernel(tile, &pn);
	}
	if (!in_c)
		store(g, s->acc, NC, i0, mc, j0, nc);
}

/*
 * Whether the blocks run panel by panel (run_share): k spans several
 * panels and all of C fits the tile, [m][n] with rows n apart, or wide
 * (whole_stride).
 */
static int whole_tile(const gemm_job *g)
{
	return g->k > panel_depth(g) && g->m * g->n <= MC * NC;
}

/* The row stride of run_panels' tile: n rounded up to PAD (wide) where it fits, else n. */
static size_t whole_stride(const gemm_job *g)
{
	return g->m * padded(g->n) <= MC * NC ? padded(g->n) : g->n;
}

/*
 * Worker w's blocks, one k-panel at a time across all of them, their sums
 * in the tile at their place in C, then stored: the panel of A and B is
 * read from memory once for every block, not once per block (a weight
 * gradient A^T B over a batch's positions has 3 or 4 row blocks that share
 * each row of B and each line of A). Each sum still takes the panels in
 * order.
 */
static void run_panels(const gemm_job *g, gemm_scratch *s, size_t w)
{
	const size_t kc = panel_depth(g), n = g->n, ts = whole_stride(g);
	const int wide = g->o.trans_b && ts == padded(n);

	for (size_t p0 = 0; p0 < g->k; p0 += kc)
		for (size_t b = w; b < g->n_bi * g->n_bj; b += g->workers) {
			const size_t bi = b / g->n_bj, bj = b % g->n_bj;
			panel pn = {NULL, NULL, 0, 0, 0, min_size(g->mb, g->m - bi * g->mb),
				    min_size(NC, n - bj * NC), 0, p0 == 0, ts, g->o.trans_b, wide};

			panel_at(g, s, &pn, bi, bj, p0, kc);
			g->kernel(s->acc + bi * g->mb * ts + bj * NC, &pn);
		}
	for (size_t b = w; b < g->n_bi * g->n_bj; b += g->workers) {
		const size_t bi = b / g->n_bj, bj = b % g->n_bj;

		store(g, s->acc + bi * g->mb * ts + bj * NC, ts, bi * g->mb,
		      min_size(g->mb, g->m - bi * g->mb), bj * NC, min_size(NC, n - bj * NC));
	}
}

/*
 * The whole product element by element, as gemm.h's contract writes it:
 * for a product this small (the attention's per-head products on lines of
 * length 1 are 1 x 1 x 8) the blocked path's fixed costs outweigh the
 * work. The same sums in the same order, so bitwise what the blocked path
 * computes.
 */
static void small_product(const gemm_job *g)
{
	for (size_t i = 0; i < g->m; i++)
		for (size_t j = 0; j < g->n; j++) {
			td_real s = 0, *cij = g->c + i * g->ldc + j;

			for (size_t p = 0; p < g->k; p++)
				s += (g->o.trans_a ? g->a[p * g->lda + i] : g->a[i * g->lda + p]) *
				     (g->o.trans_b ? g->b[j * g->ldb + p] : g->b[p * g->ldb + j]);
			*cij = g->o.beta == 0 ? g->o.alpha * s : g->o.alpha * s + g->o.beta * *cij;
		}
}

/*
 * Whether to compute C^T = op(B)^T op(A)^T instead: for op(A) B with fewer
 * than 8 columns (a layer with one or a few inputs: its weight gradient
 * A^T B, its input gradient A B), whose rows the kernel would fill a few
 * lanes of a vector at a time and whose columns then wasted the rest. C^T
 * transposes where C did not: for A^T B both of its operands are read as
 * they are stored (A(i, p) = a[p lda + i] is C^T's B, contiguous in i);
 * for A B, its B is A^T, packed like any transposed B (the embedding's
 * input gradient, 25088x1x32: 0.45 -> 0.15 ms). With a transposed B the
 * pack of A^T costs more than the lanes save (25088x7x32: 0.35 -> 0.38
 * ms), so it is not swapped. C^T's elements are C's, each the same products
 * (x y = y x) summed in the same order, and store() writes them back
 * transposed: the same bits.
 */
static int swap_pays(const gemm_job *g)
{
	return !g->o.trans_b && g->n < 8 && g->m > g->n;
}

/* Runs worker w's share of the blocks. */
static void run_share(const gemm_job *g, size_t w)
{
	gemm_scratch s; /* 80 KB of stack (160 KB in double): fine for main and pthread stacks */

	s.bp_bj = SIZE_MAX;
	if (whole_tile(g)) {
		run_panels(g, &s, w);
		return;
	}
	for (size_t b = w; b < g->n_bi * g->n_bj; b += g->workers)
		do_block(g, &s, b / g->n_bj, b % g->n_bj);
}

/* Share w of a parallel call (pool.h). */
static void share_main(void *arg, size_t w)
{
	run_share(arg, w);
}

/*
 * A product whose blocks run panel by panel (a weight gradient: a small C,
 * k the batch's positions) has a few row blocks, 1 to 4 of MC rows, which
 * the workers took unevenly (96 rows: 2 blocks and 1) or not at all (32
 * rows: one block, one worker). With more than one thread its rows are
 * cut into a multiple of the workers' count of blocks instead (96 rows: 4
 * of 24). Which rows share a block never changes an element's sum: the
 * bits are the same for any cut.
 */
static void split_rows(gemm_job *g)
{
	size_t w = (size_t)g->o.threads < TD_POOL_MAX ? (size_t)g->o.threads : TD_POOL_MAX;
	size_t blocks = (g->m + MC - 1) / MC;

	if (w < 2 || !whole_tile(g))
		return;
	blocks = (blocks + w - 1) / w * w;
	g->mb = ((g->m + blocks - 1) / blocks + 3) / 4 * 4; /* whole rows4 calls */
	g->n_bi = (g->m + g->mb - 1) / g->mb;
}

/* How many workers to use: never more than blocks, and one for small problems. */
static size_t pick_workers(const gemm_job *g)
{
	size_t blocks = g->n_bi * g->n_bj, w = (size_t)g->o.threads;

	if (w > TD_POOL_MAX)
		w = TD_POOL_MAX;
	if (w > blocks)
		w = blocks;
	if (g->m * g->n > GEMM_SERIAL_WORK / (g->k ? g->k : 1))
		return w;
	return 1;
}

static int check_args(const td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b,
		      size_t ldb, size_t m, size_t n, size_t k, const td_gemm_opts *o)
{
	size_t a_cols = o->trans_a ? m : k, b_cols = o->trans_b ? k : n;

	if (o->threads < 1)
		return TD_FAIL(TD_EINVAL, "threads is %d; pass at least 1", o->threads);
	if (m == 0 || n == 0)
		return 0;
	if (!c)
		return TD_FAIL(TD_EINVAL, "C is NULL for a %zu x %zu result", m, n);
	if (ldc < n)
		return TD_FAIL(TD_EINVAL, "ldc %zu is less than n %zu", ldc, n);
	if (k == 0)
		return 0;
	if (!a || !b)
		return TD_FAIL(TD_EINVAL, "%s is NULL with k %zu", a ? "B" : "A", k);
	if (lda < a_cols)
		return TD_FAIL(TD_EINVAL, "lda %zu is less than the %zu columns of the stored A%s",
			       lda, a_cols, o->trans_a ? " (trans_a)" : "");
	if (ldb < b_cols)
		return TD_FAIL(TD_EINVAL, "ldb %zu is less than the %zu columns of the stored B%s",
			       ldb, b_cols, o->trans_b ? " (trans_b)" : "");
	return 0;
}

static atomic_int counting;
static atomic_uint_least64_t counted;

void td_gemm_count_begin(void)
{
	atomic_store(&counted, 0);
	atomic_store(&counting, 1);
}

uint64_t td_gemm_count_end(void)
{
	atomic_store(&counting, 0);
	return atomic_load(&counted);
}

int td_gemm(td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b, size_t ldb,
	    size_t m, size_t n, size_t k, const td_gemm_opts *opts)
{
	static const td_gemm_opts defaults = TD_GEMM_OPTS_INIT;
	const td_gemm_opts *o = opts ? opts : &defaults;
	gemm_job g;
	int err = check_args(c, ldc, a, lda, b, ldb, m, n, k, o);

	if (err)
		return err;
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add_explicit(&counted, (uint64_t)m * n * k, memory_order_relaxed);
	if (m == 0 || n == 0)
		return 0;
	g = (gemm_job){c, a, b, ldc, lda, ldb, m, n, k, *o, MC, (m + MC - 1) / MC,
		       (n + NC - 1) / NC, 1, kernels[kernel_index()].fn, 0};
	if (m <= GEMM_SMALL_WORK && n <= GEMM_SMALL_WORK && k <= GEMM_SMALL_WORK &&
	    m * n * k <= GEMM_SMALL_WORK) {
		small_product(&g);
		return 0;
	}
	if (swap_pays(&g)) { /* C^T = op(B)^T op(A)^T */
		g = (gemm_job){c, b, a, ldc, ldb, lda, n, m, k, *o, MC, (n + MC - 1) / MC,
			       (m + NC - 1) / NC, 1, g.kernel, 1};
		g.o.trans_a = !o->trans_b, g.o.trans_b = !o->trans_a;
	}
	split_rows(&g);
	g.workers = pick_workers(&g);
	if (g.workers == 1)
		run_share(&g, 0);
	else
		td_pool_run(g.workers, share_main, &g);
	return 0;
}
