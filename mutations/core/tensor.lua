-- mutations/core/tensor.lua: the mutants of core/tensor.c, owned, contiguous
-- td_real buffers (see tensor.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "tensor-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "tensor-zero-dimension-accepted",
  file = "core/tensor.c",
  find = "if (shape[i] == 0)",
  replace = "if (0)",
  guards = { "test_bad_tensor_shapes_are_refused" },
  designed_against = "an empty tensor fails far from its cause",
  why = "accepts a dimension of 0",
}

mutant {
  name = "tensor-strides-column-major",
  file = "core/tensor.c",
  find = "stride *= shape[i];",
  replace = "stride *= 1;",
  guards = { "test_strides_are_row_major_and_contiguous" },
  designed_against = "kernels index with strides and trust them",
  why = "hands out unit strides on every axis",
}

mutant {
  name = "tensor-copy-does-not-copy",
  file = "core/tensor.c",
  find = "memcpy((*out)->data, src->data, src->numel * sizeof *src->data);",
  replace = "",
  guards = { "test_a_copy_owns_its_values" },
  designed_against = "a copy must carry the values it copies",
  why = "returns a zero tensor of the right shape",
}

mutant {
  name = "tensor-reals-alloc-on-16-byte-lines",
  file = "core/tensor.c",
  find = "\tconst size_t line = 64, most = (SIZE_MAX - line) / sizeof(td_real);",
  replace = "\tconst size_t line = 16, most = (SIZE_MAX - line) / sizeof(td_real);",
  guards = { "test_reals_are_cache_line_aligned_and_zero" },
  designed_against = "a workspace whose 32-byte vectors straddle cache lines: the same bits, silently slower",
  why = "the workspaces start where malloc would put them, 16 bytes past a line",
}

mutant {
  name = "tensor-reals-alloc-hands-out-old-bits",
  file = "core/tensor.c",
  find = "memset(p, 0, bytes);",
  replace = "(void)0;",
  guards = { "test_reals_are_cache_line_aligned_and_zero" },
  designed_against = "an allocation that replaced calloc and dropped its zero fill",
  why = "a workspace starts with whatever the heap held, where its callers' NaN checks expect zeros",
}
