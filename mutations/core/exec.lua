-- mutations/core/exec.lua: the mutants of core/exec.c, the pool an
-- executor's buffers are carved from (see exec.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "exec-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "exec-pool-pieces-unaligned",
  file = "core/exec.c",
  find = "\tif (rem)\n",
  replace = "\tif (0 && rem)\n",
  guards = { "test_a_pool_carves_the_pieces_it_counted" },
  designed_against = "a carved buffer that loses the alignment its allocator gave the whole",
  why = "pieces start wherever the last ended, off cudaMalloc's 256-byte alignment",
}

mutant {
  name = "exec-pool-size-wraps-unnoticed",
  file = "core/exec.c",
  find = "(size && count > (SIZE_MAX - TD_EXEC_REDZONE - at) / size)",
  replace = "0",
  guards = { "test_a_pool_whose_size_wraps_yields_nothing" },
  designed_against = "a size product that wraps, giving a short allocation that every piece then overruns",
  why = "a count times a size past SIZE_MAX comes back small and the pool is allocated too short",
}
