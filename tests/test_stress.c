/*
 * test_stress.c - SIGKILL at random moments: tdaudit mutate, reproduce,
 * bisect and ledger merge on a fixture repository of ten commits, and
 * tdtrain train writing a checkpoint every step, each killed at a moment
 * drawn from a seeded generator between its start and the time an
 * uninterrupted run of it took.
 *
 * After each kill: the user's working tree, index and HEAD hash as before;
 * the ledger passes PRAGMA integrity_check, holds no run still marked
 * running, at most one more finished run than before, and every finished
 * run has as many result rows as the uninterrupted run of its command; a
 * killed merge added all of its source or nothing; a killed tdtrain left
 * its previous checkpoint loadable (tdtrain eval) and whole log lines. Then
 * the same command runs again to the end: tdaudit with the exit status of
 * the uninterrupted run and one more finished run, tdtrain resumed from the
 * checkpoint that is there, ending byte-identical to the uninterrupted run,
 * with no temporary checkpoint file left beside it.
 *
 * STRESS_TRIALS=N sets the number of kills delivered (default 5, one per
 * command; `make stress` delivers 50); STRESS_SEED=S replays a run's kill
 * moments (each run prints its seed; timing noise aside, the same seed
 * gives the same commands and delays); STRESS_ONLY=NAME ("ledger merge")
 * kills that command only; STRESS_VERBOSE=1 prints each kill. A run that
 * ended before its kill does not count as a trial.
 *
 * Edits seen breaking this test (with STRESS_ONLY and 20 kills):
 *   - td_testrun_build() without its mark (the parent of the fix this
 *     test found) -> bisect after a kill: cannot run ./t, exit 2
 *   - merge_attached() without BEGIN IMMEDIATE / COMMIT -> a killed merge
 *     left 5 of the source's 12 rows
 *   - td_file_write_atomic() not calling sweep_stale() -> a
 *     checkpoint.bin.tmp.PID.XXXXXX left after a run that finished
 *   - td_checkpoint_write() writing checkpoint.bin in place (fopen "w")
 *     -> the checkpoint a killed tdtrain left does not load
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/fileio.h"
#include "fixture.h"

static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int);\n"
	"int main(int argc, char **argv)\n{\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_add\"); return 0; }\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"test_add\")) {\n"
	"\t\tint ok = add(2, 3) == 5;\n"
	"\t\tprintf(\"test_add %s\\n\", ok ? \"ok\" : \"FAILED\");\n"
	"\t\treturn !ok;\n\t}\n\treturn 2;\n}\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\n"
	"timeout { factor = 5, floor = 5 }\n";

static const char catalogue[] =
	"mutant { name = \"calc-sub\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"subtracts\" }\n"
	"mutant { name = \"calc-mul\", file = \"calc.c\", find = \"a + b\", replace = \"a * b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"multiplies\" }\n";

#define N_COMMITS 10
#define FIX 6 /* add() adds from this commit on */

static char fix_id[41];

/* Commits C0 .. C9 in ./repo: test_add fails until FIX, passes from it on. */
static void make_history(void)
{
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua", config);
	fx_write("repo", "cat.lua", catalogue);
	for (int k = 0; k < N_COMMITS; k++) {
		char calc[256], msg[32];

		snprintf(calc, sizeof calc, "int version = %d;\nint add(int a, int b)\n{\n\treturn a %c b;\n}\n",
			 k, k >= FIX ? '+' : '-');
		snprintf(msg, sizeof msg, "C%d", k);
		fx_write("repo", "calc.c", calc);
		fx_git_commit_all("repo", msg);
		if (k == FIX)
			snprintf(fix_id, sizeof fix_id, "%s", fx_git_rev("repo", "HEAD"));
	}
	fx_write("repo", "untracked.txt", "the user's, not committed\n");
}

/* ---- the commands, and running one with a kill at a moment ---------------------- */

enum { C_MUTATE, C_REPRODUCE, C_BISECT, C_MERGE, C_TRAIN, N_CMDS };

#define TINY "--set", "dataset=synth-row", "--set", "width=8", "--set", "layers=4", "--set", \
	     "steps=40", "--set", "warmup=5", "--set", "batch=8", "--set", "log_every=10",       \
	     "--set", "eval_every=20", "--set", "checkpoint_every=1", "--quiet"

