-- mutations/core/mixer_attention.lua: the mutants of core/mixer_attention.c,
-- multi-head self-attention along a line (equations in mixer.h), laid out as
-- torch.nn.MultiheadAttention.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_attention-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Entries named mixer_attention-reference-* change the mathematics of the
-- mixer in a way its own tests need not notice; the fixtures computed by
-- PyTorch (tests/fixtures/mixers.py) must.

mutant {
  name = "mixer_attention-heads-not-checked",
  file = "core/mixer_attention.c",
  find = "if (c % m->o.heads != 0)",
  replace = "if (0)",
  guards = { "test_mixer_attention_heads_that_do_not_divide_channels_are_refused" },
  designed_against = "heads that do not divide the width leave channels in no head (silently dropped)",
  why = "accepts a head count that does not divide channels",
}

mutant {
  name = "mixer_attention-ws-scratch-short",
  file = "core/mixer_attention.c",
  find = "(err = td_mixer_size_muladd(&kt, d, stride(length), tt, \"the attention scratch\"))",
  replace = "(err = td_mixer_size_muladd(&kt, d - 1, stride(length), tt, \"the attention scratch\"))",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "each worker's scratch is carved past the saved tensors; a size that forgets a slice writes past the workspace",
  why = "asks for Tp fewer values per worker than k^T (or v^T) takes",
}

mutant {
  name = "mixer_attention-ws-scratch-without-the-tail",
  file = "core/mixer_attention.c",
  find = "(err = td_mixer_size_muladd(&per, LANES, d, kt, \"the attention scratch\"))",
  replace = "(err = td_mixer_size_muladd(&per, 0, d, kt, \"the attention scratch\"))",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "each worker's scratch is carved past the saved tensors; a size that forgets a slice writes past the workspace",
  why = "asks for no room for transpose_rows's padded copy of the last rows",
}

mutant {
  name = "mixer_attention-ws-size-without-vmax",
  file = "core/mixer_attention.c",
  find = "\tif ((err = td_mixer_size_muladd(&scratch, n_workers(m, lines), per, 4 * c + 16,",
  replace = "\tif ((err = td_mixer_size_muladd(&scratch, n_workers(m, lines), per, 4 * c + 15,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a value added to a carved layout but not to the size that pays for it",
  why = "the workspace size pays for 15 of the 16 values that hold the forward's saved bound on |v| and pad the scratch onto a line, so the last worker's scratch runs one value past it",
}

mutant {
  name = "mixer_attention-ws-size-one-part-short",
  file = "core/mixer_attention.c",
  find = "\t    (err = td_mixer_size_muladd(&scratch, n_parts(lines, length), m->n_params, scratch,",
  replace = "\t    (err = td_mixer_size_muladd(&scratch, n_parts(lines, length) - 1, m->n_params, scratch,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace size that leaves out part of a region the code carves",
  why = "the last block's parameter gradients are written past the workspace the caller was told to allocate",
}

mutant {
  name = "mixer_attention-reference-causal-ignored",
  file = "core/mixer_attention.c",
  find = "return causal ? i + 1 : length;",
  replace = "return (void)causal, (void)i, length;",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "a causal mixer must read only the past (a mask applied to the wrong side, or not at all)",
  why = "lets every query attend to the whole line whatever causal says",
}

mutant {
  name = "mixer_attention-reverse-ignored",
  file = "core/mixer_attention.c",
  find = "if (!j->m->o.reverse)",
  replace = "if (!j->m->o.reverse || 1)",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "with reverse and causal, the past is the later positions; a dropped flag looks the wrong way",
  why = "attention sweeps forward whatever reverse says",
}

mutant {
  name = "mixer_attention-reverse-keys-in-storage-order",
  file = "core/mixer_attention.c",
  find = "for (size_t i = 0, k = n - 1; i < k; i++, k--) {",
  replace = "for (size_t i = 0, k = n - 1; i < k && 0; i++, k--) {",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "a reverse sweep reads its rows in place a negative stride apart; k^T taken as the rows are stored puts key j at column T-1-j",
  why = "leaves k^T (v^T backward) in storage order: each query's scores meet the keys mirrored",
}

mutant {
  name = "mixer_attention-transpose-tail-drops-the-last-row",
  file = "core/mixer_attention.c",
  find = "for (size_t j = whole; j < n; j++)",
  replace = "for (size_t j = whole; j + 1 < n; j++)",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_gradients_agree_with_finite_differences" },
  designed_against = "rows past the last whole block of 8 take another path through the transpose; an off-by-one there loses the last key",
  why = "leaves the last key's row out of k^T (and v^T): its column is 0",
}

