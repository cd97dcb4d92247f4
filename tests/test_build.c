/*
 * test_build.c - the Makefile's own contract: an object is rebuilt when the
 * flags it was compiled with change, not only when its source does
 * (DEBUG.md #16).
 *
 * It runs make on this source tree into a build directory of its own
 * (BUILDROOT in the test's scratch directory), asking for one small
 * object three times: the first build compiles it, the same flags again
 * compile nothing, other CFLAGS compile it again.
 *
 * What this test guards: tdaudit mutate --list --file Makefile
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Runs make for BUILDROOT's core/plan.o with the given CFLAGS; returns 1
 * when make compiled core/plan.c, 0 when it did not, -1 when make failed.
 * The parent make's jobserver variables are dropped: this make is not one
 * of its jobs.
 */
static int make_plan_o(const char *buildroot, const char *cflags)
{
	char cmd[8192], line[8192], out[16384] = "";
	int compiled = 0, status;
	FILE *p;

	snprintf(cmd, sizeof cmd,
		 "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C '%s' "
		 "VARIANT=release BUILDROOT='%s' CFLAGS='%s' '%s/core/plan.o' 2>&1",
		 TD_SOURCE_DIR, buildroot, cflags, buildroot);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p)) {
		if (strstr(line, "-c core/plan.c"))
			compiled = 1;
		if (strlen(out) + strlen(line) < sizeof out)
			strcat(out, line);
	}
	status = pclose(p);
	if (status != 0)
		print_message("make failed (status %d):\n%s", status, out);
	return status == 0 ? compiled : -1;
}

static void test_changing_the_compiler_flags_rebuilds_an_object(void **state)
{
	char here[4096], buildroot[4200];

	(void)state;
	assert_non_null(getcwd(here, sizeof here));
	snprintf(buildroot, sizeof buildroot, "%s/build", here);
	assert_int_equal(make_plan_o(buildroot, ""), 1);
	assert_int_equal(make_plan_o(buildroot, ""), 0); /* up to date */
	assert_int_equal(make_plan_o(buildroot, "-DTD_BUILD_PROBE"), 1);
	assert_int_equal(make_plan_o(buildroot, "-DTD_BUILD_PROBE"), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_changing_the_compiler_flags_rebuilds_an_object),
};
TD_TEST_GROUP(build, tests);