static const char *const argv_of[N_CMDS][40] = {
	{TD_BUILD_DIR "/tdaudit", "mutate", "-j", "1", NULL},
	{TD_BUILD_DIR "/tdaudit", "reproduce", fix_id, "--guard", "test_add", NULL},
	{TD_BUILD_DIR "/tdaudit", "bisect", "--guard", "test_add", NULL},
	{TD_BUILD_DIR "/tdaudit", "ledger", "merge", "../src.db", "-o", "../merged.db", NULL},
	{TD_BUILD_DIR "/tdtrain", "train", TINY, "--out", "t", NULL},
};
static const char *const name_of[N_CMDS] = {"mutate", "reproduce", "bisect", "ledger merge",
					     "tdtrain train"};
static const char *const dir_of[N_CMDS] = {"repo", "repo", "repo", "repo", "train"};

static const char *const resume_argv[] = {TD_BUILD_DIR "/tdtrain", "train", TINY, "--out", "t",
					  "--resume", "t/checkpoint.bin", NULL};
static const char *const eval_argv[] = {TD_BUILD_DIR "/tdtrain", "eval", "--checkpoint",
					"t/checkpoint.bin", NULL};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Runs argv in dir, output to log, and SIGKILLs it after kill_s seconds
 * (never when kill_s < 0). Returns the exit status, or -1 when it was
 * killed; *took the seconds it ran.
 */
static int run_killed(const char *const *argv, const char *dir, const char *log, double kill_s,
		      double *took)
{
	double t0 = now_s();
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) != 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (kill_s >= 0) {
		struct timespec nap = {(time_t)kill_s, (long)((kill_s - (double)(time_t)kill_s) * 1e9)};

		nanosleep(&nap, NULL);
		kill(pid, SIGKILL);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	*took = now_s() - t0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && kill_s >= 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- what a ledger holds -------------------------------------------------------- */

/* Opens path read-write (WAL recovery may need it); fails the test on error. */
static sqlite3 *db_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		fail_msg("%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* The first column of the first row of sql as an integer (bound to text arg when given). */
static long long db_int(sqlite3 *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Fails the test unless PRAGMA integrity_check says ok. */
static void db_integrity(sqlite3 *db, const char *what)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
		fail_msg("%s fails PRAGMA integrity_check: %s", what,
			 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "(no row)");
	sqlite3_finalize(st);
}

/*
 * The rows of every table that refer to run (those with a `run` column),
 * or, with run NULL, the rows of every table: the size of what a run or a
 * merge wrote.
 */
static long long db_rows(sqlite3 *db, const char *run)
{
	sqlite3_stmt *st = NULL;
	long long n = 0;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
						" ORDER BY name", -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(st, 0);
		char sql[512];

		snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = 'run'",
			 table);
		if (run && db_int(db, sql, NULL) != 1)
			continue;
		snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"%s", table, run ? " WHERE run = ?" : "");
		n += db_int(db, sql, run);
	}
	sqlite3_finalize(st);
	return n;
}

/* Result rows of the uninterrupted run of each tdaudit command (by runs.command). */
static struct {
	char command[64];
	long long rows;
} want_rows[N_CMDS];

/*
 * Checks the repository's ledger: sound, no run left running or without
 * an end, and every finished run as big as the uninterrupted run of its
 * command (learn: record the sizes instead). Returns the finished runs.
 */
static long long check_ledger(int learn)
{
	sqlite3 *db = db_open("repo/.tdaudit/ledger.db");
	sqlite3_stmt *st = NULL;
	long long runs;

	db_integrity(db, "repo/.tdaudit/ledger.db");
	if (db_int(db, "SELECT count(*) FROM runs WHERE status = 'running' OR ended IS NULL", NULL) != 0)
		fail_msg("the ledger shows a run that never ended");
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, command FROM runs", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char id[128], cmd[64];
		long long rows;
		int k = 0;

		snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(cmd, sizeof cmd, "%s", (const char *)sqlite3_column_text(st, 1));
		rows = db_rows(db, id);
		while (k < N_CMDS && want_rows[k].command[0] && strcmp(want_rows[k].command, cmd))
			k++;
		assert_true(k < N_CMDS);
		if (learn && !want_rows[k].command[0]) {
			snprintf(want_rows[k].command, sizeof want_rows[k].command, "%s", cmd);
			want_rows[k].rows = rows;
		} else if (!want_rows[k].command[0] || rows != want_rows[k].rows) {
			fail_msg("the ledger shows %s run %s as finished with %lld result rows; an"
				 " uninterrupted one has %lld", cmd, id, rows, want_rows[k].rows);
		}
	}
	sqlite3_finalize(st);
	runs = db_int(db, "SELECT count(*) FROM runs", NULL);
	sqlite3_close(db);
	return runs;
}

