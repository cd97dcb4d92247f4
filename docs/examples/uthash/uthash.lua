-- Mutants of src/uthash.h: three that put back what a fix commit removed
-- (or break the code it touched), then operator mutants generated over the
-- file (a macro library: mostly the "macro" class).

mutant {
  name = "uthash-select-forgets-bloom-add",
  file = "src/uthash.h",
  find = "          HASH_BLOOM_ADD(_dst_hh->tbl, _dst_hh->hashv);                          \\\n",
  replace = "",
  guards = { "test36" },
  designed_against = "f3ab1a5: HASH_SELECT must add each selected item to the destination's Bloom filter",
  why = "items HASH_SELECT copies are missing from the Bloom filter, so HASH_FIND misses them (only with -DHASH_BLOOM)",
}

mutant {
  name = "uthash-overhead-of-null-head",
  file = "src/uthash.h",
  find = "(((head) != NULL) ? (",
  replace = "((1) ? (",
  guards = { "test85" },
  designed_against = "08121e0: HASH_OVERHEAD of an empty hash (a NULL head) is 0",
  why = "HASH_OVERHEAD dereferences a NULL head",
}

mutant {
  name = "uthash-add-inorder-reversed",
  file = "src/uthash.h",
  find = "if (cmpfcn(DECLTYPE(head)(_hs_iter), add) > 0) {",
  replace = "if (cmpfcn(DECLTYPE(head)(_hs_iter), add) < 0) {",
  guards = { "test87", "test90" },
  designed_against = "13723b1: HASH_ADD_KEYPTR_INORDER keeps the list sorted by cmpfcn",
  why = "inserts before the first smaller item: the list is no longer sorted",
}

generate {
  files = { "src/uthash.h" },
}
