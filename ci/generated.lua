-- ci/generated.lua: operator mutants generated over every C file of the
-- core, the harness and the ledger, for the weekly job
-- (.github/workflows/tdaudit-weekly.yml):
--
--   tdaudit mutate --catalogue ci/generated.lua --schemata --sanitize --shard K/N
--
-- Kept out of tdaudit.lua's catalogues { }: there are about 20,000 of them,
-- far more than make audit has time for. A survivor that no test can
-- notice is declared here with its reason (docs/catalogues.md).

generate { files = { "core/*.c", "harness/*.c", "ledger/*.c" } }

-- core/plan.c
equivalent {
  id = "core/plan.c:plan_alloc:constant:1:2:0",
  reason = "both callers refuse fewer than one layer or repeat, and plan_alloc refuses no axes first: a plan never asks for 0 steps",
}
equivalent {
  id = "core/plan.c:td_plan_cyclic:constant:0:4:1",
  reason = "step 0 is axis 0 forward, which the zeroed steps already say",
}
equivalent {
  id = "core/plan.c:td_plan_paired:constant:0:1:1",
  reason = "step 0 is axis 0 forward, which the zeroed steps already say",
}
equivalent {
  id = "core/plan.c:td_plan_format:relational:<:1:<=",
  reason = "measures one name past the last: an empty slot, or with the most axes the bytes of the step count (at most 4096: 2 characters at most), below the narrowest column of 4",
}
equivalent {
  id = "core/plan.c:td_plan_format:relational:>:1:>=",
  reason = "a name as long as the column sets the column to the width it has",
}
equivalent {
  id = "core/plan.c:td_plan_format:constant:18:1:19",
  reason = "one character more a line than the longest line takes: the same table",
}
equivalent {
  id = "core/plan.c:td_plan_format:constant:1:2:0",
  reason = "the header is one character longer than a row, and every row at least one shorter than the size allows: the NUL still fits",
}
equivalent {
  id = "core/plan.c:td_plan_format:arithmetic:+:3:-",
  reason = "the header is one character longer than a row, and the first row, always forward, one shorter still: the NUL fits without the last one",
}
equivalent {
  id = "core/plan.c:td_plan_format:arithmetic:-:1:+",
  reason = "the buffer holds the whole table, so snprintf never reaches its bound, whichever bound it is given",
}

-- core/lattice.c
equivalent {
  id = "core/lattice.c:check_axes:relational:>:3:>=",
  reason = "at the boundary the lattice has 2^61 cells: refused either way with TD_ENOMEM, by this check or by the allocation of its mask",
}
equivalent {
  id = "core/lattice.c:td_lattice_new:constant:0:1:1",
  reason = "check_axes sets the count before anything reads it",
}

