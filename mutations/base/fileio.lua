-- mutations/base/fileio.lua: the mutants of base/fileio.c, whole-file reads
-- and atomic writes (see fileio.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "fileio-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "fileio-read-message-unnamed",
  file = "base/fileio.c",
  find = "return TD_FAIL(TD_EIO, \"cannot open %s: %s\", path, strerror(errno));",
  replace = "return TD_FAIL(TD_EIO, \"cannot open %.0s%s\", path, strerror(errno));",
  guards = { "test_reading_a_missing_file_is_refused_naming_it" },
  designed_against = "a refusal must name the file it could not read",
  why = "drops the path from the message for a file that cannot be opened",
}

mutant {
  name = "fileio-write-in-place",
  file = "base/fileio.c",
  find = "fd = mkstemp(tmp);",
  replace = "fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), strcpy(tmp, path);",
  guards = { "test_a_failed_write_leaves_the_old_file_whole" },
  designed_against = "never write a user's file in place: a write that fails halfway leaves neither the old file nor the new",
  why = "writes straight into the target, truncating it first",
}

mutant {
  name = "fileio-data-written-to-the-target-not-the-temporary",
  file = "base/fileio.c",
  find = "fd = mkstemp(tmp);",
  replace = "fd = mkstemp(tmp), close(fd), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);",
  guards = { "test_a_write_replaces_the_old_file_whole",
             "test_the_write_replaces_the_file_whole_and_leaves_no_temporary" },
  designed_against = "the bytes written through the wrong descriptor: the target written in place, then the empty temporary renamed over it",
  why = "writes the data into the target and renames the empty temporary over it",
}

mutant {
  name = "fileio-mode-ignored",
  file = "base/fileio.c",
  find = "fchmod(fd, (mode_t)mode) != 0 ||",
  replace = "((void)mode, 0) != 0 ||",
  guards = { "test_a_written_file_gets_the_mode_asked_for" },
  designed_against = "the file must get the mode asked for, not mkstemp's 0600",
  why = "never applies the mode",
}

mutant {
  name = "fileio-failed-fchmod-keeps-the-descriptor",
  file = "base/fileio.c",
  find = "goto fail; /* fd is still open: fail closes it */",
  replace = "{ fd = -1; goto fail; }",
  guards = { "test_a_failed_fchmod_closes_and_removes_the_temporary_file" },
  finding = 34,
  why = "marks the descriptor gone when fchmod or fsync fails, so the cleanup never closes it",
}

mutant {
  name = "fileio-temporary-left-after-a-failure",
  file = "base/fileio.c",
  find = "unlink(tmp);",
  replace = "(void)tmp;",
  guards = { "test_a_failed_write_leaves_no_temporary_file" },
  designed_against = "a failed write must clean up: temporaries pile up beside the user's files",
  why = "leaves the temporary file behind when the write or the rename fails",
}

mutant {
  name = "fileio-mkdirs-no-parents",
  file = "base/fileio.c",
  find = "for (char *p = buf + 1; *p; p++) {",
  replace = "for (char *p = buf + 1; 0 && *p; p++) {",
  guards = { "test_mkdirs_creates_the_missing_parents" },
  designed_against = "mkdir -p semantics: a run directory several levels deep must be created whole",
  why = "creates only the last component of the path",
}

mutant {
  name = "fileio-killed-writers-temporaries-kept",
  file = "base/fileio.c",
  find = "\tsweep_stale(path);\n",
  replace = "\t(void)sweep_stale;\n",
  guards = { "test_the_next_write_removes_a_killed_writers_temporary_file" },
  finding = 45,
  why = "leaves every killed write's temporary file beside the target forever",
}

mutant {
  name = "fileio-a-live-writers-temporary-removed",
  file = "base/fileio.c",
  find = "pid <= 0 || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))",
  replace = "pid <= 0)",
  guards = { "test_the_next_write_removes_a_killed_writers_temporary_file" },
  designed_against = "a write must never delete another live writer's file",
  why = "removes the temporary file of a write still in progress",
}
