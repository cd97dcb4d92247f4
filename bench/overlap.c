/*
 * overlap.c (build/bench/overlap) - tdaudit overlap's engine against a
 * straightforward Python 3 implementation of the same method
 * (bench/overlap.py), on two generated corpora, for exact-record detection
 * (--ngram 0) and for 13-grams: MB/s at one thread (both sides' bytes
 * over wall time, index build included), for C also over the run's CPU
 * time (user + system, MB/CPU-s: the per-core figure that a loaded shared
 * machine does not move much), and peak memory (getrusage ru_maxrss of the
 * process that ran it), side by side.
 *
 *   build/bench/overlap [--mb N] [--dir DIR] [--python-mb N] [--no-python] [--keep]
 *
 * The corpora (DIR, default /tmp/tdaudit-overlap-bench): train.txt of
 * 1.05 N MB and eval.txt of N MB (default N 200), records of 20 to 200
 * words from a 30000-word vocabulary, from a fixed seed. Every 1000th
 * eval record is a training record in capitals with doubled spaces (an
 * exact match under norm/1); every 1000th + 500 holds a run of 40 words of
 * a training record among 40 of its own (a 13-gram overlap, share 28/68).
 * The bench checks that both implementations find exactly those, and
 * deletes the corpora unless --keep.
 *
 * Each C measurement runs in a forked child, so that its ru_maxrss is its
 * own; Python runs through harness/proc.h and reports its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../harness/overlap.h"
#include "../harness/proc.h"

#define VOCAB 30000

static char vocab[VOCAB][12];

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void make_vocab(void)
{
	uint64_t s = 42;

	for (int i = 0; i < VOCAB; i++) {
		int len = 2 + (int)(rng_next(&s) % 9);

		for (int k = 0; k < len; k++)
			vocab[i][k] = (char)('a' + rng_next(&s) % 26);
		vocab[i][len] = '\0';
	}
}

/* Training record k: its words (indices into vocab), a pure function of k. */
static int train_words(uint64_t k, int *w)
{
	uint64_t s = k * UINT64_C(0x2545f4914f6cdd1d) + 1;
	int n = 20 + (int)(rng_next(&s) % 181);

	for (int i = 0; i < n; i++)
		w[i] = (int)(rng_next(&s) % VOCAB);
	return n;
}

static void put_words(FILE *f, const int *w, int n, int caps)
{
	for (int i = 0; i < n; i++) {
		const char *v = vocab[w[i]];

		if (i)
			fputs(caps ? "  " : " ", f);
		if (caps)
			for (; *v; v++)
				fputc(*v - 'a' + 'A', f);
		else
			fputs(v, f);
	}
	fputc('\n', f);
}

/* Writes train.txt and eval.txt; *n_train, *planted_exact, *planted_ngram. */
static int generate(const char *dir, double mb, long *n_train, long *n_exact, long *n_ngram)
{
	char path[4096];
	int w[256], own[256];
	FILE *f;
	uint64_t s = 7;
	long k;

	snprintf(path, sizeof path, "%s/train.txt", dir);
	if (!(f = fopen(path, "w")))
		return fprintf(stderr, "bench/overlap: %s: %s\n", path, strerror(errno)), -1;
	for (k = 0; ftell(f) < (long)(mb * 1.05e6); k++)
		put_words(f, w, train_words((uint64_t)k, w), 0);
	*n_train = k;
	if (fclose(f))
		return -1;
	snprintf(path, sizeof path, "%s/eval.txt", dir);
	if (!(f = fopen(path, "w")))
		return fprintf(stderr, "bench/overlap: %s: %s\n", path, strerror(errno)), -1;
	*n_exact = *n_ngram = 0;
	for (long i = 1; ftell(f) < (long)(mb * 1e6); i++) {
		uint64_t src = (uint64_t)(i * 7919) % (uint64_t)*n_train;

		if (i % 1000 == 0) {
			put_words(f, w, train_words(src, w), 1);
			++*n_exact;
			continue;
		}
		int n = 20 + (int)(rng_next(&s) % 181);

		for (int j = 0; j < n; j++)
			own[j] = (int)(rng_next(&s) % VOCAB); /* eval's own words: s, not k */
		if (i % 1000 == 500) {
			int m = train_words(src, w);

			while (m < 40) /* a short source: take a longer one */
				m = train_words(++src, w);
			for (int j = 0; j < 40; j++)
				own[20 + j] = w[j];
			for (int j = 0; j < 20; j++)
				own[60 + j] = (int)(rng_next(&s) % VOCAB);
			n = 80;
			++*n_ngram;
		}
		put_words(f, own, n, 0);
	}
	return fclose(f) ? -1 : 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
	double seconds;
	double cpu_seconds; /* user + system CPU time of the engine's run (C only) */
	long max_rss_kb;
	long hits, passing, entries;
	double bytes_per_entry;
	double filter_per_entry; /* the filter and the bitmap of slots seen in A */
} figure;