mutant {
  name = "mixer_attention-scores-mask-one-key-late",
  file = "core/mixer_attention.c",
  find = "const vmask keep = lane < (vmask){0} + (lane_int)(nk > j0 ? nk - j0 : 0);",
  replace = "const vmask keep = lane <= (vmask){0} + (lane_int)(nk > j0 ? nk - j0 : 0);",
  guards = { "test_mixer_causal_attention_never_reads_the_future",
             "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "an off-by-one at the boundary of the keys a query sees",
  why = "each row keeps one key past the last it sees: the next step for causal rows, a padding lane of 0 for the rest",
}

mutant {
  name = "mixer_attention-masked-scores-kept",
  file = "core/mixer_attention.c",
  find = "const size_t j0 = j + v * LANES, nk = n_keys(causal, i + r, sj->t);",
  replace = "const size_t j0 = j + v * LANES, nk = sj->t;",
  guards = { "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "the score product computes every key's score, masked or not; a masked key must still get weight 0",
  why = "leaves the masked keys' raw scores in the weights that o = p v reads",
}

mutant {
  name = "mixer_attention-products-drop-the-rows-past-the-blocks",
  file = "core/mixer_attention.c",
  find = "rows_tile(out, ldo, a, ars, aps, b, ldb, kn, i, e, 1);",
  replace = "(void)0;",
  guards = { "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "a loop blocked by rows whose remainder is never reached by the small shapes the tests use",
  why = "a line whose length is not a multiple of 4 leaves its last rows of o, dq, dk, dv unwritten",
}

mutant {
  name = "mixer_attention-products-drop-the-columns-past-the-vectors",
  file = "core/mixer_attention.c",
  find = "for (; e < d; e++)",
  replace = "for (; e < d && e < LANES; e++)",
  guards = { "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "a loop vectorised by whole vectors whose remainder is never reached by the small shapes the tests use",
  why = "heads wider than a vector lose their columns past it in o = p v and the backward's products",
}

mutant {
  name = "mixer_attention-softmax-unshifted",
  file = "core/mixer_attention.c",
  find = "x[u] = td_vec8_load(s + j + u * LANES) - mx;",
  replace = "x[u] = td_vec8_load(s + j + u * LANES);",
  guards = { "test_mixer_attention_softmax_stays_finite_for_large_scores" },
  designed_against = "exp of a raw score overflows to inf for large scores, and inf / inf is NaN",
  why = "takes exp of the score without subtracting the row maximum, where a row's exps go four vectors at a time",
}

mutant {
  name = "mixer_attention-softmax-rest-unshifted",
  file = "core/mixer_attention.c",
  find = "x[0] = td_vec8_load(s + j) - mx;",
  replace = "x[0] = td_vec8_load(s + j);",
  guards = { "test_mixer_attention_softmax_stays_finite_for_large_scores" },
  designed_against = "exp of a raw score overflows to inf for large scores, and inf / inf is NaN",
  why = "takes exp of the score without subtracting the row maximum, for a row's exps past its groups of four vectors",
}

mutant {
  name = "mixer_attention-softmax-pads-scores-with-zero",
  file = "core/mixer_attention.c",
  find = "-INFINITY};",
  replace = "0};",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "padding a row to the vector width must add nothing to its sums: exp of the pad must be 0",
  why = "every padded lane adds exp(0 - max) to the softmax's denominator",
}

mutant {
  name = "mixer_attention-unseen-keys-keep-stale-weights",
  file = "core/mixer_attention.c",
  find = "memset(w + n, 0, (tp - n) * sizeof *w);",
  replace = "(void)0;",
  guards = { "test_mixer_causal_attention_on_long_lines_keeps_the_future_out",
             "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "a buffer reused from call to call: what a pass does not write still holds the last pass's values",
  why = "a causal query's weights past its last group of keys keep whatever the workspace held, and o = p v reads them",
}

mutant {
  name = "mixer_attention-softmax-backward-padding-not-zeroed",
  file = "core/mixer_attention.c",
  find = "score_job sj = {j->m->o.causal, ds, dout.base, vt, p, dout.ld, tp, t, d, 0, 1, 0};",
  replace = "score_job sj = {j->m->o.causal, ds, dout.base, vt, p, dout.ld, tp, t, d, 0, 1, NAN};",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "padding a row to the vector width must add nothing to its sums",
  why = "the padding holds garbage: 0 x NaN in the sum of p dp poisons the row",
}

mutant {
  name = "mixer_attention-reference-softmax-backward-drops-the-mean",
  file = "core/mixer_attention.c",
  find = "di[k] = j->scale * pi[k] * (di[k] - pdp[i - i0]);",
  replace = "di[k] = j->scale * pi[k] * di[k], (void)pdp;",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "a softmax's Jacobian is diag(p) - p p^T: the second term is easy to forget",
  why = "back-propagates through the softmax as if it were an elementwise exp",
}

mutant {
  name = "mixer_attention-one-step-softmax-skipped",
  file = "core/mixer_attention.c",
  find = "*p = e / (0 + e);",
  replace = "*p = z, (void)e;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut for a special shape must compute what the general path computes there",
  why = "on one-step lines weighs the value by the raw score instead of its softmax (1)",
}

mutant {
  name = "mixer_attention-one-step-o-taken-as-v-whatever-p",
  file = "core/mixer_attention.c",
  find = "\t\to[i] = 0 + *p * v[i];",
  replace = "\t\to[i] = v[i];",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN: o is v only where p is 1",
  why = "on lines of one step o is v even where a NaN score made p NaN, so y and dWo stay finite",
}

mutant {
  name = "mixer_attention-one-step-ds-reads-v-where-the-value-path-left-none",
  file = "core/mixer_attention.c",
  find = "\t\t\t\t\t\t : j->w->ctx + l * c + h * d; /* the value path's */",
  replace = "\t\t\t\t\t\t : j->w->qkv + l * 3 * c + 2 * c + h * d;",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "the value path projects v into ctx; ds_share reads qkv's stale v, finds every dp finite and keeps the value path where a dp overflowed",
}

mutant {
  name = "mixer_attention-one-step-softmax-backward-skipped",
  file = "core/mixer_attention.c",
  find = "return j->scale * p * (ds - (0 + p * ds));",
  replace = "return ds + 0 * p;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut for a special shape must compute what the general path computes there",
  why = "on one-step lines sends dp itself to q and k, where the softmax over one key sends 0",
}

mutant {
  name = "mixer_attention-one-step-line-share-drops-the-last",
  file = "core/mixer_attention.c",
  find = "\t*l1 = j->lines * (w + 1) / j->workers;",
  replace = "\t*l1 = j->lines * (w + 1) / j->workers - 1;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "the end of a share off by one: a line no worker computes",
  why = "each worker's last line of one step never gets its weights or its o",
}

mutant {
  name = "mixer_attention-one-step-ds-never-checked",
  file = "core/mixer_attention.c",
  find = "\t\t\tunsettled |= attend_one_ds(j, l, h) != 0;",
  replace = "\t\t\t(void)attend_one_ds(j, l, h);",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN, backward",
  why = "a NaN dL/dy makes ds NaN, and dq and dk with it, but dWq and dWk are left as if they were 0",
}

mutant {
  name = "mixer_attention-one-step-bound-misses-a-nan-weight",
  file = "core/mixer_attention.c",
  find = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * all;",
  replace = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * (all < 0);",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a NaN that a maximum skips (NaN > m is false): a bound built from comparisons must check finiteness apart",
  why = "a NaN in Wq or Wk never enters the largest row sum, so the scores it makes NaN are taken as bounded and y stays finite",
}

mutant {
  name = "mixer_attention-one-step-bound-ignores-the-input",
  file = "core/mixer_attention.c",
  find = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * all;",
  replace = "\treturn (bias + sums + 0 * (double)xmax) * rounding_growth(m) + 0 * all;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "an overflow bound taken from the weights alone: finite inputs can still overflow a product",
  why = "a line whose finite x makes its scores overflow takes the value path: its y is finite where the softmax gives NaN",
}

mutant {
  name = "mixer_attention-one-step-bound-scaled-like-the-score",
  file = "core/mixer_attention.c",
  find = "\tconst double d = (double)(m->o.channels / m->o.heads), qk = d * q * k * rounding_growth(m);",
  replace = "\tconst double d = (double)(m->o.channels / m->o.heads), qk = d * q * k * rounding_growth(m) / sqrt(d);",
  finding = 23,
  guards = { "test_mixer_attention_one_step_bound_covers_the_unscaled_score_and_each_q" },
  why = "the score's sum of q_e k_e is bounded after its scale of 1 / sqrt(d), so a sum that overflows takes the value path and its NaN never reaches y",
}

mutant {
  name = "mixer_attention-one-step-value-path-without-its-bound",
  file = "core/mixer_attention.c",
  find = "\treturn q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX; /* each false for a NaN */",
  replace = "\treturn 1 || (q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX);",
  guards = { "test_mixer_attention_on_one_step_lines_is_its_value_path",
             "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN: the softmax over one key is 1 only when its score is finite",
  why = "lines of one step take v alone even when a score is inf or NaN, so the NaN never reaches y",
}

mutant {
  name = "mixer_attention-one-step-bound-without-q-and-k-alone",
  file = "core/mixer_attention.c",
  find = "\treturn q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX; /* each false for a NaN */",
  replace = "\treturn qk <= TD_REAL_MAX;",
  finding = 23,
  guards = { "test_mixer_attention_one_step_bound_covers_the_unscaled_score_and_each_q" },
  why = "with every k 0 the product bound is 0, so a q that overflows (inf times 0: a NaN score) takes the value path",
}

mutant {
  name = "mixer_attention-one-step-ds-bound-ignores-dy",
  file = "core/mixer_attention.c",
  find = "\tdout = (double)max_abs(NULL, dy, p * c) * cols * rounding_growth(m);",
  replace = "\tdout = 0 * (double)max_abs(NULL, dy, p * c) + cols * rounding_growth(m);",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "an overflow bound taken from the weights alone: finite inputs can still overflow a product",
  why = "a dL/dy large enough to overflow do and dp is not in the bound, so the NaN ds it makes never reaches dWq and dWk",
}

mutant {
  name = "mixer_attention-one-step-ds-bound-ignores-v",
  file = "core/mixer_attention.c",
  find = "\treturn (double)(c / m->o.heads) * dout * (double)w->vmax[0] * rounding_growth(m) <=",
  replace = "\treturn (double)(c / m->o.heads) * dout * (0 * (double)w->vmax[0] + 1) * rounding_growth(m) <=",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "an overflow bound on a product that leaves one factor out",
  why = "a v large enough to overflow dp with a finite do is not in the bound, so the NaN ds it makes never reaches dWq and dWk",
}

mutant {
  name = "mixer_attention-one-block-pairs-ignore-the-share",
  file = "core/mixer_attention.c",
  find = "\tfor (size_t b = w; b < j->pj.lines * nh; b += j->inner)",
  replace = "\tfor (size_t b = 0 * w; b < j->pj.lines * nh; b += j->inner)",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "work shared round-robin among workers, each of which starts at the first item instead of its own",
  why = "a single line's pairs shared between two threads: both take head 0 and none takes head 1, so the line's y is not its y in a block",
}

mutant {
  name = "mixer_attention-block-dctx-from-the-first-block",
  file = "core/mixer_attention.c",
  find = "\tif ((err = td_gemm(w->dctx + r0 * c, c, j->in + r0 * c, c,",
  replace = "\tif ((err = td_gemm(w->dctx + r0 * c, c, j->in, c,",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a block's product that reads the first block's rows instead of its own",
  why = "every block's dL/do is made from block 0's dL/dy",
}

mutant {
  name = "mixer_attention-block-parts-shared-by-every-block",
  file = "core/mixer_attention.c",
  find = "\tif ((err = block_grads(j, w->parts + b * m->n_params, r0, r1)))",
  replace = "\tif ((err = block_grads(j, w->parts + 0 * b * m->n_params, r0, r1)))",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a partial sum kept per block for a fixed order, written to a slot another block also writes",
  why = "every block writes its parameter gradients into block 0's part: only the last block's survive, beside the other parts' stale values",
}

mutant {
  name = "mixer_attention-block-share-stops-a-block-short",
  file = "core/mixer_attention.c",
  find = "\t     !err && b < j->blocks * w1 / j->pj.workers; b++) {",
  replace = "\t     !err && b + 1 < j->blocks * w1 / j->pj.workers; b++) {",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a worker's share of blocks whose bound leaves its last block to nobody",
  why = "each worker's last block of lines is never run: its y, dx and gradients are missing",
}

mutant {
  name = "mixer_attention-one-step-v-gradient-from-the-unwritten-dv",
  file = "core/mixer_attention.c",
  find = "\t\tfirst = 2, g = w.dctx, ld = c;",
  replace = "\t\tfirst = 2, g = w.dqkv + 2 * c;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "the value path's backward takes dWv, dbv and dx from dv, which it no longer writes, instead of from do",
}

mutant {
  name = "mixer_attention-one-step-q-and-k-not-computed-again",
  file = "core/mixer_attention.c",
  find = "\telse if ((err = project(m, &w, w.x, 0, p, 0, m->o.threads)) == 0)",
  replace = "\telse if ((err = 0) == 0)",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "after the value path's forward, the backward's whole path reads q and k the forward never wrote",
}
