-- mutations/core/rng.lua: the mutants of core/rng.c, Philox4x32-10 and the
-- draws built on it (see rng.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "rng-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "rng-philox-round-lanes-swapped",
  file = "core/rng.c",
  find = "c[1] = lo1;\n\tc[2] = hi0 ^ c[3] ^ k[1];\n\tc[3] = lo0;",
  replace = "c[1] = lo0;\n\tc[2] = hi0 ^ c[3] ^ k[1];\n\tc[3] = lo1;",
  guards = { "test_philox_matches_the_published_known_answer_vectors" },
  designed_against = "a Philox that is not Philox breaks every published statistical guarantee",
  why = "swaps the low product halves between the two lanes",
}

mutant {
  name = "rng-philox-wrong-key-bump",
  file = "core/rng.c",
  find = "k[1] += PHILOX_W1;",
  replace = "k[1] += PHILOX_W0;",
  guards = { "test_philox_matches_the_published_known_answer_vectors" },
  designed_against = "a Philox that is not Philox breaks every published statistical guarantee",
  why = "bumps the second key word with the wrong constant",
}

mutant {
  name = "rng-seed-high-word-ignored",
  file = "core/rng.c",
  find = "(uint32_t)(seed >> 32)}",
  replace = "0}",
  guards = { "test_different_seeds_streams_and_indices_give_different_draws" },
  finding = 1,
  why = "drops the seed's high word from the key",
}

mutant {
  name = "rng-stream-ignored",
  file = "core/rng.c",
  find = "(uint32_t)stream,",
  replace = "0,",
  guards = { "test_different_seeds_streams_and_indices_give_different_draws" },
  designed_against = "two parameter tensors must not draw the same numbers",
  why = "leaves the stream's low word out of the counter",
}

mutant {
  name = "rng-unit-interval-closed",
  file = "core/rng.c",
  find = "return ((double)x + 0.5) * (1.0 / 4294967296.0);",
  replace = "return (double)x * (1.0 / 4294967296.0);",
  guards = { "test_uniforms_lie_in_the_open_interval_with_the_right_moments" },
  designed_against = "a uniform of exactly 0 makes the normal draw take log(0)",
  why = "lets the uniform draw reach 0",
}

mutant {
  name = "rng-block-counter-per-element",
  file = "core/rng.c",
  find = "block(seed, stream, index / 4, r);",
  replace = "block(seed, stream, index, r);",
  guards = { "test_a_fill_matches_single_draws_at_any_offset" },
  designed_against = "single draws and block fills must agree, or CPU and GPU init differ",
  why = "counts blocks per element in single draws but per four in fills",
}
