-- mutations/core/idx.lua: the mutants of core/idx.c, the IDX reader and the
-- Fashion-MNIST loader (see idx.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "idx-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "idx-gzip-error-read-as-end-of-file",
  file = "core/idx.c",
  find = "int r = gzread(f, buf + *got, ask);",
  replace = "int r = gzread(f, buf + *got, ask);\n\n\t\tr = r < 0 ? 0 : r;",
  guards = { "test_a_gzip_stream_with_a_bad_checksum_is_refused" },
  designed_against = "gzread's -1 is an error (a bad CRC), not the end of the file",
  why = "treats a failed gzread as the end of the file, so a CRC error passes",
}

mutant {
  name = "idx-be32-little-endian",
  file = "core/idx.c",
  find = "return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];",
  replace = "return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];",
  guards = { "test_raw_and_gzipped_files_read_back_the_same_bytes" },
  designed_against = "IDX headers are big-endian; reading them in host order gets every size wrong",
  why = "reads the header's sizes little-endian",
}

mutant {
  name = "idx-data-type-unchecked",
  file = "core/idx.c",
  find = "if (m[2] != 0x08)",
  replace = "if (0)",
  guards = { "test_a_wrong_magic_type_or_dimension_count_is_refused" },
  designed_against = "a file of floats or ints read as bytes is garbage that still looks like data",
  why = "accepts any IDX data type as unsigned bytes",
}

mutant {
  name = "idx-short-file-accepted",
  file = "core/idx.c",
  find = "if (got < idx->n_bytes)",
  replace = "if (0)",
  guards = { "test_a_file_shorter_than_its_header_promises_is_refused" },
  designed_against = "a truncated file read in part trains on uninitialised bytes",
  why = "accepts fewer data bytes than the header promises",
}

mutant {
  name = "idx-long-file-accepted",
  file = "core/idx.c",
  find = "if (got)",
  replace = "if (0)",
  guards = { "test_a_file_longer_than_its_header_promises_is_refused" },
  designed_against = "bytes past what the header promises mean the header is wrong or the file is two files",
  why = "ignores data past the promised bytes",
}

mutant {
  name = "idx-gzip-trailer-unchecked",
  file = "core/idx.c",
  find = "if (gz_cut_off(f))",
  replace = "if (0)",
  guards = { "test_a_gzip_stream_cut_off_is_refused" },
  designed_against = "a download cut off after the data but before the gzip trailer is a file never checked",
  why = "accepts a gzip stream without its trailer",
}

mutant {
  name = "idx-image-label-count-unchecked",
  file = "core/idx.c",
  find = "if (images->dims[0] != labels->dims[0])",
  replace = "if (0)",
  guards = { "test_images_and_labels_that_disagree_are_refused" },
  designed_against = "images and labels of different counts pair every example with a wrong label or read past one",
  why = "accepts image and label files of different lengths",
}

mutant {
  name = "idx-split-size-unchecked",
  file = "core/idx.c",
  find = "if (!err && (*out)->n != want) {",
  replace = "if (0 && (*out)->n != want) {",
  guards = { "test_a_split_of_the_wrong_size_is_refused" },
  designed_against = "a Fashion-MNIST split that is not the shipped size is not the data set the results claim",
  why = "accepts a split of any size",
}

mutant {
  name = "idx-pixels-divided-by-256",
  file = "core/idx.c",
  find = "out[p] = (td_real)px[p] / (td_real)255;",
  replace = "out[p] = (td_real)px[p] / (td_real)256;",
  guards = { "test_fashion_mnist_loads_the_shipped_split_with_its_known_statistics" },
  designed_against = "pixels scaled to [0, 1] exactly: the known mean pins the scaling",
  why = "scales pixels by 1/256 (mean 0.2849233, not 0.2860406)",
}

mutant {
  name = "idx-absent-mask-ignores-the-split",
  file = "core/idx.c",
  find = "(uint64_t)split << 32 |",
  replace = "(0 * (uint64_t)split) << 32 |",
  guards = { "test_an_absent_mask_is_a_pure_function_of_seed_split_and_index" },
  designed_against = "train image i and test image i must not share an absent mask",
  why = "leaves the split out of the mask's stream",
}

mutant {
  name = "idx-absent-pixels-kept",
  file = "core/idx.c",
  find = "out[p] = 0;",
  replace = "out[p] += 0;",
  guards = { "test_absent_pixels_read_as_zero_and_present_ones_as_their_value" },
  designed_against = "an absent pixel's value must never reach the model",
  why = "leaves absent pixels at their value",
}
