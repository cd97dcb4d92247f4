-- tdaudit.lua: how tdaudit builds and tests this repository (dogfooding).
-- The syntax is documented in docs/tdaudit-lua.md and harness/project.h.

-- Scratch trees build without CUDA: no mutant edits kernels/*.cu yet, and
-- nvcc would make every cold scratch build several times slower.
build { "make", "-j2", "CUDA=0", "all" }

runner {
  list = { "build/tests/tdtest", "--list" },
  run  = { "build/tests/tdtest", "--only", "{test}" },
  -- cmocka's own word for a failure: it also catches a mutant of the
  -- runner's exit path, which would otherwise hide its own failures.
  fail_text = "[  FAILED  ]",
}

-- Sources are what `tdaudit reproduce` reverts; a changed file that is
-- neither a source nor a test (docs, fixtures' data) is kept as in the fix.
sources    { "base/*.c", "base/*.h", "core/*.c", "core/*.h", "kernels/*.c", "kernels/*.h", "kernels/*.cu",
             "harness/*.c", "harness/*.h", "ledger/*.c", "ledger/*.h", "bench/*.c",
             "bench/*.h", "ci/gpu-check.sh", "ci/device-check", "ci/weekly", "ci/generated.lua" }
-- Catalogues count as tests: reverting one to its parent's version never
-- re-introduces a bug in the code, so `tdaudit reproduce` must not revert it.
tests      { "tests/*.c", "tests/*.h", "Makefile", "mutations/*.lua", "mutations/*/*.lua" }
catalogues { "mutations/*.lua", "mutations/*/*.lua" }
ledger     ".tdaudit/ledger.db"
timeout    { factor = 20, floor = 10, build = 900 }

-- tdaudit mutate --sanitize (the weekly run of ci/generated.lua): the
-- Makefile's asan build (AddressSanitizer, UBSan, leaks) into build/, where
-- the runner finds tdtest. Chosen only by name.
variant { name = "sanitize", build = { "make", "-j2", "CUDA=0", "VARIANT=asan", "BUILD=build", "all" } }

-- tdaudit audit: the audit scripts, and how to run tdtrain for them
-- (docs/audit.md). The scripts know tdtrain only through this block.
audits { "audits/*.lua" }
trainer {
  config  = "configs/audit-tiny.conf",
  steps   = 24,
  timeout = 120,
  init    = { "{root}/build/tdtrain", "hash", "--config", "{config}" },
  train   = { "{root}/build/tdtrain", "train", "--config", "{config}", "--out", "{dir}" },
  stop    = { "{root}/build/tdtrain", "train", "--config", "{config}", "--out", "{dir}",
              "--stop-after", "{steps}" },
  resume  = { "{root}/build/tdtrain", "train", "--config", "{config}", "--out", "{dir}",
              "--resume", "{from}/checkpoint.bin" },
  eval    = { "{root}/build/tdtrain", "eval", "--checkpoint", "{dir}/checkpoint.bin" },
  set     = { "--set", "{key}={value}" },
  -- init prints the hash alone; train prints "weights after step N: fnv1a64 H"
  hash    = { line = "fnv1a64 (%x+)" },
  log     = "{dir}/log.jsonl",
  seed    = { key = "seed", other = "8" },
  threads = { key = "threads", other = "2" },
  -- content: a hash of the examples scored, in order (docs/tdtrain.md)
  eval_line  = { pattern = "loss (%S+)%s+accuracy (%S+)%s+%((%d+) examples, content (%x+)%)",
                 names = "loss accuracy examples content" },
  final_eval = { kind = "eval", final = true },
  counters   = { field = "counters" },
  -- a NaN input every 12th step: the firewall skips the step and counts it,
  -- and the NaN loss is written to the JSON log as null, counted too
  provoke    = { inject_nonfinite_every = 12 },
  -- every example the run read, {"id":...,"hash":...} (docs/tdtrain.md)
  manifests  = { train = "{dir}/train.jsonl", eval = "{dir}/eval.jsonl", field = "hash" },
  -- every key of core/config.c's key_table, each with another valid value
  keys = {
    seed = 8, steps = 20, batch = 8, lr = 0.02, weight_decay = 0.1, adam_beta1 = 0.8,
    adam_beta2 = 0.99, adam_eps = "1e-06", warmup = 8, clip = 0.5, width = 12, layers = 8,
    plan = "paired", bidirectional = false, mixer = "gru", ffn = 8, head = "shared",
    composition = "flatten", dataset = "synth-time", absent_fraction = 0.1,
    eval_every = 4, eval_batches = 3, log_every = 4, threads = 2, device = "cuda",
    checkpoint_every = 5,
    inject_nonfinite_every = 5,
  },
  -- docs/tdtrain.md: these change no weight ("weights: no"); eval_batches
  -- changes what an evaluation scores, so it must change the run instead
  inert = { "threads", "log_every", "eval_every", "checkpoint_every" },
  -- the core's conformance check: absent cells cannot reach any output
  absent = { "{root}/build/tests/tdtest", "--only",
             "test_a_cell_absent_from_its_example_cannot_reach_any_output" },
}