-- core/rng.c: arrays one element longer, whose extra element nothing reads or writes
equivalent { id = "core/rng.c:td_philox4x32_10:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:td_philox4x32_10:constant:2:2:3", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:block:constant:2:1:3", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:block:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:td_rng_uniform:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:td_rng_normal:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:td_rng_fill_uniform:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent { id = "core/rng.c:td_rng_fill_normal:constant:4:1:5", reason = "an array one element longer, whose extra element nothing reads" }
equivalent {
  id = "core/rng.c:td_rng_fill_uniform:arithmetic:/:1:*",
  reason = "the block is drawn again for every value instead of every fourth: the same values, only slower",
}
equivalent {
  id = "core/rng.c:td_rng_fill_normal:arithmetic:/:1:*",
  reason = "the block is drawn again for every value instead of every second: the same values, only slower",
}

-- core/family_scan.c
equivalent {
  id = "core/family_scan.c:scan_setup:constant:0:1:1",
  reason = "td_block_mix_ws sets the size before anything reads it",
}
equivalent {
  id = "core/family_scan.c:scan_setup:constant:0:2:1",
  reason = "each of the two buffers one value longer, and the workspace sized from the same length: only the layout spreads",
}
equivalent {
  id = "core/family_scan.c:scan_setup:constant:2:1:3",
  reason = "the workspace asks for one buffer more than it carves; nothing reads it",
}
equivalent {
  id = "core/family_scan.c:is_plain_copy:constant:1:1:0",
  reason = "the plain-copy path is never taken: the fold and unfold then copy, and the mixer sees the same values (a path for speed only)",
}

-- core/tensor.c
equivalent {
  id = "core/tensor.c:td_reals_alloc:relational:>:1:>=",
  reason = "n = most then asks aligned_alloc for about 2^64 - 64 bytes, more than any address space holds: NULL either way",
}
equivalent {
  id = "core/tensor.c:td_reals_alloc:arithmetic:-:2:+",
  reason = "rounds up to one more 64-byte line when the bytes are a whole number of lines: a zeroed tail past the n values that no caller reads; n is at most (SIZE_MAX - 64) / sizeof, so the sum cannot wrap",
}
equivalent {
  id = "core/tensor.c:td_reals_alloc:constant:1:2:0",
  reason = "rounds up to one more 64-byte line when the bytes are a whole number of lines: a zeroed tail past the n values that no caller reads; n is at most (SIZE_MAX - 64) / sizeof, so the sum cannot wrap",
}

-- core/axial.c
equivalent {
  id = "core/axial.c:td_axial_runs:constant:1:1:0",
  reason = "only n = 0 changes, to malloc(0), which glibc and the ASan allocator answer with a unique pointer that nothing indexes: 0 runs either way",
}
equivalent {
  id = "core/axial.c:td_axial_order:relational:>:2:>=",
  reason = "td_lattice_new refuses two axes of one name, and the names compared are of two different axes: strcmp is never 0",
}

-- core/family_flatten.c
equivalent {
  id = "core/family_flatten.c:flat_setup:constant:0:1:1",
  reason = "mix is written by td_block_mix_ws before it is read, and flat_setup returns before reading it when that fails",
}
equivalent {
  id = "core/family_flatten.c:scatter:relational:<:1:<=",
  reason = "with every cell present the runs cover every cell, so the extra clear is overwritten in full",
}
equivalent {
  id = "core/family_flatten.c:is_identity:constant:1:1:0",
  reason = "a sequence of n >= 1 cells has at least one run, so the direct path is never taken: gather, mix and scatter give the same values (a path for speed only)",
}

-- core/norm.c
equivalent {
  id = "core/norm.c:td_rmsnorm_forward:constant:0:1:1",
  reason = "sets the job's fused flag, which forward_rows never reads",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_forward:constant:0:2:1",
  reason = "sets the job's add flag, which forward_rows never reads",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_forward:removed-call:TD_REQUIRE:1:;",
  reason = "td_pool_ranges fails only when a range fails, and forward_rows always returns 0",
}
equivalent {
  id = "core/norm.c:backward_rows:relational:<:1:<=",
  reason = "the one extra block starts at r1, where b1 = r1: both of its row loops are empty",
}
equivalent {
  id = "core/norm.c:backward_rows:relational:<:2:<=",
  reason = "when r1 - b0 is BLOCK, r1 and b0 + BLOCK are the same row",
}
equivalent {
  id = "core/norm.c:gain_groups:relational:<:2:<=",
  reason = "when width - k0 is GROUP, both sides give n = GROUP",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:relational:<=:1:<",
  reason = "one thread then takes the pool path with one share, whose gain_groups sums each channel over the rows in row order from 0 with the fused loop's own expression (no multiply-add: -ffp-contract=off): the same dx and dgain bits; only the scratch workspace is left unwritten",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:constant:1:1:0",
  reason = "one thread then takes the pool path with one share, whose gain_groups sums each channel over the rows in row order from 0 with the fused loop's own expression (no multiply-add: -ffp-contract=off): the same dx and dgain bits; only the scratch workspace is left unwritten",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:removed-call:TD_REQUIRE:1:;",
  reason = "backward_rows always returns 0",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:removed-call:TD_REQUIRE:2:;",
  reason = "td_pool_ranges fails only when a range fails, and backward_rows always returns 0",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:removed-call:TD_REQUIRE:3:;",
  reason = "td_pool_ranges fails only when a range fails, and gain_groups always returns 0",
}
equivalent {
  id = "core/norm.c:td_rmsnorm_backward:constant:1:2:0",
  reason = "adds a group only when width is a multiple of 16, and that group starts at width with n = 0 channels: it sums nothing",
}

-- core/adamw.c
equivalent {
  id = "core/adamw.c:td_adamw_lr:relational:>:1:>=",
  reason = "the clamp sets p to 1 where p is already 1",
}
equivalent {
  id = "core/adamw.c:check_opts:constant:1:1:0",
  reason = "0 <= warmup < total_steps, checked on the same line with the same message, already refuses every total_steps below 1",
}
equivalent {
  id = "core/adamw.c:td_adamw_new:constant:2:2:3",
  reason = "a third slab of n values nothing reads: m and v are the first two, set from the slab's start and n",
}
equivalent {
  id = "core/adamw.c:td_adamw_step:relational:>:2:>=",
  reason = "at norm == clip the scale clip / norm is exactly 1, the scale without clipping",
}
equivalent {
  id = "core/adamw.c:td_adamw_export:constant:8:1:9",
  reason = "the ninth byte is the tag's NUL, overwritten at once by the real size at offset 8",
}
equivalent {
  id = "core/adamw.c:put_reals:constant:0:2:1",
  reason = "memcpy overwrites the low sizeof(td_real) bytes, the 1 among them, on the little-endian hosts the function is written for, and only those bytes are stored",
}
equivalent {
  id = "core/adamw.c:td_adamw_import:constant:0:1:1",
  reason = "real is read from the buffer before it is used",
}
equivalent {
  id = "core/adamw.c:td_adamw_import:constant:0:2:1",
  reason = "n is read from the buffer before it is used",
}
equivalent {
  id = "core/adamw.c:count_skip:relational:<:1:<=",
  reason = "in the float build a norm that is not finite has an element that is not finite (float squares cannot overflow a double sum), which stops the loop before n",
}
equivalent {
  id = "core/adamw.c:count_skip:relational:<:2:<=",
  reason = "i < n whenever the float build gets here (see the loop's entry): i == n needs an overflowed sum of finite squares",
}
equivalent {
  id = "core/adamw.c:count_skip:relational:<:3:<=",
  reason = "i < n whenever the float build gets here (see the loop's entry): i == n needs an overflowed sum of finite squares",
}

-- core/mixer_rnn.c
equivalent {
  id = "core/mixer_rnn.c:block_grads:constant:1:1:0",
  reason = "the gru has no one_step_weights; on the lstm's lines of one step f is set to 0 and s_{-1} is 0, so f's column of dg is a signed 0, whose dW rows td_mixer_block_weights sums to the 0 one_step_weights writes, and the other rows are td_gemm sums over the same rows in the same order (gemm.c: an element's order depends on k alone): the same bits (checked on 3, 8 and 40 channels, 5, 100 and 3072 lines, both directions). Only an x or dy that is not finite differs: f's column then holds NaN, which td_mixer_block_weights puts in dW's f rows, in a gradient with NaN or infinity in i's, g's and o's rows either way (mixer_lstm.c's file comment)",
}
equivalent {
  id = "core/mixer_rnn.c:block_grads:relational:<:2:<=",
  reason = "only the lstm takes this branch (dgh is dgx): c == gh reads one value past a row's 4H, inside the workspace (the row's padding, the next row of dg, or the first value of hp, which follows dg), into db[gh], which is dc[0] (c follows b in the part), and the memcpy of db into dc two lines on overwrites it",
}
equivalent {
  id = "core/mixer_rnn.c:backward_block:relational:>:1:>=",
  reason = "the loop only ever leaves by the break at s == 0, before its condition could see s == 0 (length >= 1: td_mixer_backward refuses empty lines), so its condition, > 0 or an always true >= 0 of a size_t, holds every time it is tested",
}
-- core/xtrain.c
equivalent {
  id = "core/xtrain.c:build:constant:2:1:3",
  reason = "a third table of 1 - beta^t nothing reads: the two are filled and uploaded from the buffer's start and steps + 1",
}
equivalent {
  id = "core/xtrain.c:take_buffers:constant:6:1:7",
  reason = "a seventh sum nothing reads: the training sums are acc[0..2], the evaluation's acc[3..5]",
}
equivalent {
  id = "core/xtrain.c:build:constant:0:3:1",
  reason = "every block of a model holds the model's lattice: block 1's mask is block 0's",
}
equivalent {
  id = "core/xtrain.c:build:constant:0:4:1",
  reason = "bc1[0] and bc2[0] are never read: a step reads the tables at t after t++, so t >= 1 (calloc's zero is left there)",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_new:constant:0:1:1",
  reason = "every block of a model holds the model's lattice: block 1's cell count is block 0's",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_new:arithmetic:-:1:+",
  reason = "more norm parts of scratch than there are parts: each executor counts the parts itself from n and norm_part, and the scratch is only longer",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_new:constant:1:2:0",
  reason = "more norm parts of scratch than there are parts: each executor counts the parts itself from n and norm_part, and the scratch is only longer",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_new:arithmetic:/:1:*",
  reason = "more norm parts of scratch than there are parts: each executor counts the parts itself from n and norm_part, and the scratch is only longer",
}
equivalent {
  id = "core/xtrain.c:upload_batch:constant:1:1:0",
  reason = "one stage for every batch instead of two: a stage is reused only once its upload is done (wait_mark), so the bytes are the same; on the GPU the host only runs less far ahead",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_batch:constant:1:1:0",
  reason = "batch 0 then reaches td_xmodel_forward, which refuses it with the same code and words after an upload of 0 bytes",
}
equivalent {
  id = "core/xtrain.c:count_skips:relational:<:1:<=",
  reason = "at unread == TD_OPS_SKIPS_KEPT both sides of the choice are TD_OPS_SKIPS_KEPT",
}
equivalent {
  id = "core/xtrain.c:count_skips:arithmetic:+:1:-",
  reason = "the reasons past the first TD_OPS_SKIPS_KEPT are past the four a counter keeps: only their number of distinct texts shows (why_more), and they stay distinct by their skip number",
}
equivalent {
  id = "core/xtrain.c:count_skips:constant:1:1:0",
  reason = "the reasons past the first TD_OPS_SKIPS_KEPT are past the four a counter keeps: only their number of distinct texts shows (why_more), and they stay distinct by their skip number",
}
equivalent {
  id = "core/xtrain.c:count_skips:arithmetic:+:2:-",
  reason = "the reasons past the first TD_OPS_SKIPS_KEPT are past the four a counter keeps: only their number of distinct texts shows (why_more), and they stay distinct by their skip number",
}
equivalent {
  id = "core/xtrain.c:count_skips:constant:1:2:0",
  reason = "the reasons past the first TD_OPS_SKIPS_KEPT are past the four a counter keeps: only their number of distinct texts shows (why_more), and they stay distinct by their skip number",
}
equivalent {
  id = "core/xtrain.c:td_xtrain_store:constant:2:1:3",
  reason = "a third slab of n moments nothing reads: m and v are downloaded to the first two",
}
-- core/xmodel.c
equivalent {
  id = "core/xmodel.c:group_at:relational:<:1:<=",
  reason = "past the last group td_model_group answers a group named by the empty string, which no name looked up matches: the loop goes on to SIZE_MAX as before",
}
equivalent {
  id = "core/xmodel.c:build_layer:removed-call:assert:1:;",
  reason = "an assert that only guards a constant: check_model admits the LRU, the GRU and the LSTM (4 tensors) and the CLRU (7 = N_TENSORS) only, so i < N_TENSORS always holds",
}
equivalent {
  id = "core/xmodel.c:build_layer:relational:<:2:<=",
  reason = "an assert that only guards a constant, made weaker: i < td_mixer_n_tensors <= N_TENSORS for every mixer check_model admits, so it never fires either way",
}
equivalent {
  id = "core/xmodel.c:build_layer:relational:<:3:<=",
  reason = "the extra axis a == rank has td_lattice_size 0 (out of range), never more than most >= 1",
}
equivalent {
  id = "core/xmodel.c:build_layer:relational:>:1:>=",
  reason = "at size == most both sides of the choice are most",
}
equivalent {
  id = "core/xmodel.c:build_layer:relational:>:2:>=",
  reason = "at chunk == SIZE_MAX / most the chunk is SIZE_MAX - most + 1 or more instead of SIZE_MAX: both exceed any count of lines a model holds (max_batch n_cells, memory-bound), so each layer runs in one call either way",
}
equivalent {
  id = "core/xmodel.c:take_buffers:constant:2:1:3",
  reason = "maps scratch longer than used: build_layer places layer l's fold and unfold at l * 2 * n_cells, inside the first 2 L n_cells",
}
equivalent {
  id = "core/xmodel.c:td_xmodel_new_pooled:constant:2:1:3",
  reason = "la, lh and lg longer than used: sw only sizes them; the CLRU's code places its states with its own 2 * n",
}
equivalent {
  id = "core/xmodel.c:lru_forward:relational:<:2:<=",
  reason = "at lines - at == chunk both sides of the choice are chunk",
}
equivalent {
  id = "core/xmodel.c:lru_forward:relational:>:1:>=",
  reason = "at chunk == lines - at the call is the last either way: the break leaves where at += chunk == lines would end the loop",
}
equivalent {
  id = "core/xmodel.c:lru_forward:arithmetic:-:3:+",
  reason = "at at == 0 lines + at is lines - at; past it chunk <= lines, so the last short call is followed by at += chunk > lines (no overflow), which ends the loop as the break did, and chunk > lines + at only where chunk > lines - at",
}
equivalent {
  id = "core/xmodel.c:lru_backward:relational:<:2:<=",
  reason = "at lines - at == chunk both sides of the choice are chunk",
}
equivalent {
  id = "core/xmodel.c:lru_backward:relational:>:1:>=",
  reason = "at chunk == lines - at the call is the last either way: the break leaves where at += chunk == lines would end the loop",
}
equivalent {
  id = "core/xmodel.c:lru_backward:arithmetic:-:3:+",
  reason = "at at == 0 lines + at is lines - at; past it chunk <= lines, so the last short call is followed by at += chunk > lines (no overflow), which ends the loop as the break did, and chunk > lines + at only where chunk > lines - at",
}
equivalent {
  id = "core/xmodel.c:clru_forward:relational:<:2:<=",
  reason = "at lines - at == chunk both sides of the choice are chunk",
}
equivalent {
  id = "core/xmodel.c:clru_forward:relational:>:1:>=",
  reason = "at chunk == lines - at the call is the last either way: the break leaves where at += chunk == lines would end the loop",
}
equivalent {
  id = "core/xmodel.c:clru_forward:arithmetic:-:3:+",
  reason = "at at == 0 lines + at is lines - at; past it chunk <= lines, so the last short call is followed by at += chunk > lines (no overflow), which ends the loop as the break did, and chunk > lines + at only where chunk > lines - at",
}
equivalent {
  id = "core/xmodel.c:clru_backward:relational:<:2:<=",
  reason = "at lines - at == chunk both sides of the choice are chunk",
}
equivalent {
  id = "core/xmodel.c:clru_backward:relational:>:1:>=",
  reason = "at chunk == lines - at the call is the last either way: the break leaves where at += chunk == lines would end the loop",
}
equivalent {
  id = "core/xmodel.c:clru_backward:arithmetic:-:3:+",
  reason = "at at == 0 lines + at is lines - at; past it chunk <= lines, so the last short call is followed by at += chunk > lines (no overflow), which ends the loop as the break did, and chunk > lines + at only where chunk > lines - at",
}
equivalent {
  id = "core/xmodel.c:lru_backward:arithmetic:*:11:/",
  reason = "lg is the adjoints' scratch: each call writes its chunk's adjoints (gemm with beta 0) before the scan, the gradients and the products read them, nothing reads them after; the smaller offset keeps the chunk inside lg [R][S]",
}
equivalent {
  id = "core/xmodel.c:lru_backward:arithmetic:*:12:/",
  reason = "lg is the adjoints' scratch: each call writes its chunk's adjoints (gemm with beta 0) before the scan, the gradients and the products read them, nothing reads them after; the smaller offset keeps the chunk inside lg [R][S]",
}
equivalent {
  id = "core/xmodel.c:clru_backward:arithmetic:*:14:/",
  reason = "lg is the adjoints' scratch: each call writes its chunk's adjoints (gemm with beta 0) before the scan, the gradients and the products read them, nothing reads them after; the smaller offset keeps the chunk inside lg [R][S]",
}
equivalent {
  id = "core/xmodel.c:clru_backward:arithmetic:*:15:/",
  reason = "lg is the adjoints' scratch: each call writes its chunk's adjoints (gemm with beta 0) before the scan, the gradients and the products read them, nothing reads them after; the smaller offset keeps the chunk inside lg [R][S]",
}
equivalent {
  id = "core/xmodel.c:clru_backward:arithmetic:*:16:/",
  reason = "lg is the adjoints' scratch: each call writes its chunk's adjoints (gemm with beta 0) before the scan, the gradients and the products read them, nothing reads them after; the smaller offset keeps the chunk inside lg [R][S]",
}
equivalent {
  id = "core/xmodel.c:layer_forward:arithmetic:*:5:/",
  reason = "inv2 is scratch: ffn_backward recomputes layer l's norm (and its inv2) before rmsnorm_backward reads it, and nothing else reads it; l / rows <= l rows keeps it inside inv2 [L][R]",
}
equivalent {
  id = "core/xmodel.c:ffn_backward:arithmetic:*:6:/",
  reason = "inv2 is scratch: ffn_backward recomputes layer l's norm (and its inv2) before rmsnorm_backward reads it, and nothing else reads it; l / rows <= l rows keeps it inside inv2 [L][R]",
}
-- core/exec_host.c
equivalent {
  id = "core/exec_host.c:host_alloc:constant:1:1:0",
  reason = "on glibc (and under ASan) calloc(0, 1) returns a unique pointer that is not NULL, as calloc(1, 1) does, and a buffer of 0 bytes is never read or written; only a C library whose calloc(0) may answer NULL would refuse it",
}
equivalent {
  id = "core/exec_host.c:host_conv_backward:relational:<:6:<=",
  reason = "at lines - at == chunk both sides of the choice are chunk",
}
equivalent {
  id = "core/exec_host.c:host_xent:arithmetic:*:1:/",
  reason = "present is scratch (exec.h): example b's flags are written and read within its own td_op_xent_example call, one example after another on the host, and nothing reads them after; b / n_cells <= b n_cells keeps them inside present [B][C]",
}
equivalent {
  id = "core/exec_host.c:host_opt_step:relational:<:2:<=",
  reason = "at n - i0 == len both sides of the choice are n (= i0 + len)",
}

-- core/mixer_conv.c
equivalent {
  id = "core/mixer_conv.c:conv_setup:constant:0:4:1",
  reason = "the bias's rule is TD_INIT_ZERO, whose tensor td_mixer_init clears with memset: it reads a and b only for TD_INIT_NORMAL and TD_INIT_UNIFORM",
}
equivalent {
  id = "core/mixer_conv.c:conv_setup:constant:0:5:1",
  reason = "the bias's rule is TD_INIT_ZERO, whose tensor td_mixer_init clears with memset: it reads a and b only for TD_INIT_NORMAL and TD_INIT_UNIFORM",
}
equivalent {
  id = "core/mixer_conv.c:conv_ws_size:constant:0:1:1",
  reason = "one value more past the sums' [K + 1][C], at the end of the workspace, which nothing writes or reads",
}
equivalent {
  id = "core/mixer_conv.c:dx_taps:constant:1:2:0",
  reason = "min(a + 1, taps) written as a < taps ? a + 1 : taps: for integers a < taps is a + 1 <= taps, and at a + 1 == taps both sides of the choice are taps",
}
equivalent {
  id = "core/mixer_conv.c:dx_taps:relational:<:1:<=",
  reason = "at room / d + 1 == taps both sides of the choice are taps",
}
equivalent {
  id = "core/mixer_conv.c:dx_lines:arithmetic:+:1:-",
  reason = "k - VECS LANES wraps at k = 0, so the blocks of four vectors are skipped and the one-vector loop takes their channels: each lane's sum is the same terms in the same order (dx_taps's), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}
equivalent {
  id = "core/mixer_conv.c:dx_lines:relational:<=:1:<",
  reason = "a last block of four vectors that ends at c is taken by the one-vector loop instead: each lane's sum is the same terms in the same order (dx_taps's), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}
equivalent {
  id = "core/mixer_conv.c:dx_lines:relational:<=:2:<",
  reason = "a last vector that ends at c is taken by the channel-alone loop instead: each channel's sum is the same terms in the same order (dx_taps's), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}
equivalent {
  id = "core/mixer_conv.c:line_row:relational:>=:1:>",
  reason = "at off == len the row has n = 0 positions: row_vectors loads and stores its sums unchanged and the channel-alone loop adds nothing, the same as returning",
}
equivalent {
  id = "core/mixer_conv.c:line_row:arithmetic:+:5:-",
  reason = "k - VECS LANES wraps at k = 0, so the blocks of four vectors are skipped and the one-vector loop takes their channels: each lane's sum is the same terms in the same order (the line's positions ascending), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}
equivalent {
  id = "core/mixer_conv.c:line_row:relational:<=:1:<",
  reason = "a last block of four vectors that ends at c is taken by the one-vector loop instead: each lane's sum is the same terms in the same order (the line's positions ascending), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}
equivalent {
  id = "core/mixer_conv.c:line_row:relational:<=:2:<",
  reason = "a last vector that ends at c is taken by the channel-alone loop instead: each channel's sum is the same terms in the same order (the line's positions ascending), unfused (-ffp-contract=off), so the same bits (a path for speed only)",
}

-- core/block.c
equivalent {
  id = "core/block.c:build:constant:0:2:1",
  reason = "sizeof b->group[1].name is sizeof b->group[0].name: the same char[48], and sizeof evaluates nothing",
}
equivalent {
  id = "core/block.c:build:constant:1:2:0",
  reason = "only ws_len = 0 changes, to calloc(0), which glibc and the ASan allocator answer with a unique pointer that is not NULL and that nothing indexes: no family asks for 0 values, and none would read them",
}
equivalent {
  id = "core/block.c:td_block_free:constant:0:1:1",
  reason = "owned[0] is never set: group 0 is always the mixer's, whose slabs td_mixer_free frees (or the model's, after td_block_use_slabs), so skipping it frees the same",
}
equivalent {
  id = "core/block.c:td_block_new_group:constant:1:1:0",
  reason = "only count = 0 changes, to calloc(0), which glibc and the ASan allocator answer with a unique pointer that is not NULL and that nothing indexes: 0 values either way",
}
equivalent {
  id = "core/block.c:td_block_new_group:constant:1:2:0",
  reason = "only count = 0 changes, to calloc(0), which glibc and the ASan allocator answer with a unique pointer that is not NULL and that nothing indexes: 0 values either way",
}
equivalent {
  id = "core/block.c:select_rows:constant:1:1:0",
  reason = "the run's first comparison is then of cell i with itself, which always holds, so j reaches i + 1 one test later: the same runs",
}
equivalent {
  id = "core/block.c:td_block_fold_select:removed-call:TD_REQUIRE:1:;",
  reason = "td_pool_ranges fails only when a range fails, and fold_examples always returns 0",
}
equivalent {
  id = "core/block.c:td_block_unfold_select:removed-call:TD_REQUIRE:1:;",
  reason = "td_pool_ranges fails only when a range fails, and fold_examples always returns 0",
}
equivalent {
  id = "core/block.c:call_lines:relational:<:1:<=",
  reason = "the one axis more it reads is past the rank, whose size td_lattice_size gives as 0, never more than most",
}
equivalent {
  id = "core/block.c:call_lines:relational:>:1:>=",
  reason = "an axis as long as the longest so far sets most to the value it has",
}
equivalent {
  id = "core/block.c:call_lines:relational:>:2:>=",
  reason = "at chunk == SIZE_MAX / most, chunk x most is more than SIZE_MAX - most lines, a count no block reaches (its workspace of lines x length x width values would overflow a size and be refused first): both make every call hold every line there is",
}
equivalent {
  id = "core/block.c:chunk_ws:relational:<:1:<=",
  reason = "at lines == per both sides of the choice are per",
}
equivalent {
  id = "core/block.c:td_block_mix_ws:constant:0:2:1",
  reason = "one value more in the mixer's part of the workspace, past the last chunk's, which no mixer call is given: the family's later parts start one value on, in a workspace one value longer, and hold the same values",
}
equivalent {
  id = "core/block.c:mix:relational:<:2:<=",
  reason = "at lines - at == call both sides of the choice are call",
}

-- core/exec.c
equivalent {
  id = "core/exec.c:td_exec_take:relational:>:1:>=",
  reason = "at == SIZE_MAX - (TD_EXEC_ALIGN - rem) both sides give SIZE_MAX (and no such at has the remainder rem: SIZE_MAX is one short of a multiple of the alignment)",
}

-- core/pool.c: the spins, which only save a sleep and a wake-up; how long they last is speed, never a result
equivalent {
  id = "core/pool.c:pause_once:removed-call:__builtin_ia32_pause:1:;",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_while_equal:constant:0:1:1",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_while_equal:relational:<:1:<=",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_while_equal:removed-call:pause_once:1:;",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_until_zero:constant:0:1:1",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_until_zero:relational:<:1:<=",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_until_zero:removed-call:pause_once:1:;",
  reason = "one pause more or fewer, or none, in a spin that a wait under the lock follows: speed only",
}
equivalent {
  id = "core/pool.c:spin_while_equal:relational:==:1:!=",
  reason = "the worker does not spin before it sleeps (gen has not changed), and the wait under the lock that follows sees every job: speed only",
}
equivalent {
  id = "core/pool.c:worker_main:negated-condition:if:1:!",
  reason = "the worker does not spin before it sleeps, and the wait under the lock that follows sees every job: speed only",
}
equivalent {
  id = "core/pool.c:worker_main:relational:==:1:!=",
  reason = "the worker does not spin before it sleeps, and the wait under the lock that follows sees every job: speed only",
}
equivalent {
  id = "core/pool.c:worker_main:removed-call:spin_while_equal:1:;",
  reason = "the worker drops the lock and takes it again without spinning, and the wait under the lock that follows sees every job: speed only",
}
equivalent {
  id = "core/pool.c:spin_until_zero:relational:>:1:>=",
  reason = "pending is unsigned: the caller spins its full 0.1 ms every call, then waits under the lock as before: speed only",
}
equivalent {
  id = "core/pool.c:spin_until_zero:constant:0:2:1",
  reason = "the caller stops spinning with one share left, and the wait under the lock that follows waits for it: speed only",
}
equivalent {
  id = "core/pool.c:pool_after_fork:removed-call:atomic_store:1:;",
  reason = "td_pool_run stores pending before anything reads it, and the child has no worker to read it",
}
equivalent {
  id = "core/pool.c:pool_after_fork:constant:0:2:1",
  reason = "td_pool_run stores pending before anything reads it, and the child has no worker to read it",
}
equivalent {
  id = "core/pool.c:grow:removed-call:pthread_detach:1:;",
  reason = "workers never return, so what detaching releases at a thread's end is never due",
}
equivalent {
  id = "core/pool.c:td_pool_run:relational:<=:1:<",
  reason = "a call of one share takes the workers' path: it posts a job of one share, which no worker takes, and runs share 0 in the caller, as the short path does: speed only",
}
equivalent {
  id = "core/pool.c:td_pool_run:constant:1:1:0",
  reason = "a call of one share takes the workers' path: it posts a job of one share, which no worker takes, and runs share 0 in the caller, as the short path does: speed only",
}
equivalent {
  id = "core/pool.c:td_pool_run:relational:<:2:<=",
  reason = "at started == n - 1 both sides of the choice are n - 1",
}
equivalent {
  id = "core/pool.c:td_pool_run:constant:1:2:0",
  reason = "started < n is started <= n - 1: both forms take the smaller of started and n - 1",
}
equivalent {
  id = "core/pool.c:td_pool_run:removed-call:spin_until_zero:1:;",
  reason = "the caller waits under the lock at once, without spinning first, for the same pending count: speed only",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:relational:>:1:>=",
  reason = "at threads == 1 both sides of the choice are 1",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:constant:1:1:0",
  reason = "at threads == 1 both sides of the choice are 1",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:constant:1:2:0",
  reason = "fewer than 2 threads give 0 shares instead of 1, which the shares <= 1 check takes the same way: fn(arg, 0, n)",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:constant:0:1:1",
  reason = "err[0] starts at 1 but share 0 always writes it before it is read",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:relational:>:2:>=",
  reason = "at shares == n the bound sets shares to the value it has",
}
equivalent {
  id = "core/pool.c:td_pool_ranges:relational:>:3:>=",
  reason = "at shares == TD_POOL_MAX the bound sets shares to the value it has",
}

-- core/jsonl.c
equivalent {
  id = "core/jsonl.c:td_jsonl_num:logical:&&:1:||",
  reason = "td_counter_addf can fail here only with TD_ESTATE (the name is fixed and plain, the reason never empty), so keeping a later failure's code keeps the same code, and a success never clears a failure (err || !j->err is false then)",
}

-- core/counters.c
equivalent {
  id = "core/counters.c:find_slot:constant:2:1:3",
  reason = "a third of the way in is still inside [lo, hi): the search probes other slots and finds the same one",
}
equivalent {
  id = "core/counters.c:find_slot:relational:<:2:<=",
  reason = "cmp == 0 has returned already",
}
equivalent {
  id = "core/counters.c:find_slot:constant:0:3:1",
  reason = "cmp == 0 has returned already, so cmp < 1 is cmp < 0",
}
equivalent {
  id = "core/counters.c:td_counter_addf:constant:2:1:3",
  reason = "one byte more in a buffer already one past the longest kept reason: a longer reason still reaches copy_why, which cuts it the same",
}
equivalent {
  id = "core/counters.c:td_counter_addf:removed-call:va_end:1:;",
  reason = "GCC's va_end does nothing on the targets it builds for, and ap is not used after vsnprintf",
}
equivalent {
  id = "core/counters.c:line_one:constant:32:1:33",
  reason = "one byte more in a buffer of 32 whose longest text, the count of a 64-bit counter in either format, takes 29 with its NUL",
}