/*
 * This process's user + system CPU seconds so far: on a shared machine the
 * wall time mostly measures the others' load, the CPU time what the run
 * itself cost a core.
 */
static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Runs the engine in a forked child with ngram (0: off); its figures. */
static int run_c(figure *fg, const char *a, const char *b, int ngram)
{
	int fd[2];
	pid_t pid;
	struct rusage ru;
	int status;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		td_overlap_opts o = {.ngram = ngram ? ngram : -1, .jobs = 1};
		td_overlap_result *r = NULL;
		figure out = {0};
		double t0 = now(), c0 = cpu_now();

		close(fd[0]);
		if (td_overlap_run(&r, a, b, &o)) {
			fprintf(stderr, "bench/overlap: %s\n", td_error_last());
			_exit(2);
		}
		out.seconds = now() - t0;
		out.cpu_seconds = cpu_now() - c0;
		out.hits = (long)r->n_hits;
		out.passing = (long)r->n_passing;
		out.entries = (long)r->index_entries;
		out.bytes_per_entry = r->index_entries ? (double)r->index_bytes / (double)r->index_entries : 0;
		out.filter_per_entry = r->index_entries ? (double)r->filter_bytes / (double)r->index_entries : 0;
		if (write(fd[1], &out, sizeof out) != (ssize_t)sizeof out)
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], fg, sizeof *fg) != (ssize_t)sizeof *fg) {
		close(fd[0]);
		return -1;
	}
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	fg->max_rss_kb = ru.ru_maxrss;
	return 0;
}

