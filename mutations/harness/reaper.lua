-- mutations/harness/reaper.lua: the mutants of harness/reaper.c, the
-- subreaper, the registry of live runs and the sweeps of their orphans
-- (reaper.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "reaper-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "reaper-not-a-subreaper",
  file = "harness/reaper.c",
  find = "prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);",
  replace = "(void)0;",
  guards = { "test_a_timeout_kills_a_grandchild_that_left_the_group",
             "test_a_grandchild_that_left_the_group_does_not_outlive_the_run" },
  designed_against = "a grandchild that calls setsid() must not escape to init and outlive the run",
  why = "lets orphans be reparented to init, where no sweep sees them",
}

mutant {
  name = "reaper-orphans-not-killed",
  file = "harness/reaper.c",
  find = "} else if (all || doomed(k.pid, serial)) {",
  replace = "} else if (all || (0 && doomed(k.pid, serial))) {",
  guards = { "test_a_timeout_kills_a_grandchild_that_left_the_group",
             "test_a_grandchild_that_left_the_group_does_not_outlive_the_run" },
  designed_against = "a grandchild that calls setsid() must not escape to init and outlive the run",
  why = "reaps the run's orphans only when they exit by themselves",
}

mutant {
  name = "reaper-group-not-killed-after-a-run",
  file = "harness/reaper.c",
  find = "if (run->pid > 0) /* what is left of its group, marked or not */",
  replace = "if (0)",
  guards = { "test_grandchildren_do_not_outlive_a_finished_run" },
  finding = 95,
  why = "leaves a grandchild that emptied its environment running after a normal exit (a background process a test leaves behind would outlive the harness)",
}

mutant {
  name = "reaper-sweep-kills-the-new-owners-children",
  file = "harness/reaper.c",
  find = "ours(e->d_name) && !under(e->d_name, dead) &&",
  replace = "ours(e->d_name) &&",
  guards = { "test_the_sweep_of_a_dead_pid_spares_the_children_of_its_new_owner" },
  finding = 89,
  why = "kills the children of a process that was given a dead run's pid again",
}

mutant {
  name = "reaper-claim-spares-a-dead-runs-orphans",
  file = "harness/reaper.c",
  find = "if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)",
  replace = "if (kill((pid_t)pid, 0) != 0 || errno != ESRCH)",
  guards = { "test_the_next_run_kills_what_a_killed_run_left_running" },
  finding = 84,
  why = "takes a dead run for a live one: what it left running runs on",
}
