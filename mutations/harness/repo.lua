-- mutations/harness/repo.lua: the mutants of harness/repo.c, read-only views
-- of a git repository through libgit2 (repo.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "repo-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "repo-owner-refusal-unexplained",
  file = "harness/repo.c",
  find = "return owner_problem(root, sizeof root, path) ? owner_fail(root) : err;",
  replace = "return owner_problem(root, sizeof root, path) && 0 ? owner_fail(root) : err;",
  guards = { "test_a_repository_owned_by_another_user_is_refused_saying_what_to_do" },
  finding = 10,
  why = "passes libgit2's own message on for a repository owned by another user",
}

mutant {
  name = "repo-reproduce-shallow-clone-walked",
  file = "harness/repo.c",
  find = "if (!err && git_repository_is_shallow(r->repo) == 1)",
  replace = "if (0)",
  guards = { "test_bad_input_exits_2_with_a_clear_message" },
  designed_against = "libgit2 1.5 cannot walk a shallow clone: say so, never guess",
  why = "accepts a shallow clone",
}

mutant {
  name = "repo-reproduce-at-head-writes-objects",
  file = "harness/repo.c",
  find = "\tif (!err)\n\t\terr = writes_to_memory(r, root);",
  replace = "\tif (0)\n\t\terr = writes_to_memory(r, root);",
  guards = { "test_at_head_writes_no_object_and_leaves_the_users_index_tree_and_head" },
  finding = 9,
  why = "lets the in-memory revert's merged blobs land in .git/objects",
}

mutant {
  name = "repo-reproduce-added-file-left-in-before",
  file = "harness/repo.c",
  find = "err = prune_state(&n, dst, manifest, &l);",
  replace = "err = prune_state(&n, dst, \"\", &l);",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  designed_against = "the before state must not keep the files the fix added",
  why = "never removes the files the previous state had (it reads no manifest)",
}

mutant {
  name = "repo-reproduce-stale-build-after-a-removal",
  file = "harness/repo.c",
  find = "if (!err && n > n_kept)",
  replace = "if (!err && n_kept > n)",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  finding = 5,
  why = "never touches the state after a file was removed, so make keeps the stale program",
}

mutant {
  name = "repo-reproduce-at-head-test-file-conflict-counts",
  file = "harness/repo.c",
  find = "if (any && !td_project_matches(test_globs, any->path))",
  replace = "if (any && (test_globs || 1))",
  guards = { "test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards",
             "test_at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass" },
  designed_against = "test files come from HEAD, so a conflict in one says nothing about the fix; counting it would make --at-head useless once tests grow",
  why = "reports a conflict in a test file as the fix no longer reverting",
}

mutant {
  name = "repo-reproduce-at-head-tests-not-from-head",
  file = "harness/repo.c",
  find = "\tif (!err)\n\t\terr = walk_commit(l, r, head);",
  replace = "\tif (0)\n\t\terr = walk_commit(l, r, head);",
  guards = { "test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards" },
  designed_against = "before at HEAD must run today's tests against today's code without the fix",
  why = "leaves the test files out of the reverted state instead of taking HEAD's",
}