/* Runs bench/overlap.py; reads its "python: seconds=... maxrss_kb=... hits=... passing=..." line. */
static int run_py(figure *fg, const char *dir, const char *a, const char *b, int ngram, double mb,
		  double *bytes)
{
	char log[4096], ng[16], lim[32], line[512];
	const char *argv[] = {"python3", "bench/overlap.py", a, b, "--ngram", ng, "--limit-mb", lim, NULL};
	td_proc_opts o = {.argv = argv, .out_path = log, .timeout_s = 3600};
	td_proc_result r;
	FILE *f;
	int found = 0;

	snprintf(log, sizeof log, "%s/python.log", dir);
	snprintf(ng, sizeof ng, "%d", ngram);
	snprintf(lim, sizeof lim, "%g", mb);
	unlink(log);
	if (td_proc_run(&r, &o) || !r.exited || r.status > 1)
		return fprintf(stderr, "bench/overlap: python3 bench/overlap.py failed (see %s)\n", log), -1;
	if (!(f = fopen(log, "r")))
		return -1;
	while (fgets(line, sizeof line, f))
		found |= sscanf(line, "python: seconds=%lf maxrss_kb=%ld hits=%ld passing=%ld bytes=%lf",
				&fg->seconds, &fg->max_rss_kb, &fg->hits, &fg->passing, bytes) == 5;
	fclose(f);
	return found ? 0 : -1;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp/tdaudit-overlap-bench";
	double mb = 200, py_mb = 0;
	int python = 1, keep = 0, bad = 0;
	long n_train, n_exact, n_ngram;
	char a[4096], b[4096];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mb") && i + 1 < argc)
			mb = atof(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--python-mb") && i + 1 < argc)
			py_mb = atof(argv[++i]);
		else if (!strcmp(argv[i], "--no-python"))
			python = 0;
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else
			return fprintf(stderr, "usage: bench/overlap [--mb N] [--dir DIR] [--python-mb N] "
					       "[--no-python] [--keep]\n"), 2;
	}
	mkdir(dir, 0755);
	make_vocab();
	double t0 = now();

	if (generate(dir, mb, &n_train, &n_exact, &n_ngram))
		return 2;
	snprintf(a, sizeof a, "%s/train.txt", dir);
	snprintf(b, sizeof b, "%s/eval.txt", dir);
	double bytes = (double)(file_size(a) + file_size(b));

	printf("corpora: %s %.1f MB (%ld records), %s %.1f MB; %ld exact and %ld 13-gram overlaps "
	       "planted; generated in %.1f s\n", a, (double)file_size(a) / 1e6, n_train, b,
	       (double)file_size(b) / 1e6, n_exact, n_ngram, now() - t0);
	printf("%-8s %-6s %10s %10s %10s %10s %8s %8s %8s\n", "detector", "impl", "seconds", "MB/s",
	       "CPU s", "MB/CPU-s", "peak MB", "hits", "passing");
	for (int pass = 0; pass < 2; pass++) {
		int ngram = pass ? 13 : 0;
		const char *name = pass ? "13-gram" : "exact";
		long want = pass ? n_exact + n_ngram : n_exact;
		figure c = {0}, p = {0};
		double py_bytes = bytes;

		if (run_c(&c, a, b, ngram))
			return fprintf(stderr, "bench/overlap: the C run failed\n"), 2;
		printf("%-8s %-6s %10.2f %10.1f %10.2f %10.1f %8.1f %8ld %8ld\n", name, "C", c.seconds,
		       bytes / 1e6 / c.seconds, c.cpu_seconds, bytes / 1e6 / c.cpu_seconds,
		       (double)c.max_rss_kb / 1024, c.hits, c.passing);
		if (ngram)
			printf("%-8s index: %ld distinct 13-grams, %.1f bytes of slots per entry (16 per slot), "
			       "%.2f of filter and bitmap\n", "", c.entries, c.bytes_per_entry, c.filter_per_entry);
		bad |= c.hits != want;
		if (!python)
			continue;
		if (run_py(&p, dir, a, b, ngram, py_mb, &py_bytes))
			return 2;
		printf("%-8s %-6s %10.2f %10.1f %10s %10s %8.1f %8ld %8ld%s\n", name, "Python", p.seconds,
		       py_bytes / 1e6 / p.seconds, "-", "-", (double)p.max_rss_kb / 1024, p.hits, p.passing,
		       py_mb > 0 ? " (on the first --python-mb of each side)" : "");
		printf("%-8s ratio  C/Python %.1fx faster, %.2fx the memory\n", name,
		       (bytes / c.seconds) / (py_bytes / p.seconds),
		       (double)c.max_rss_kb / (double)p.max_rss_kb);
		bad |= py_mb <= 0 && (p.hits != c.hits || p.passing != c.passing);
	}
	if (bad)
		printf("MISMATCH: the hits are not the %ld + %ld planted, or the two disagree\n", n_exact,
		       n_ngram);
	if (!keep) {
		unlink(a);
		unlink(b);
		snprintf(a, sizeof a, "%s/python.log", dir);
		unlink(a);
		rmdir(dir);
	}
	return bad;
}
