/*
 * test_sources.c - rules about the sources themselves that no run can
 * check: functions with hidden process-wide state that the harness's
 * worker threads must not call.
 */
#include "tdtest.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TD_SOURCE_DIR
#define TD_SOURCE_DIR "."
#endif

/*
 * mutate's workers run the scratch sync, the file lists and the runner's
 * listing at once; strtok keeps one cursor for the whole process, so two
 * threads in it walk each other's buffers. No call of it in harness/, base/
 * or ledger/ (strtok_r keeps its own).
 */
static void test_no_harness_source_calls_strtok(void **state)
{
	static const char *const globs[] = {TD_SOURCE_DIR "/harness/*.c", TD_SOURCE_DIR "/base/*.c",
					    TD_SOURCE_DIR "/ledger/*.c"};
	char line[4096], found[4096] = "";

	(void)state;
	for (size_t g = 0; g < sizeof globs / sizeof globs[0]; g++) {
		glob_t gl;

		assert_int_equal(glob(globs[g], 0, NULL, &gl), 0);
		for (size_t i = 0; i < gl.gl_pathc; i++) {
			FILE *f = fopen(gl.gl_pathv[i], "r");
			int n = 0;

			assert_non_null(f);
			while (fgets(line, sizeof line, f)) {
				n++;
				if (strstr(line, "strtok(") && strlen(found) < sizeof found - 512)
					snprintf(found + strlen(found), sizeof found - strlen(found),
						 "\n  %s:%d", gl.gl_pathv[i] + strlen(TD_SOURCE_DIR) + 1, n);
			}
			fclose(f);
		}
		globfree(&gl);
	}
	if (found[0])
		fail_msg("strtok, whose cursor all threads share, is called at:%s", found);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_no_harness_source_calls_strtok),
};

TD_TEST_GROUP(sources, tests);
