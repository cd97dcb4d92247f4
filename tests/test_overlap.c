/*
 * test_overlap.c - tdaudit overlap: the engine (harness/overlap.h) on small
 * files written in the test's directory, against a naive reference (every
 * 13-gram of every B record looked up in a sorted array of A's) on random
 * data with planted overlaps and near misses, and the built program end to
 * end on a corpus of a few MB generated here.
 *
 * Edits that break these tests (each made, seen failing, then restored;
 * all but the trailing comma are mutants in mutations/harness/overlap.lua,
 * so `tdaudit mutate --only 'overlap-*'` repeats the check):
 *   - classify32() storing the bytes as they came, not lowercased
 *     (normalisation skipped) -> an_exact_duplicate_is_found_whatever_its_case_and_spacing
 *   - json_record() accepting a trailing comma (seen: the first version
 *     did) -> bad_input_is_refused_naming_file_and_line
 *   - slot_mark() storing the line of whichever A record came last
 *     -> an_exact_duplicate_..., a_record_planted_in_a_large_corpus_...
 *   - measure_record() ignoring the boilerplate count
 *     -> ngrams_in_many_indexed_records_are_boilerplate_not_overlap
 *   - measure_record() counting the run in n-grams + ngram words, one too many
 *     -> a_shared_13_gram_is_measured_by_share_and_longest_run
 *   - find_relation() testing first == 0 for a prefix
 *     -> a_prefix_and_a_sub_range_are_named_as_such
 *   - stream_side() merging the chunks' hits last chunk first
 *     -> the_j_setting_never_changes_the_output
 *   - bad_bytes() letting a NUL byte through; json_record() accepting a
 *     line without the field -> bad_input_is_refused_naming_file_and_line
 *   - each of these (not mutants) -> every_ngram_figure_matches_a_naive_reference_on_random_data:
 *     ngram_keys() rolling in word j + n - 2 (the window off by one);
 *     gather_finish() reading the bitmap one bit on, keeping a candidate's
 *     highest A line, giving a repeat in a record SLOT_NONE, or letting a
 *     boilerplate key that passed the filter by mistake be a candidate;
 *     count_part() making a key held by exactly the limit boilerplate;
 *     measure_record() ignoring the count when A is indexed
 *   - pool_next() staying in a full chunk instead of following its bucket's
 *     chain (not a mutant) -> a_large_indexed_side_matches_the_naive_reference
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/error.h"
#include "../harness/overlap.h"
#include "fixture.h"

/* Writes n bytes of data to path (which may hold NUL bytes). */
static void put(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void puts_file(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

/* A deterministic word: "w" and a number below vocab. */
static uint64_t lcg = 1;
static unsigned next_word(unsigned vocab)
{
	lcg = lcg * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (unsigned)((lcg >> 33) % vocab);
}

/* Appends n random words ("w123 w9 ...") to f, or to buf when f is NULL. */
static void words(FILE *f, char *buf, size_t size, int n, const char *prefix)
{
	size_t len = buf ? strlen(buf) : 0;

	for (int i = 0; i < n; i++) {
		unsigned w = next_word(50000);

		if (f)
			fprintf(f, "%s%s%u", i ? " " : "", prefix, w);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%s%u", i || len ? " " : "",
						prefix, w);
	}
}

/* The offset of word n (0-based) of s, or its length when it has n words. */
static size_t word_offset(const char *s, int n)
{
	const char *p = s;

	for (int i = 0; i < n && p; i++)
		if ((p = strchr(p, ' ')))
			p++;
	return p ? (size_t)(p - s) : strlen(s) + 1;
}

/* Runs the engine; fails the test with its message when it fails. */
static td_overlap_result *run(const char *a, const char *b, const td_overlap_opts *o)
{
	td_overlap_result *r = NULL;

	if (td_overlap_run(&r, a, b, o) != 0)
		fail_msg("td_overlap_run: %s", td_error_last());
	return r;
}

static const td_overlap_hit *hit_at(const td_overlap_result *r, uint32_t b_line)
{
	for (size_t i = 0; i < r->n_hits; i++)
		if (r->hits[i].b_line == b_line)
			return &r->hits[i];
	return NULL;
}

/* Runs build/tdaudit with args in run/ (paths are relative to it: "../a"); exit status. */
static int tdaudit(const char *log, const char *const *args)
{
	mkdir("run", 0755);
	return fx_tdaudit("run", log, args);
}

static void test_an_exact_duplicate_is_found_whatever_its_case_and_spacing(void **state)
{
	td_overlap_result *r;
	const td_overlap_hit *h;

	(void)state;
	/* A holds B's line 2 twice: the first A line is named, whatever the order of marking */
	puts_file("a.txt", "alpha beta gamma\n"
			   "The quick brown fox -- jumps over the lazy dog!\n"
			   "one two three four\n"
			   "five six seven eight nine\n"
			   "the quick brown fox jumps over the lazy dog\n"
			   "ten eleven twelve thirteen fourteen fifteen sixteen seventeen\n");
	puts_file("b.txt", "nothing like the other side\n"
			   "  THE Quick\tbrown fox, jumps over  the lazy dog.\r\n");
	r = run("a.txt", "b.txt", NULL);
	assert_int_equal(r->indexed_b, 1);
	assert_int_equal(r->n_hits, 1);
	h = hit_at(r, 2);
	assert_non_null(h);
	assert_true(h->detectors & TD_OVERLAP_EXACT);
	assert_int_equal(h->a_exact, 2);
	assert_true(h->passes);
	assert_int_equal(r->n_passing, 1);
	td_overlap_result_free(r);

	/* the other way round (A indexed) finds the same pair */
	r = run("b.txt", "a.txt", NULL);
	assert_int_equal(r->indexed_b, 0);
	assert_int_equal(r->n_hits, 2);
	assert_int_equal(hit_at(r, 2)->a_exact, 2);
	assert_int_equal(hit_at(r, 5)->a_exact, 2);
	td_overlap_result_free(r);
}

static void test_the_same_id_on_both_sides_is_a_match(void **state)
{
	td_overlap_result *r;
	td_overlap_opts o = {.field = "text"};
	const td_overlap_hit *h;

	(void)state;
	puts_file("a.jsonl", "{\"id\": \"q-1\", \"text\": \"what is two plus two\"}\n"
			     "{\"text\": \"no id here at all\", \"id\": null}\n"
			     "{\"meta\": {\"x\": [1, 2, {\"y\": \"}\"}]}, \"id\": 77, \"text\": \"a b\"}\n");
	puts_file("b.jsonl", "{\"id\": \"q-9\", \"text\": \"completely different words\"}\n"
			     "\n"
			     "{\"text\": \"other words \\u00e9 \\ud83d\\ude00\", \"id\": 77}\n");
	r = run("a.jsonl", "b.jsonl", &o);
	assert_int_equal(r->b.records, 2);
	assert_int_equal(r->n_hits, 1);
	h = hit_at(r, 3);
	assert_non_null(h);
	assert_int_equal(h->detectors, TD_OVERLAP_ID);
	assert_int_equal(h->a_id, 3);
	assert_true(h->passes);
	td_overlap_result_free(r);

	/* --id names another field: then nothing matches */
	o.id_field = "meta";
	r = run("a.jsonl", "b.jsonl", &o);
	assert_int_equal(r->n_hits, 0);
	td_overlap_result_free(r);
}

static void test_a_shared_13_gram_is_measured_by_share_and_longest_run(void **state)
{
	char a[4][2048] = {{0}}, b[2][2048] = {{0}}, text[16384], copied[1024] = "";
	td_overlap_result *r;
	const td_overlap_hit *h;
	const char *p;

	(void)state;
	lcg = 7;
	for (int i = 0; i < 4; i++)
		words(NULL, a[i], sizeof a[i], 40, "a");
	/* words 6..20 of A's line 3 (15 words) inside 20 + 10 words of B's own */
	p = a[2] + word_offset(a[2], 5);
	memcpy(copied, p, word_offset(p, 15) - 1);
	words(NULL, b[0], sizeof b[0], 40, "b");
	words(NULL, b[1], sizeof b[1], 20, "b");
	snprintf(b[1] + strlen(b[1]), sizeof b[1] - strlen(b[1]), " %s", copied);
	words(NULL, b[1], sizeof b[1], 10, "b");
	snprintf(text, sizeof text, "%s\n%s\n%s\n%s\n", a[0], a[1], a[2], a[3]);
	puts_file("a.txt", text);
	snprintf(text, sizeof text, "%s\n%s\n", b[0], b[1]);
	puts_file("b.txt", text);

	r = run("a.txt", "b.txt", NULL);
	assert_int_equal(r->n_hits, 1);
	h = hit_at(r, 2);
	assert_non_null(h);
	assert_int_equal(h->detectors, TD_OVERLAP_NGRAM);
	assert_int_equal(h->n_grams, 45 - 13 + 1);
	assert_int_equal(h->n_matched, 15 - 13 + 1);
	assert_int_equal(h->run, 15);
	assert_int_equal(h->a_ngram, 3);
	assert_true(h->share > 3.0 / 33 - 1e-12 && h->share < 3.0 / 33 + 1e-12);
	assert_false(h->passes);
	assert_int_equal(r->n_passing, 0);
	td_overlap_result_free(r);

	/* A indexed (A now the smaller file): the same figures */
	r = run("b.txt", "a.txt", NULL);
	h = hit_at(r, 3);
	assert_non_null(h);
	assert_int_equal(h->n_matched, 3);
	assert_int_equal(h->n_grams, 28);
	assert_int_equal(h->run, 15);
	assert_int_equal(h->a_ngram, 2);
	td_overlap_result_free(r);

	/* with 5-grams the 15 shared words are 11 matched positions */
	td_overlap_opts o = {.ngram = 5};
	r = run("a.txt", "b.txt", &o);
	h = hit_at(r, 2);
	assert_non_null(h);
	assert_int_equal(h->n_matched, 11);
	assert_int_equal(h->run, 15);
	td_overlap_result_free(r);
}

/* A: 150 records sharing a 20-word header; B: 400 records, line 9 holding the header. */
static void write_boilerplate_sides(void)
{
	char header[1024] = "";
	FILE *a = fopen("a.txt", "w"), *b = fopen("b.txt", "w");

	assert_non_null(a);
	assert_non_null(b);
	lcg = 11;
	words(NULL, header, sizeof header, 20, "h");
	for (int i = 0; i < 150; i++) {
		fprintf(a, "%s ", header);
		words(a, NULL, 0, 20, "a");
		fputc('\n', a);
	}
	for (int i = 1; i <= 400; i++) {
		words(b, NULL, 0, 30, "b");
		if (i == 9)
			fprintf(b, " %s", header);
		fputc('\n', b);
	}
	assert_int_equal(fclose(a), 0);
	assert_int_equal(fclose(b), 0);
}

static void test_ngrams_in_many_indexed_records_are_boilerplate_not_overlap(void **state)
{
	td_overlap_result *r;
	td_overlap_opts o = {.boilerplate = 1000};
	const char *args[] = {"overlap", "../a.txt", "../b.txt", NULL};

	(void)state;
	write_boilerplate_sides();
	r = run("a.txt", "b.txt", NULL);
	assert_int_equal(r->indexed_b, 0);
	assert_int_equal(r->boilerplate_ngrams, 20 - 13 + 1);
	assert_int_equal(r->n_hits, 0);
	td_overlap_result_free(r);
	assert_int_equal(tdaudit("bp.log", args), 0);
	if (!strstr(fx_slurp("bp.log"), "boilerplate: 8 distinct 13-grams"))
		fail_msg("no boilerplate count:\n%s", fx_slurp("bp.log"));

	/* the control: with a higher limit the header is overlap */
	r = run("a.txt", "b.txt", &o);
	assert_int_equal(r->boilerplate_ngrams, 0);
	assert_int_equal(r->n_hits, 1);
	assert_int_equal(r->hits[0].b_line, 9);
	assert_int_equal(r->hits[0].n_matched, 8);
	assert_int_equal(r->hits[0].run, 20);
	td_overlap_result_free(r);
}

/* Writes the 20 words "<prefix>0 <prefix>1 ... <prefix>19" (a phrase no random record holds). */
static void phrase(FILE *f, const char *prefix, int lead)
{
	for (int i = 0; i < 20; i++)
		fprintf(f, "%s%s%d", i || lead ? " " : "", prefix, i);
}

/*
 * b.txt, the indexed side: 600 records of 60 words, more n-grams than one
 * batch of the index build holds (16384), so that records 100 and 340
 * are counted in one batch and 450, 500 and 550 in the next. Records 100,
 * 340 and 500 hold the phrase p twice, 550 once: p's 13-grams are in 4
 * records. Record 450 holds the phrase q twice. a.txt, streamed: 1500
 * records of other words, line 7 p then q.
 */
static void write_batched_sides(void)
{
	FILE *a = fopen("a.txt", "w"), *b = fopen("b.txt", "w");

	assert_non_null(a);
	assert_non_null(b);
	for (int i = 1; i <= 600; i++) {
		int twice = i == 100 || i == 340 || i == 500 || i == 450;

		words(b, NULL, 0, twice || i == 550 ? 10 : 60, "b");
		if (twice || i == 550)
			phrase(b, i == 450 ? "q" : "p", 1);
		if (twice)
			phrase(b, i == 450 ? "q" : "p", 1);
		if (twice || i == 550)
			fprintf(b, " "), words(b, NULL, 0, i == 550 ? 30 : 10, "b");
		fputc('\n', b);
	}
	for (int i = 1; i <= 1500; i++) {
		if (i == 7) {
			phrase(a, "p", 0);
			phrase(a, "q", 1);
		} else {
			words(a, NULL, 0, 60, "a");
		}
		fputc('\n', a);
	}
	assert_int_equal(fclose(a), 0);
	assert_int_equal(fclose(b), 0);
}

static void test_an_ngram_counts_once_a_record_across_the_index_builds_batches(void **state)
{
	td_overlap_opts o1 = {.boilerplate = 3, .jobs = 1}, o3 = {.boilerplate = 3, .jobs = 3};
	td_overlap_result *r1, *r3;
	char *t1, *t3;

	(void)state;
	write_batched_sides();
	r1 = run("a.txt", "b.txt", &o1);
	assert_int_equal(r1->indexed_b, 1);
	assert_true(r1->index_entries > 16384);
	/* p's 8 13-grams are in 4 records of B (twice in 3 of them), more than 3 */
	assert_int_equal(r1->boilerplate_ngrams, 8);
	assert_int_equal(r1->n_hits, 1);
	assert_int_equal(r1->hits[0].b_line, 450);
	assert_int_equal(r1->hits[0].a_ngram, 7);
	assert_int_equal(r1->hits[0].n_grams, 10 + 40 + 10 - 12);
	assert_int_equal(r1->hits[0].n_matched, 16); /* both of q's copies */
	assert_int_equal(r1->hits[0].run, 20);
	r3 = run("a.txt", "b.txt", &o3);
	assert_int_equal(td_overlap_report_text(&t1, NULL, r1), 0);
	assert_int_equal(td_overlap_report_text(&t3, NULL, r3), 0);
	assert_string_equal(t1, t3);
	free(t1);
	free(t3);
	td_overlap_result_free(r1);
	td_overlap_result_free(r3);
}

static void test_a_prefix_and_a_sub_range_are_named_as_such(void **state)
{
	FILE *a = fopen("a.txt", "w"), *pre = fopen("pre.txt", "w"), *sub = fopen("sub.txt", "w");
	td_overlap_result *r;
	char rel[256];
	const char *args[] = {"overlap", "../a.txt", "../pre.txt", NULL};

	(void)state;
	lcg = 3;
	for (int i = 1; i <= 600; i++) {
		char line[1024] = "";

		words(NULL, line, sizeof line, 12, "x");
		fprintf(a, "%s\n", line);
		if (i <= 500)
			fprintf(pre, "%s\n", line);
		if (i >= 41 && i <= 90)
			fprintf(sub, "%s\n", line);
	}
	assert_int_equal(fclose(a), 0);
	assert_int_equal(fclose(pre), 0);
	assert_int_equal(fclose(sub), 0);

	r = run("a.txt", "pre.txt", NULL);
	assert_int_equal(r->relation, TD_OVERLAP_REL_PREFIX);
	assert_int_equal(r->relation_b_in_a, 1);
	assert_int_equal(r->rel_first, 1);
	assert_int_equal(r->rel_last, 500);
	assert_string_equal(td_overlap_relation_text(rel, sizeof rel, r),
			    "B is lines 1..500 of A: a prefix");
	assert_int_equal(r->n_hits, 500);
	td_overlap_result_free(r);

	r = run("a.txt", "sub.txt", NULL);
	assert_int_equal(r->relation, TD_OVERLAP_REL_SUBRANGE);
	assert_string_equal(td_overlap_relation_text(rel, sizeof rel, r),
			    "B is lines 41..90 of A: a sub-range");
	td_overlap_result_free(r);

	r = run("sub.txt", "a.txt", NULL); /* the training side inside the evaluation side */
	assert_string_equal(td_overlap_relation_text(rel, sizeof rel, r),
			    "A is lines 41..90 of B: a sub-range");
	td_overlap_result_free(r);

	r = run("a.txt", "a.txt", NULL);
	assert_int_equal(r->relation, TD_OVERLAP_REL_SAME);
	td_overlap_result_free(r);

	assert_int_equal(tdaudit("rel.log", args), 1);
	if (!strstr(fx_slurp("rel.log"), "relation: B is lines 1..500 of A: a prefix\n"))
		fail_msg("no prefix line:\n%.2000s", fx_slurp("rel.log"));
}

static void test_disjoint_sides_report_nothing_and_exit_0(void **state)
{
	FILE *a = fopen("a.txt", "w"), *b = fopen("b.txt", "w");
	td_overlap_result *r;
	const char *args[] = {"overlap", "../a.txt", "../b.txt", "--json", "../d.json", NULL};

	(void)state;
	lcg = 5;
	for (int i = 0; i < 300; i++) {
		words(a, NULL, 0, 30, "a");
		fputc('\n', a);
		words(b, NULL, 0, 30, "b");
		fputc('\n', b);
	}
	assert_int_equal(fclose(a), 0);
	assert_int_equal(fclose(b), 0);
	r = run("a.txt", "b.txt", NULL);
	assert_int_equal(r->n_hits, 0);
	assert_int_equal(r->relation, TD_OVERLAP_REL_NONE);
	td_overlap_result_free(r);
	assert_int_equal(tdaudit("d.log", args), 0);
	if (!strstr(fx_slurp("d.log"), "total: 0 of 300 records of B overlap A; 0 pass"))
		fail_msg("no total:\n%s", fx_slurp("d.log"));
	if (!strstr(fx_slurp("d.json"), "\"schema\":\"tdaudit.overlap/1\"") ||
	    !strstr(fx_slurp("d.json"), "\"hits\":[]"))
		fail_msg("not the JSON report:\n%s", fx_slurp("d.json"));
}

/*
 * big.txt: 40000 lines of 12 words (about 3.5 MB); small.txt: 200 lines,
 * where line 77 is big's line 23456 in capitals with doubled spaces, line
 * 150 holds 15 words of big's line 31000 among 15 of its own (a share of 3/18), and line 10 is big's lines 100
 * and 35000 (the same text twice in big).
 */
static void write_big_corpus(void)
{
	FILE *big = fopen("big.txt", "w"), *small = fopen("small.txt", "w");
	static char keep[40001][256];

	assert_non_null(big);
	assert_non_null(small);
	lcg = 99;
	for (int i = 1; i <= 40000; i++) {
		keep[i][0] = '\0';
		words(NULL, keep[i], sizeof keep[i], i == 31000 ? 25 : 12, "t");
		if (i == 35000)
			memcpy(keep[i], keep[100], sizeof keep[i]);
		fprintf(big, "%s\n", keep[i]);
	}
	for (int i = 1; i <= 200; i++) {
		if (i == 77) {
			for (const char *p = keep[23456]; *p; p++)
				fprintf(small, *p == ' ' ? "  " : "%c", *p == 't' ? 'T' : *p);
		} else if (i == 150) {
			words(small, NULL, 0, 5, "s");
			fprintf(small, " %.*s ", (int)word_offset(keep[31000], 15) - 1, keep[31000]);
			words(small, NULL, 0, 10, "s");
		} else if (i == 10) {
			fputs(keep[100], small);
		} else {
			words(small, NULL, 0, 12, "s");
		}
		fputc('\n', small);
	}
	assert_int_equal(fclose(big), 0);
	assert_int_equal(fclose(small), 0);
}

static void test_a_record_planted_in_a_large_corpus_is_found_and_its_line_named(void **state)
{
	const char *args[] = {"overlap", "../big.txt", "../small.txt", "-j", "2", NULL};
	const char *out;

	(void)state;
	write_big_corpus();
	assert_int_equal(tdaudit("big.log", args), 1);
	out = fx_slurp("big.log");
	if (!strstr(out, "\nB:77\tA:23456\texact\tshare 1.000") ||
	    !strstr(out, "\nB:10\tA:100\texact") || !strstr(out, "\nB:150\tA:31000\tngram\t"))
		fail_msg("the planted records are not named:\n%s", out);
	if (!strstr(out, "total: 3 of 200 records of B overlap A; 2 pass the threshold"))
		fail_msg("not three overlaps:\n%s", out);
}

static void test_the_j_setting_never_changes_the_output(void **state)
{
	const char *j1[] = {"overlap", "../big.txt", "../small.txt", "-j", "1", "--json", "../1.json", NULL};
	const char *j4[] = {"overlap", "../big.txt", "../small.txt", "-j", "4", "--json", "../4.json", NULL};
	const char *r1[] = {"overlap", "../small.txt", "../big.txt", "-j", "1", "--json", "../r1.json", NULL};
	const char *r4[] = {"overlap", "../small.txt", "../big.txt", "-j", "4", "--json", "../r4.json", NULL};
	char *x;

	(void)state;
	write_big_corpus();
	assert_int_equal(tdaudit("j1.log", j1), 1);
	assert_int_equal(tdaudit("j4.log", j4), 1);
	assert_int_equal(tdaudit("r1.log", r1), 1);
	assert_int_equal(tdaudit("r4.log", r4), 1);
	x = strdup(fx_slurp("j1.log"));
	assert_string_equal(x, fx_slurp("j4.log"));
	free(x);
	x = strdup(fx_slurp("1.json"));
	assert_string_equal(x, fx_slurp("4.json"));
	free(x);
	/* big streamed as B in 4 chunks: hits from several chunks, merged in line order */
	x = strdup(fx_slurp("r1.log"));
	if (!strstr(x, "\nB:100\tA:10\t") || !strstr(x, "\nB:23456\tA:77\t") ||
	    !strstr(x, "\nB:35000\tA:10\t"))
		fail_msg("the reversed run misses a hit:\n%s", x);
	assert_string_equal(x, fx_slurp("r4.log"));
	free(x);
	x = strdup(fx_slurp("r1.json"));
	assert_string_equal(x, fx_slurp("r4.json"));
	free(x);
}

/*
 * long.txt: a short line, one line of 120,000 words (about 900 KB, more
 * than three of the engine's read blocks, so its buffer must grow) and a
 * last line without its newline; other.txt: 30 words from the middle of
 * the long line among 10 of its own, then long.txt's last line, then
 * filler lines. With few fillers other.txt is indexed and long.txt read
 * in chunks; with many, long.txt is indexed.
 */
static void write_long_line_sides(int fillers)
{
	static char tail[512];
	char *mid = malloc(1 << 12);
	FILE *lf = fopen("long.txt", "w"), *of = fopen("other.txt", "w");

	assert_non_null(mid);
	assert_non_null(lf);
	assert_non_null(of);
	lcg = 77;
	mid[0] = tail[0] = '\0';
	words(lf, NULL, 0, 12, "s");
	fputc('\n', lf);
	words(lf, NULL, 0, 60000, "l");
	words(NULL, mid, 1 << 12, 30, "m");
	fprintf(lf, " %s ", mid);
	words(lf, NULL, 0, 60000, "l");
	fputc('\n', lf);
	words(NULL, tail, sizeof tail, 15, "t");
	fputs(tail, lf);
	words(of, NULL, 0, 10, "o");
	fprintf(of, " %s\n%s\n", mid, tail);
	for (int i = 0; i < fillers; i++) {
		words(of, NULL, 0, 12, "f");
		fputc('\n', of);
	}
	assert_int_equal(fclose(lf), 0);
	assert_int_equal(fclose(of), 0);
	free(mid);
}

static void test_a_line_longer_than_the_read_buffer_is_one_record(void **state)
{
	(void)state;
	for (int fillers = 0; fillers <= 15000; fillers += 15000) {
		write_long_line_sides(fillers);
		for (int jobs = 1; jobs <= 3; jobs += 2) {
			td_overlap_opts o = {.jobs = jobs};
			td_overlap_result *r = run("long.txt", "other.txt", &o);
			const td_overlap_hit *h1 = hit_at(r, 1), *h2 = hit_at(r, 2);

			assert_int_equal(r->indexed_b, fillers == 0);
			assert_int_equal(r->a.lines, 3);
			assert_int_equal(r->b.lines, 2 + (uint32_t)fillers);
			if (!h1 || h1->a_ngram != 2 || h1->n_matched != 30 - 13 + 1 || h1->run != 30 ||
			    !h2 || h2->a_exact != 3 || r->n_hits != 2)
				fail_msg("fillers %d, jobs %d: %zu hits; B:1 %s, B:2 %s", fillers, jobs,
					 r->n_hits, h1 ? "found" : "missed", h2 ? "found" : "missed");
			td_overlap_result_free(r);
		}
	}
}

/* Runs overlap on a and b; expects exit 2 and every needle in the message. */
static void refused(const char *a, const char *b, const char *field, const char *n1,
		    const char *n2)
{
	const char *args[] = {"overlap", a, b, field ? "--field" : NULL, field, NULL};
	const char *out;

	if (tdaudit("bad.log", args) != 2)
		fail_msg("overlap %s %s: not exit 2:\n%s", a, b, fx_slurp("bad.log"));
	out = fx_slurp("bad.log");
	if (!strstr(out, n1) || (n2 && !strstr(out, n2)))
		fail_msg("overlap %s %s: the message lacks \"%s\" / \"%s\":\n%s", a, b, n1,
			 n2 ? n2 : "", out);
}

static void test_bad_input_is_refused_naming_file_and_line(void **state)
{
	(void)state;
	puts_file("good.txt", "one two three\nfour five six\n");
	puts_file("empty.txt", "");
	puts_file("blank.txt", "\n  \n\n");
	FILE *f = fopen("nul.txt", "w"); /* 60 lines, then a NUL: larger than good.txt, so streamed */

	assert_non_null(f);
	for (int i = 1; i <= 60; i++)
		fprintf(f, "fine line %d\n", i);
	assert_int_equal(fwrite("bin\0ary\n", 1, 8, f), 8);
	assert_int_equal(fclose(f), 0);
	put("nul1.txt", "bin\0ary\n", sizeof "bin\0ary\n" - 1);
	puts_file("utf8.txt", "caf\xc3\xa9 ok\nbad \xc3\x28 here\n");
	puts_file("over.txt", "overlong \xc0\xaf slash\n");
	puts_file("good.jsonl", "{\"text\": \"a b c\"}\n");
	puts_file("broken.jsonl", "{\"text\": \"a\"}\n{\"text\": \"b\"}\n\n{\"text\": \"c\",}\n");
	puts_file("nofield.jsonl", "{\"text\": \"a\"}\n{\"body\": \"b\"}\n");
	puts_file("array.jsonl", "[\"text\", \"a\"]\n");
	puts_file("number.jsonl", "{\"text\": 12}\n");

	refused("../missing.txt", "../good.txt", NULL, "../missing.txt: cannot open", NULL);
	refused("../good.txt", "../empty.txt", NULL, "../empty.txt: empty", NULL);
	refused("../blank.txt", "../good.txt", NULL, "../blank.txt: no records", NULL);
	refused("../good.txt", "../nul1.txt", NULL, "../nul1.txt:1: a NUL byte at column 4", NULL);
	refused("../nul.txt", "../good.txt", NULL, "../nul.txt:61: a NUL byte at column 4", NULL);
	refused("../utf8.txt", "../good.txt", NULL, "../utf8.txt:2: invalid UTF-8 at column 5",
		NULL);
	refused("../good.txt", "../over.txt", NULL, "../over.txt:1: invalid UTF-8", NULL);
	refused("../good.jsonl", "../broken.jsonl", "text", "../broken.jsonl:4: not valid JSON",
		NULL);
	refused("../nofield.jsonl", "../good.jsonl", "text", "../nofield.jsonl:2: no field \"text\"",
		NULL);
	refused("../good.jsonl", "../array.jsonl", "text", "../array.jsonl:1: not a JSON object",
		NULL);
	refused("../good.jsonl", "../number.jsonl", "text",
		"../number.jsonl:1: field \"text\" is not a string", NULL);
	refused("../good.txt", NULL, NULL, "give two files", NULL);
}

/* ---- the engine against a naive reference ------------------------------ */

#define REF_N 13
#define REF_VOCAB 5000
#define REF_MAXW 128

/* One record: word numbers (written "w123"); n 0: a blank line. */
typedef struct {
	int n;
	int w[REF_MAXW];
} ref_rec;

/* An n-gram occurrence: its first word and the line of its record. */
typedef struct {
	const int *w;
	uint32_t line;
} ref_gram;

static int ref_gram_cmp(const void *x, const void *y)
{
	const ref_gram *a = x, *b = y;
	int c = memcmp(a->w, b->w, REF_N * sizeof *a->w); /* an order: any will do, but a total one */

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Every n-gram of every record of recs[0, n), sorted by words, then line; *count. */
static ref_gram *ref_grams(const ref_rec *recs, int n, size_t *count)
{
	size_t k = 0, cap = 0;
	ref_gram *g;

	for (int i = 0; i < n; i++)
		cap += recs[i].n >= REF_N ? (size_t)(recs[i].n - REF_N + 1) : 0;
	g = malloc((cap + 1) * sizeof *g);
	assert_non_null(g);
	for (int i = 0; i < n; i++)
		for (int j = 0; j + REF_N <= recs[i].n; j++)
			g[k++] = (ref_gram){recs[i].w + j, (uint32_t)i + 1};
	qsort(g, k, sizeof *g, ref_gram_cmp);
	*count = k;
	return g;
}

/* The first of g[0, n) with the words at w, or NULL. */
static const ref_gram *ref_find(const ref_gram *g, size_t n, const int *w)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (memcmp(g[mid].w, w, REF_N * sizeof *w) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !memcmp(g[lo].w, w, REF_N * sizeof *w) ? &g[lo] : NULL;
}

/* How many records hold the n-gram at w (g sorted, each record's lines together). */
static uint32_t ref_records(const ref_gram *g, size_t n, const int *w)
{
	const ref_gram *p = ref_find(g, n, w);
	uint32_t c = 0;

	for (const ref_gram *q = p; q && q < g + n && !memcmp(q->w, w, REF_N * sizeof *w); q++)
		c += q == p || q[-1].line != q->line;
	return c;
}

/* Writes recs as text, one record a line ("w1 w2 ..."; a blank line for n 0). */
static void ref_write(const char *path, const ref_rec *recs, int n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < recs[i].n; j++)
			fprintf(f, "%sw%d", j ? " " : "", recs[i].w[j]);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
}

/* Copies len words of A record src (from word from) into r at word at. */
static void ref_copy(ref_rec *r, const ref_rec *src, int from, int at, int len)
{
	memcpy(r->w + at, src->w + from, (size_t)len * sizeof *r->w);
}

/*
 * Random records of lo..hi words, with overlaps planted in B: spans of A of
 * 13 to 30 words, the same span twice in one record, whole A records, and
 * near misses (12 words of A; 13 with one word changed), a phrase of 40
 * words in many records of each side (boilerplate at 4: 28 n-grams, so
 * that some pass B's filter by mistake) and one of 16 in exactly 4 (not),
 * and blank lines.
 */
static void ref_make(ref_rec *ra, int na, ref_rec *rb, int nb, int lo_a, int lo_b)
{
	int phrase[2][40]; /* 28 and 4 n-grams */

	for (int k = 0; k < 40; k++) {
		phrase[0][k] = k + 1;
		phrase[1][k] = k + 51;
	}

	for (int side = 0; side < 2; side++) {
		ref_rec *rs = side ? rb : ra;
		int n = side ? nb : na, lo = side ? lo_b : lo_a;

		for (int i = 0; i < n; i++) {
			rs[i].n = next_word(40) == 0 ? 0 : lo + (int)next_word(80);
			for (int j = 0; j < rs[i].n; j++)
				rs[i].w[j] = 100 + (int)next_word(REF_VOCAB);
		}
	}
	for (int i = 0; i < nb; i++) {
		const ref_rec *src = &ra[next_word((unsigned)na)];
		ref_rec *r = &rb[i];
		unsigned kind = next_word(8);
		int len = kind == 0 ? 12 : 13 + (int)next_word(18);

		if (kind == 7 && src->n) {
			*r = *src; /* a whole record: exact */
			continue;
		}
		if (kind >= 5 || r->n < len + 1 || src->n < len)
			continue;
		int from = (int)next_word((unsigned)(src->n - len + 1)), at = (int)next_word((unsigned)(r->n - len + 1));

		ref_copy(r, src, from, at, len);
		if (kind == 1) /* a near miss: one word off */
			r->w[at + (int)next_word((unsigned)len)] = 100 + REF_VOCAB + (int)next_word(50);
		if (kind == 2 && r->n >= 2 * len) /* twice in the record */
			ref_copy(r, src, from, r->n - len, len);
	}
	for (int side = 0, held = 0; side < 2; side++, held = 0) {
		ref_rec *rs = side ? rb : ra;

		for (int i = 0; i < (side ? nb : na); i++) {
			if (rs[i].n >= 45 && i % 97 < 9)
				memcpy(rs[i].w + 2, phrase[0], sizeof phrase[0]);
			if (rs[i].n >= 65 && held < 4 && ++held) /* in exactly the limit: not boilerplate */
				memcpy(rs[i].w + 48, phrase[1], 16 * sizeof phrase[1][0]);
		}
	}
}

/* The hit the reference expects for B record i (line i + 1); 0 when none. */
static int ref_hit(td_overlap_hit *h, const ref_rec *ra, int na, const ref_rec *rb, int i,
		   const ref_gram *ga, size_t nga, const ref_gram *gi, size_t ngi, uint32_t bp)
{
	const ref_rec *r = &rb[i];
	uint32_t lines[REF_MAXW], best_n = 0;
	size_t nl = 0, cur = 0, best = 0;

	memset(h, 0, sizeof *h);
	h->b_line = (uint32_t)i + 1;
	for (int k = 0; k < na && r->n && !h->a_exact; k++)
		if (ra[k].n == r->n && !memcmp(ra[k].w, r->w, (size_t)r->n * sizeof *r->w))
			h->a_exact = (uint32_t)k + 1;
	for (int j = 0; j + REF_N <= r->n; j++) {
		const ref_gram *g = ref_find(ga, nga, r->w + j);

		if (g && ref_records(gi, ngi, r->w + j) <= bp) {
			lines[nl++] = g->line;
			best = ++cur > best ? cur : best;
		} else {
			cur = 0;
		}
	}
	h->n_grams = r->n >= REF_N ? (uint32_t)(r->n - REF_N + 1) : 0;
	h->n_matched = (uint32_t)nl;
	for (size_t k = 0; k < nl; k++) { /* the mode, ties the lowest: quadratic, plainly */
		uint32_t c = 0;

		for (size_t m = 0; m < nl; m++)
			c += lines[m] == lines[k];
		if (c > best_n || (c == best_n && lines[k] < h->a_ngram)) {
			best_n = c;
			h->a_ngram = lines[k];
		}
	}
	if (nl) {
		h->detectors |= TD_OVERLAP_NGRAM;
		h->share = (double)nl / (double)h->n_grams;
		h->run = (uint32_t)(best + REF_N - 1);
	}
	if (h->a_exact) {
		h->detectors |= TD_OVERLAP_EXACT;
		h->share = 1;
		h->run = (uint32_t)r->n;
	}
	h->passes = h->a_exact || h->share >= 0.5;
	return h->detectors != 0;
}

/* Runs the engine on ra/rb at jobs 1 and 2 and checks every figure against the reference. */
static void ref_check(const ref_rec *ra, int na, const ref_rec *rb, int nb, int indexed_b)
{
	size_t nga, ngb, n_hits = 0, distinct = 0, boiler = 0;
	ref_gram *ga = ref_grams(ra, na, &nga), *gb = ref_grams(rb, nb, &ngb);
	const ref_gram *gi = indexed_b ? gb : ga;
	size_t ngi = indexed_b ? ngb : nga;
	td_overlap_hit want;

	for (size_t k = 0; k < ngi; k++) /* the indexed side's distinct n-grams and boilerplate */
		if (k == 0 || memcmp(gi[k - 1].w, gi[k].w, REF_N * sizeof *gi[k].w)) {
			distinct++;
			boiler += ref_records(gi, ngi, gi[k].w) > 4;
		}
	assert_true(boiler > 0);
	for (int jobs = 1; jobs <= 2; jobs++) {
		td_overlap_opts o = {.boilerplate = 4, .jobs = jobs};
		td_overlap_result *r = run("a.txt", "b.txt", &o);

		assert_int_equal(r->indexed_b, indexed_b);
		assert_int_equal(r->index_entries, distinct);
		assert_int_equal(r->boilerplate_ngrams, boiler);
		n_hits = 0;
		for (int i = 0; i < nb; i++) {
			if (!ref_hit(&want, ra, na, rb, i, ga, nga, gi, ngi, 4))
				continue;
			assert_true(n_hits < r->n_hits);
			const td_overlap_hit *h = &r->hits[n_hits++];

			if (h->b_line != want.b_line || h->detectors != want.detectors ||
			    h->a_exact != want.a_exact || h->a_ngram != want.a_ngram ||
			    h->n_grams != want.n_grams || h->n_matched != want.n_matched ||
			    h->run != want.run || h->share != want.share || h->passes != want.passes)
				fail_msg("B:%u (jobs %d): engine B:%u det %u exact %u ngram %u %u/%u run %u, "
					 "reference det %u exact %u ngram %u %u/%u run %u", want.b_line, jobs,
					 h->b_line, h->detectors, h->a_exact, h->a_ngram, h->n_matched,
					 h->n_grams, h->run, want.detectors, want.a_exact, want.a_ngram,
					 want.n_matched, want.n_grams, want.run);
		}
		assert_int_equal(r->n_hits, n_hits);
		td_overlap_result_free(r);
	}
	assert_true(n_hits > 100); /* the planted overlaps were there to find */
	free(ga);
	free(gb);
}

static void test_every_ngram_figure_matches_a_naive_reference_on_random_data(void **state)
{
	ref_rec *ra = calloc(3000, sizeof *ra), *rb = calloc(3000, sizeof *rb);

	(void)state;
	assert_non_null(ra);
	assert_non_null(rb);
	lcg = 12345;
	ref_make(ra, 3000, rb, 2500, 20, 5); /* B the smaller: B indexed, the gathered build */
	ref_write("a.txt", ra, 3000);
	ref_write("b.txt", rb, 2500);
	ref_check(ra, 3000, rb, 2500, 1);
	ref_make(ra, 1500, rb, 2500, 5, 5); /* A the smaller: A indexed */
	ref_write("a.txt", ra, 1500);
	ref_write("b.txt", rb, 2500);
	ref_check(ra, 1500, rb, 2500, 0);
	free(ra);
	free(rb);
}

/*
 * The same on an indexed side of 450,000 n-gram positions, enough that each
 * of the gathered build's buckets spans more than one chunk of keys.
 */
static void test_a_large_indexed_side_matches_the_naive_reference(void **state)
{
	ref_rec *ra = calloc(8000, sizeof *ra), *rb = calloc(6000, sizeof *rb);

	(void)state;
	assert_non_null(ra);
	assert_non_null(rb);
	lcg = 54321;
	ref_make(ra, 8000, rb, 6000, 48, 48); /* B the smaller: B indexed, the gathered build */
	ref_write("a.txt", ra, 8000);
	ref_write("b.txt", rb, 6000);
	ref_check(ra, 8000, rb, 6000, 1);
	free(ra);
	free(rb);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_an_exact_duplicate_is_found_whatever_its_case_and_spacing),
    cmocka_unit_test(test_the_same_id_on_both_sides_is_a_match),
    cmocka_unit_test(test_a_shared_13_gram_is_measured_by_share_and_longest_run),
    cmocka_unit_test(test_ngrams_in_many_indexed_records_are_boilerplate_not_overlap),
    cmocka_unit_test(test_an_ngram_counts_once_a_record_across_the_index_builds_batches),
    cmocka_unit_test(test_a_prefix_and_a_sub_range_are_named_as_such),
    cmocka_unit_test(test_disjoint_sides_report_nothing_and_exit_0),
    cmocka_unit_test(test_a_record_planted_in_a_large_corpus_is_found_and_its_line_named),
    cmocka_unit_test(test_the_j_setting_never_changes_the_output),
    cmocka_unit_test(test_a_line_longer_than_the_read_buffer_is_one_record),
    cmocka_unit_test(test_bad_input_is_refused_naming_file_and_line),
    cmocka_unit_test(test_every_ngram_figure_matches_a_naive_reference_on_random_data),
    cmocka_unit_test(test_a_large_indexed_side_matches_the_naive_reference),
};
TD_TEST_GROUP(overlap, tests);
