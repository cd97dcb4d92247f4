/*
 * project.h - a repository's tdaudit configuration, read from tdaudit.lua.
 *
 * tdaudit.lua is sandboxed Lua (see luahost.h) made of calls, each of which
 * records one setting and remembers its file:line for later messages:
 *
 *   build      { "make", "-j2" }                       -- argv, run at the root
 *   runner     { list = { "t/run", "--list" },         -- prints test names
 *                run  = { "t/run", "--only", "{test}" },  -- runs one test
 *                fail_text = "[  FAILED  ]",             -- optional, see below
 *                tests_of = { ["tests/t.c"] = { "t_a", "t_b" } }, -- optional
 *                program_is_test = true }                -- optional
 *   sources    { "*.c", "lib/[a-z]*.c" }               -- globs: what reproduce reverts
 *   tests      { "test_*.c", "Makefile" }              -- globs: test code
 *   catalogues { "mutations/core.lua" }                -- mutation catalogues
 *   ledger     ".tdaudit/ledger.db"
 *   timeout    { factor = 10, floor = 5, build = 600 } -- seconds
 *   audits     { "audits/[a-z]*.lua" }                 -- audit scripts (tdaudit audit)
 *   trainer    { config = "configs/x.conf", train = { ... }, ... } -- docs/audit.md
 *   confine    "off"                                   -- or "landlock" (the default)
 *   variant    { name = "no-decltype", args = { "CFLAGS=-DNO_DECLTYPE" } } -- docs/tdaudit-lua.md
 *
 * A variant is another way to build: args appended to build's argv, or a
 * whole build line of its own, and env (NAME = "value") set for its
 * builds and tests. "default" is build { } as it is. A variant with
 * before = "YYYY-MM-DD", since = "YYYY-MM-DD" or range = "A..B" is chosen
 * by itself for the commits it names when no --variant is given;
 * fallback = "NAME" is the variant a state that does not build under it
 * is built with instead (one step, counted and printed).
 *
 * confine says whether the writes of builds and tests in scratch trees are
 * confined by the kernel (confine.h); TDAUDIT_CONFINE=off in the
 * environment turns it off too, whatever tdaudit.lua says.
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

#include <stddef.h>

#define TD_PROJECT_MAX_RUNNERS 8

typedef struct {
	char **list;   /* argv printing one test name per line */
	char **run;    /* argv running one test; "{test}" is replaced by its name */
	char *fail_text; /* output that means failure whatever the exit status; may be NULL */
	/* tests_of = { [GLOB] = { NAME, ... } }: the tests a test file holds, as
	   pairs: the file glob of_glob[i] holds the test of_name[i] ("{stem}":
	   the file's name without directory and extension); NULL: none given */
	char **of_glob, **of_name;
	int program_is_test; /* program_is_test = true: run's program is the test itself */
	char where[256];
} td_runner;

/*
 * The tests runner r declares that test file rel holds (its tests_of),
 * appended to *names (a td_strv; caller frees); 0 added when no glob
 * matches. *matched (may be NULL) says whether one did.
 */
int td_runner_tests_of(char ***names, int *matched, const td_runner *r, const char *rel);

/*
 * The trainer block: what `tdaudit audit` runs. Every field is one of a
 * few kinds, checked when tdaudit.lua loads (the field list is in
 * project.c; docs/audit.md explains each): an argv template, a string, a
 * number, a map of strings to strings, or a list of strings.
 */
enum td_tfield_kind { TD_TF_ARGV, TD_TF_STRING, TD_TF_NUMBER, TD_TF_MAP, TD_TF_LIST };

typedef struct {
	const char *name;       /* the field's name in tdaudit.lua (static) */
	enum td_tfield_kind kind;
	int given;              /* 1 when tdaudit.lua set it */
	char *str;              /* TD_TF_STRING */
	double num;             /* TD_TF_NUMBER */
	char **list;            /* TD_TF_ARGV, TD_TF_LIST: a td_strv (may be NULL for an empty list) */
	char **keys, **values;  /* TD_TF_MAP: sorted by key, parallel td_strvs */
} td_tfield;

#define TD_TRAINER_FIELDS 24