/* The rows merged.db holds (0 when it does not exist), checked sound. */
static long long merged_rows(void)
{
	sqlite3 *db;
	long long n;

	if (access("merged.db", F_OK) != 0)
		return 0;
	db = db_open("merged.db");
	db_integrity(db, "merged.db");
	n = db_rows(db, NULL);
	sqlite3_close(db);
	return n;
}

static void remove_merged(void)
{
	unlink("merged.db");
	unlink("merged.db-wal");
	unlink("merged.db-shm");
}

/* ---- tdtrain's run directory -------------------------------------------------- */

/* Fails the test if train/t holds a checkpoint.bin.tmp.* file. */
static void no_stale_checkpoint_tmp(void)
{
	DIR *d = opendir("train/t");
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (!strncmp(e->d_name, "checkpoint.bin.tmp.", 19)) {
			closedir(d);
			fail_msg("train/t/%s is left after a run that finished", e->d_name);
		}
	closedir(d);
}

/* Fails the test unless every line of train/t/log.jsonl is a whole JSON object. */
static void log_lines_are_whole(void)
{
	const char *text = fx_slurp("train/t/log.jsonl");

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		if (p[len] != '\n' || p[0] != '{' || p[len - 1] != '}')
			fail_msg("train/t/log.jsonl has a torn line: %.*s", (int)len, p);
		p += len + 1;
	}
}

/* Whether train/t/checkpoint.bin has the bytes of want. */
static int checkpoint_is(const char *want, size_t want_len)
{
	char *got = NULL;
	size_t n = 0;
	int same;

	assert_int_equal(td_file_read("train/t/checkpoint.bin", &got, &n), 0);
	same = n == want_len && !memcmp(got, want, n);
	free(got);
	return same;
}

/* ---- the trials ------------------------------------------------------------------ */

static uint64_t rng;

/* splitmix64: a uniform double in [0, 1). */
static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1p-53;
}

static long env_long(const char *name, long fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : fallback;
}

struct stress {
	double took[N_CMDS];   /* an uninterrupted run's seconds */
	int status[N_CMDS];    /* and its exit status */
	long long full_merge;  /* the rows of a whole merge */
	char *ckpt;            /* the uninterrupted tdtrain run's final checkpoint */
	size_t ckpt_len;
	unsigned long long seed;
};

/* The uninterrupted run of every command: its time, status and what it wrote. */
static void baseline(struct stress *s)
{
	for (int c = 0; c < N_CMDS; c++) {
		if (c == C_MERGE) { /* the source: everything the other runs recorded */
			const char *argv[] = {TD_BUILD_DIR "/tdaudit", "ledger", "merge", ".tdaudit/ledger.db",
					      "-o", "../src.db", NULL};
			double t;

			assert_int_equal(run_killed(argv, "repo", "src.log", -1, &t), 0);
		}
		s->status[c] = run_killed(argv_of[c], dir_of[c], "base.log", -1, &s->took[c]);
		if (s->status[c] != 0)
			fail_msg("%s exits %d uninterrupted:\n%s", name_of[c], s->status[c], fx_slurp("base.log"));
	}
	check_ledger(1);
	s->full_merge = merged_rows();
	assert_true(s->full_merge > 0);
	assert_int_equal(td_file_read("train/t/checkpoint.bin", &s->ckpt, &s->ckpt_len), 0);
}

