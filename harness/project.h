/*
 * project.h - a repository's tdaudit configuration, read from tdaudit.lua.
 *
 * tdaudit.lua is sandboxed Lua (see luahost.h) made of calls, each of which
 * records one setting and remembers its file:line for later messages:
 *
 *   build      { "make", "-j2" }                       -- argv, run at the root
 *   runner     { list = { "t/run", "--list" },         -- prints test names
 *                run  = { "t/run", "--only", "{test}" },  -- runs one test
 *                fail_text = "[  FAILED  ]" }            -- optional, see below
 *   sources    { "*.c", "lib/[a-z]*.c" }               -- globs: what reproduce reverts
 *   tests      { "test_*.c", "Makefile" }              -- globs: test code
 *   catalogues { "mutations/core.lua" }                -- mutation catalogues
 *   ledger     ".tdaudit/ledger.db"
 *   timeout    { factor = 10, floor = 5, build = 600 } -- seconds
 *
 * A test fails when its run exits non-zero, dies on a signal or times out;
 * with fail_text, also when its output contains that text (for runners
 * that can exit 0 on failure, and for mutants of the runner itself).
 *
 * argv arrays only: a string where an argv is expected is refused (no
 * shell). runner may be called more than once; a test name must be listed
 * by exactly one runner. A setting given twice, an unknown field, or a
 * missing build or runner is refused with "tdaudit.lua:LINE: message".
 */
#ifndef TD_PROJECT_H
#define TD_PROJECT_H

#define TD_PROJECT_MAX_RUNNERS 8

typedef struct {
	char **list;   /* argv printing one test name per line */
	char **run;    /* argv running one test; "{test}" is replaced by its name */
	char *fail_text; /* output that means failure whatever the exit status; may be NULL */
	char where[256];
} td_runner;

typedef struct td_project_s {
	char root[4096];  /* absolute path of the repository */
	char **build;     /* argv */
	td_runner runners[TD_PROJECT_MAX_RUNNERS];
	int n_runners;
	char **sources, **tests, **catalogues; /* globs relative to root */
	char *ledger;     /* path relative to root */
	double timeout_factor, timeout_floor, timeout_build;
} td_project;

/*
 * Reads root/tdaudit.lua into *out. TD_EINVAL with "tdaudit.lua:LINE:
 * message" when it is malformed, TD_EIO when missing. Caller frees with
 * td_project_free.
 */
int td_project_load(td_project **out, const char *root);
void td_project_free(td_project *p);

/* Whether rel (a path relative to root) matches one of the globs. */
int td_project_matches(char *const *globs, const char *rel);

#endif
