-- mutations/harness/proc.lua: the mutants of harness/proc.c, spawning
-- children with deadlines and process groups (proc.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "proc-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "proc-outer-make-flags-reach-the-build",
  file = "harness/proc.c",
  find = "outer_make[] = {\"MAKEFLAGS=\", \"MFLAGS=\", \"MAKELEVEL=\", \"MAKEOVERRIDES=\",\n\t\t\t\t\t \"GNUMAKEFLAGS=\", NULL};",
  replace = "outer_make[] = {NULL};",
  guards = { "test_the_flags_of_a_make_that_runs_tdaudit_do_not_reach_a_child" },
  designed_against = "make audit built the fixture projects under its own MAKELEVEL, so their make printed its directory into a recipe",
  why = "passes the make that runs tdaudit its flags (-n, -i, -k) and level on to every build",
}

mutant {
  name = "proc-timeout-kills-the-child-only",
  file = "harness/proc.c",
  find = "kill(-pid, SIGKILL);\n\t\t\twhile (waitpid(pid, &st, 0)",
  replace = "kill(pid, SIGKILL);\n\t\t\twhile (waitpid(pid, &st, 0)",
  guards = { "test_a_timeout_kills_the_whole_process_group" },
  designed_against = "a test that forks a server and hangs must not leave it running",
  why = "kills the test's process but not its group on timeout",
  equivalent = "td_reaper_end kills the whole group after every run anyway (reaper-group-not-killed-after-a-run)",
}

mutant {
  name = "proc-no-parent-death-signal",
  file = "harness/proc.c",
  find = "if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)",
  replace = "if (getppid() != parent)",
  guards = { "test_a_child_does_not_outlive_a_killed_harness" },
  designed_against = "a tdaudit killed with SIGKILL must not leave its running test behind",
  why = "lets the test run on, reparented to init, when tdaudit dies",
}

mutant {
  name = "proc-child-keeps-the-blocked-signals",
  file = "harness/proc.c",
  find = "sigprocmask(SIG_SETMASK, none, NULL);",
  replace = "(void)none;",
  guards = { "test_a_child_starts_with_no_signal_blocked" },
  designed_against = "a test run by tdaudit must see SIGTERM as it would outside it",
  why = "hands tdaudit's blocked SIGINT, SIGTERM and SIGHUP down to every test",
}

mutant {
  name = "proc-limits-looser-than-the-harness",
  file = "harness/proc.c",
  find = "soft = soft < r->rlim_cur ? soft : r->rlim_cur;",
  replace = "(void)0;",
  guards = { "test_a_child_runs_under_cpu_file_size_and_process_limits" },
  finding = 97,
  why = "gives a child the soft limits it asks for even above the harness's own",
}

mutant {
  name = "proc-no-cpu-limit",
  file = "harness/proc.c",
  find = "setrlimit(RLIMIT_CPU, &l->cpu);",
  replace = "(void)0;",
  guards = { "test_a_child_runs_under_cpu_file_size_and_process_limits",
             "test_a_child_is_held_to_its_cpu_limit" },
  designed_against = "a spinning process that escaped its deadline must still stop",
  why = "lets a child spin on past its CPU budget",
}

mutant {
  name = "proc-no-file-size-limit",
  file = "harness/proc.c",
  find = "setrlimit(RLIMIT_FSIZE, &l->fsize);",
  replace = "(void)0;",
  guards = { "test_a_child_runs_under_cpu_file_size_and_process_limits",
             "test_a_child_cannot_write_a_file_past_its_size_limit" },
  designed_against = "a mutant that writes without end must not fill the disk",
  why = "lets a child write files of any size",
}

mutant {
  name = "proc-no-process-limit",
  file = "harness/proc.c",
  find = "setrlimit(RLIMIT_NPROC, &l->nproc);",
  replace = "(void)0;",
  guards = { "test_a_child_runs_under_cpu_file_size_and_process_limits",
             "test_a_child_cannot_start_processes_past_its_limit" },
  designed_against = "a fork bomb in a mutant must not take the machine",
  why = "lets a child start processes without limit",
}
