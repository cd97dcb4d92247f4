-- mutations/core/checkpoint.lua: the mutants of core/checkpoint.c, writing
-- and loading checkpoints (the layout is in checkpoint.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "checkpoint-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "checkpoint-written-in-place",
  file = "core/checkpoint.c",
  find = "err = td_file_write_atomic(path, file, size, 0644);",
  replace = [[{ FILE *fp = fopen(path, "wb"); err = fp && fwrite(file, 1, size, fp) == size ? 0 : TD_FAIL(TD_EIO, "cannot write %s", path); if (fp) fclose(fp); }]],
  guards = { "test_an_existing_checkpoint_survives_a_failed_write" },
  designed_against = "a snapshot written in place leaves a truncated file after a crash",
  why = "truncates the old checkpoint and writes the new one over it",
}

mutant {
  name = "checkpoint-newer-version-accepted",
  file = "core/checkpoint.c",
  find = "if (version > TD_CHECKPOINT_VERSION)",
  replace = "if (version > 255)",
  guards = { "test_a_wrong_magic_or_a_newer_version_is_refused" },
  designed_against = "persisted formats carry a version; a reader must not guess at a newer layout",
  why = "reads a checkpoint of a newer format version as if it were version 1",
}

mutant {
  name = "checkpoint-checksum-not-checked",
  file = "core/checkpoint.c",
  find = "	if (stored != computed)",
  replace = "	if (0)",
  guards = { "test_every_flipped_byte_is_refused" },
  designed_against = "a corrupt checkpoint must be refused, not resumed from",
  why = "loads a checkpoint whatever its checksum says",
}

mutant {
  name = "checkpoint-model-not-checked",
  file = "core/checkpoint.c",
  find = "if (e->signature && strcmp(e->signature, d->signature) != 0)",
  replace = "if (0)",
  guards = { "test_another_model_is_refused_naming_both" },
  designed_against = "weights of another model must never be loaded into this one",
  why = "loads a checkpoint of another model kind or shape",
}

mutant {
  name = "checkpoint-config-hash-not-checked",
  file = "core/checkpoint.c",
  find = "if (e->check_config_hash && e->config_hash != d->config_hash)",
  replace = "if (0)",
  guards = { "test_another_config_is_refused_naming_both_hashes" },
  designed_against = "resuming under another config is a run no config describes",
  why = "resumes a checkpoint written under another config",
}
