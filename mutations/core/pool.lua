-- mutations/core/pool.lua: the mutants of core/pool.c, the core's worker
-- threads (see pool.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "pool-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "pool-kept-across-fork",
  file = "core/pool.c",
  find = "\tpthread_atfork(NULL, NULL, pool_after_fork);",
  replace = "\t(void)pool_after_fork;",
  guards = { "test_gemm_with_threads_works_in_a_child_after_fork" },
  designed_against = "a process-wide thread pool copied by fork(): the child inherits the bookkeeping of workers that do not exist in it",
  why = "a child that multiplies with threads waits for the parent's workers forever",
}

mutant {
  name = "pool-shared-by-two-calls",
  file = "core/pool.c",
  find = "if (n <= 1 || pthread_mutex_trylock(&pool.use) != 0) {",
  replace = "if (n <= 1 || (pthread_mutex_trylock(&pool.use) != 0 && 0)) {",
  guards = { "test_pool_a_call_made_while_the_workers_are_busy_runs_in_its_caller" },
  finding = 19,
  why = "a second caller posts its job over the first's: shares run on the wrong matrices, or a caller waits forever",
}

mutant {
  name = "pool-caller-stops-waiting-after-its-spin",
  file = "core/pool.c",
  find = "while (atomic_load(&pool.pending) > 0)",
  replace = "while (0)",
  guards = { "test_pool_run_returns_after_every_share_has_finished" },
  designed_against = "a bounded busy-wait taken for the wait itself: the spin ends, the work has not",
  why = "td_pool_run returns while a worker still writes its share",
}

mutant {
  name = "pool-ranges-drop-an-item",
  file = "core/pool.c",
  find = "j->err[w] = j->fn(j->arg, j->n * w / j->shares, j->n * (w + 1) / j->shares);",
  replace = "j->err[w] = j->fn(j->arg, j->n * w / j->shares, j->n * (w + 1) / j->shares - (w + 1 < j->shares));",
  guards = { "test_pool_ranges_cover_each_item_once_and_carry_a_failure_back",
             "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "work split into ranges whose bounds leave a gap: an off-by-one between one range's end and the next's start",
  why = "the last item of every range but the last is never computed: a recurrence's lines, with several threads",
}

mutant {
  name = "pool-ranges-lose-a-workers-message",
  file = "core/pool.c",
  find = "\t\tsnprintf(j->msg[w], sizeof j->msg[w], \"%s\", td_error_last());",
  replace = "\t\t(void)0;",
  guards = { "test_pool_ranges_cover_each_item_once_and_carry_a_failure_back" },
  designed_against = "an error message kept per thread, read in another thread than the one that failed",
  why = "a failure on a worker reaches the caller with an empty message",
}