typedef struct {
	int given;                        /* 1 when tdaudit.lua has a trainer block */
	char where[256];                  /* "tdaudit.lua:LINE" of the block */
	td_tfield f[TD_TRAINER_FIELDS];   /* every known field, given or not, in project.c's order */
	int n;
} td_trainer;

/* The trainer field called name, or NULL when there is no such field. Borrowed. */
const td_tfield *td_trainer_field(const td_trainer *t, const char *name);

#define TD_PROJECT_MAX_VARIANTS 16
#define TD_VARIANT_NAME_MAX 40
#define TD_VARIANT_ENV_MAX 60 /* variables a variant's env may set (td_jail holds them) */

typedef struct {
	char name[TD_VARIANT_NAME_MAX + 1];
	char **build;      /* a whole build argv; NULL: the project's build, then args */
	char **args;       /* appended to the project's build argv; NULL: none */
	char **env;        /* "NAME=VALUE" for its builds and tests, sorted; NULL: none */
	long long before, since; /* chosen for commits dated before / on or after (UTC s); 0: no */
	char *range;       /* "A..B": chosen for commits reachable from B and not from A; NULL: no */
	int fallback;      /* index of the variant a failed build falls back to; -1: none */
	char fallback_name[TD_VARIANT_NAME_MAX + 1]; /* as written; resolved once all are read */
	char where[256];   /* "tdaudit.lua:LINE"; "" for default */
} td_variant;

typedef struct td_project_s {
	char root[4096];  /* absolute path of the repository */
	char **build;     /* argv */
	td_runner runners[TD_PROJECT_MAX_RUNNERS];
	int n_runners;
	char **sources, **tests, **catalogues; /* globs relative to root */
	char **audits;    /* globs of audit scripts relative to root; NULL: none */
	td_trainer trainer;
	char *ledger;     /* path relative to root */
	double timeout_factor, timeout_floor, timeout_build;
	int timeout_given;   /* a timeout { } was read: a second is refused */
	int confine;         /* 1: confine the writes of builds and tests where the kernel can
			      * (the default); 0: confine "off", or TDAUDIT_CONFINE=off */
	char confine_off_by[64]; /* what turned it off: "tdaudit.lua" or "TDAUDIT_CONFINE=off" */
	int confine_given;   /* a confine was read: a second is refused */
	/* variants[0] is "default" (build as it is); the rest as tdaudit.lua declares them */
	td_variant variants[TD_PROJECT_MAX_VARIANTS];
	int n_variants;
	int active;          /* the variant builds and tests use now (index into variants) */
} td_project;

/* The index of the variant called name, or -1. */
int td_project_variant(const td_project *p, const char *name);

/*
 * The build argv of variant v into *argv (a td_strv; caller frees): its
 * own build, else the project's followed by its args.
 */
int td_variant_argv(char ***argv, const td_project *p, int v);

/*
 * Variant v as one line for headers and the ledger: its build argv, then
 * its environment, "make -j2 CFLAGS=-DX (env CC=clang)". Returns buf.
 */
const char *td_variant_describe(char *buf, size_t size, const td_project *p, int v);

/* Variant v's environment as one string, "A=1 B=2"; "" when it has none. Returns buf. */
const char *td_variant_env_string(char *buf, size_t size, const td_project *p, int v);

/*
 * Reads root/tdaudit.lua into *out. TD_EINVAL with "tdaudit.lua:LINE:
 * message" when it is malformed, TD_EIO when missing. Caller frees with
 * td_project_free.
 */
int td_project_load(td_project **out, const char *root);
void td_project_free(td_project *p);

/* Whether rel (a path relative to root) matches one of the globs. */
int td_project_matches(char *const *globs, const char *rel);

/*
 * Warns on stderr, as "tdaudit COMMAND: WARNING: ...", of each sources or
 * tests glob that matches no file of the working tree (a misspelt
 * directory, most likely): reproduce and bisect classify a commit's files
 * by them, so such a glob quietly makes every fix look as if it added no
 * test. A warning, not a refusal: the files may exist only in history.
 * Returns how many globs matched nothing.
 */
size_t td_project_say_empty_globs(const td_project *p, const char *command);

#endif
