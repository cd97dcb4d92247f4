/*
 * overlap.h - finding evaluation records (side B) that overlap training
 * records (side A): the engine of `tdaudit overlap` (harness/cmd_overlap.c)
 * and of any audit script that checks the files a trainer writes. It
 * reads, computes and returns a result; it never prints, never exits.
 *
 * A side is a text file (one record per line) or, with a field name, a
 * JSON-lines file (one object per line; the record's text is that string
 * field, its id the id field when the object has one). Three detectors,
 * documented in full in docs/overlap.md:
 *
 *   id     the same id on both sides (JSON lines only);
 *   exact  the same text under the normalisation TD_OVERLAP_NORM ("norm/1":
 *          ASCII letters lowercased; every run of bytes that are neither
 *          ASCII letters, ASCII digits nor bytes >= 0x80 is one separator;
 *          the words joined by one space, nothing before or after);
 *   ngram  word n-grams (13 by default) of the normalised text: per B
 *          record the share of its n-gram positions found in A and its
 *          longest matched run in words. An n-gram found in more than
 *          boilerplate records of the indexed side is boilerplate: counted
 *          apart, never as overlap.
 *
 * The smaller file (by bytes; A on a tie) is indexed, serially and in line
 * order, in open-addressing tables keyed by 64-bit hashes (16 bytes per
 * slot, made 60% full, grown past 70%, on huge pages where the kernel
 * gives them; B's n-grams are not tabled but gathered, partitioned and
 * counted part by part into a filter that A's n-grams pass through); the
 * larger is streamed from an mmap, split into
 * jobs chunks at line boundaries, one thread each. Every result is a
 * function of the two files and the options alone, never of jobs.
 */
#ifndef TD_OVERLAP_H
#define TD_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#define TD_OVERLAP_NORM "norm/1"
#define TD_OVERLAP_SCHEMA "tdaudit.overlap/1"

/* The options; zero is the default for every field. */
typedef struct {
	int ngram;              /* words per n-gram; 0: 13; -1: no n-gram detector */
	double threshold;       /* a record passes at share >= threshold; 0: 0.5 */
	const char *field;      /* JSON lines: the string field holding the text; NULL: text files */
	const char *id_field;   /* JSON lines: the id field; NULL: "id" */
	long long boilerplate;  /* an n-gram in more records of the indexed side than this is
				   boilerplate; 0: 100 */
	int jobs;               /* threads streaming the larger side; 0: 1 */
} td_overlap_opts;

/* Detectors, as bits of td_overlap_hit.detectors. */
enum { TD_OVERLAP_ID = 1, TD_OVERLAP_EXACT = 2, TD_OVERLAP_NGRAM = 4 };

/* One B record that overlaps A by at least one detector. Lines are 1-based; 0: none. */
typedef struct {
	uint32_t b_line;     /* the record's line in B */
	unsigned detectors;  /* TD_OVERLAP_* bits */
	uint32_t a_id;       /* the first A line with the same id */
	uint32_t a_exact;    /* the first A line with the same normalised text */
	uint32_t a_ngram;    /* the A line holding most of the matched n-grams (each n-gram counted at
				the first A line holding it; ties: the lower line) */
	uint32_t n_grams;    /* the record's n-gram positions (0: fewer words than ngram) */
	uint32_t n_matched;  /* positions whose n-gram is in A and is not boilerplate */
	uint32_t run;        /* the longest run of words covered by consecutive matched n-grams */
	double share;        /* n_matched / n_grams; 1 for an exact match; 0 when n_grams is 0 */
	int passes;          /* an id or exact match, or share >= threshold */
} td_overlap_hit;

/* How the two sides relate line by line (each line compared under norm/1). */
typedef enum {
	TD_OVERLAP_REL_NONE = 0,
	TD_OVERLAP_REL_SAME,      /* every line equal, the same number of lines */
	TD_OVERLAP_REL_PREFIX,    /* the smaller is lines 1..k of the other */
	TD_OVERLAP_REL_SUBRANGE,  /* the smaller is lines first..last of the other, first > 1 */
} td_overlap_rel;

/* One side as read. */
typedef struct {
	char *path;          /* a copy of the path given */
	size_t bytes;
	uint32_t lines;      /* lines (a last line without its newline counts) */
	uint32_t records;    /* lines that are records (JSON lines: not blank) */
} td_overlap_side;

/* What a run found: plain data; free with td_overlap_result_free. */
typedef struct {
	td_overlap_side a, b;
	int indexed_b;              /* 1: B was the indexed side, 0: A */
	int ngram;                  /* words per n-gram as used; 0: the detector was off */
	double threshold;
	long long boilerplate;      /* the limit as used */
	uint64_t boilerplate_ngrams; /* distinct n-grams of the indexed side above the limit */
	uint64_t index_entries;     /* distinct n-grams indexed */
	uint64_t index_bytes;       /* bytes of the tables' slots (B indexed: ids and texts only) */
	uint64_t filter_bytes;      /* bytes of the n-gram filter and the bitmap of slots seen in A */
	td_overlap_rel relation;
	int relation_b_in_a;        /* 1: B lies in A; 0: A lies in B */
	uint32_t rel_first, rel_last; /* the lines of the larger side the smaller one is */
	td_overlap_hit *hits;       /* in B line order */
	size_t n_hits;
	size_t n_passing;           /* hits with passes set */
} td_overlap_result;

/*
 * Compares the file at path_a (the training side) with the one at path_b
 * (the evaluation side). On success *out is the result (caller frees with
 * td_overlap_result_free). Fails TD_EINVAL with a message naming the file
 * and line for input that is not what o says: an empty file or one with no
 * record, a NUL byte, invalid UTF-8, a JSON line that does not parse, is not
 * an object, or lacks the field (or has it as a non-string); TD_EIO for a
 * file that cannot be opened or mapped; TD_ENOMEM. o may be NULL (every
 * default: text files).
 */
int td_overlap_run(td_overlap_result **out, const char *path_a, const char *path_b,
		   const td_overlap_opts *o);

void td_overlap_result_free(td_overlap_result *r);

/*
 * "B is lines 1..500 of A: a prefix", "A is lines 3..9 of B: a sub-range",
 * "B is A: the same 12 lines", or "none", into buf; returns buf.
 */
const char *td_overlap_relation_text(char *buf, size_t size, const td_overlap_result *r);

/*
 * The report as text (what `tdaudit overlap` prints) or as JSON (schema
 * TD_OVERLAP_SCHEMA), NUL-terminated, into *text. Caller frees with free().
 */
int td_overlap_report_text(char **text, size_t *len, const td_overlap_result *r);
int td_overlap_report_json(char **text, size_t *len, const td_overlap_result *r);

#endif