/* What every command must leave after its kill, and the run after it. */
static void check_after(struct stress *s, int c, long long runs_before, uint64_t tree)
{
	double t;
	int rc;

	if (fx_tree_hash("repo") != tree)
		fail_msg("killing %s changed the user's tree, index or HEAD", name_of[c]);
	if (c == C_TRAIN) {
		log_lines_are_whole();
		if (run_killed(eval_argv, "train", "eval.log", -1, &t) != 0)
			fail_msg("the checkpoint a killed tdtrain left does not load:\n%s", fx_slurp("eval.log"));
		rc = run_killed(resume_argv, "train", "again.log", -1, &t);
		if (rc != 0)
			fail_msg("resuming after the kill exits %d:\n%s", rc, fx_slurp("again.log"));
		if (!checkpoint_is(s->ckpt, s->ckpt_len))
			fail_msg("the resumed run's checkpoint differs from the uninterrupted run's");
		no_stale_checkpoint_tmp();
		log_lines_are_whole();
		return;
	}
	if (c == C_MERGE) {
		long long n = merged_rows();

		if (n != 0 && n != s->full_merge)
			fail_msg("a killed merge left %lld of the source's %lld rows", n, s->full_merge);
	} else {
		long long runs = check_ledger(0);

		if (runs != runs_before && runs != runs_before + 1)
			fail_msg("the ledger went from %lld runs to %lld", runs_before, runs);
		runs_before = runs;
	}
	rc = run_killed(argv_of[c], dir_of[c], "again.log", -1, &t);
	s->took[c] = t; /* the next kill falls within a run as warm as this one */
	if (rc != s->status[c])
		fail_msg("%s after the kill exits %d, not %d:\n%s", name_of[c], rc, s->status[c],
			 fx_slurp("again.log"));
	if (fx_tree_hash("repo") != tree)
		fail_msg("the run after killing %s changed the user's tree, index or HEAD", name_of[c]);
	if (c == C_MERGE) {
		assert_true(merged_rows() == s->full_merge);
	} else if (check_ledger(0) != runs_before + 1) {
		fail_msg("the run of %s after the kill left no finished run in the ledger", name_of[c]);
	}
}

static void test_sigkill_at_any_moment_leaves_tree_ledger_and_checkpoint_sound(void **state)
{
	struct stress s = {0};
	long trials = env_long("STRESS_TRIALS", 5), kills = 0, early = 0, per[N_CMDS] = {0};
	int only = -1;

	(void)state;
	s.seed = (unsigned long long)env_long("STRESS_SEED", (long)(time(NULL) ^ (getpid() << 16)));
	rng = s.seed;
	for (int c = 0; c < N_CMDS && getenv("STRESS_ONLY"); c++)
		if (!strcmp(getenv("STRESS_ONLY"), name_of[c]))
			only = c;
	if (getenv("STRESS_ONLY") && only < 0)
		fail_msg("STRESS_ONLY='%s' is none of: mutate reproduce bisect 'ledger merge' 'tdtrain train'",
			 getenv("STRESS_ONLY"));
	print_message("stress: seed %llu (STRESS_SEED=%llu replays), %ld kills\n", s.seed, s.seed, trials);
	make_history();
	assert_int_equal(mkdir("train", 0755), 0);
	baseline(&s);
	for (long i = 0; kills < trials; i++) {
		int c = only >= 0 ? only : (int)(i % N_CMDS);
		double at = uniform() * s.took[c], t;
		uint64_t tree = fx_tree_hash("repo");
		long long runs = c == C_MERGE || c == C_TRAIN ? 0 : check_ledger(0);
		int rc;

		if (i > 2 * trials + 10)
			fail_msg("only %ld of %ld runs were still going at their kill", kills, i);
		if (c == C_MERGE)
			remove_merged();
		rc = run_killed(argv_of[c], dir_of[c], "killed.log", at, &t);
		if (env_long("STRESS_VERBOSE", 0))
			print_message("stress: %-13s kill at %.3f s of %.3f: %s\n", name_of[c], at, s.took[c],
				      rc == -1 ? "killed" : "ended first");
		if (rc == -1) {
			kills++;
			per[c]++;
		} else {
			early++;
			if (rc != s.status[c])
				fail_msg("%s exits %d, not %d:\n%s", name_of[c], rc, s.status[c],
					 fx_slurp("killed.log"));
		}
		check_after(&s, c, runs, tree);
	}
	print_message("stress: seed %llu: %ld kills (mutate %ld, reproduce %ld, bisect %ld, ledger merge"
		      " %ld, tdtrain %ld), %ld runs ended before their kill; every check held\n",
		      s.seed, kills, per[C_MUTATE], per[C_REPRODUCE], per[C_BISECT], per[C_MERGE],
		      per[C_TRAIN], early);
	free(s.ckpt);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_sigkill_at_any_moment_leaves_tree_ledger_and_checkpoint_sound),
};

TD_TEST_GROUP(stress, tests);
