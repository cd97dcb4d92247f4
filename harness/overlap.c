/*
 * overlap.c - the overlap engine (overlap.h): index the smaller side,
 * stream the larger, find B records that overlap A by id, by normalised
 * text and by word n-grams.
 *
 * Determinism: the index is built by one thread in line order; streaming
 * threads only read it, or lower a slot's A line with an atomic minimum
 * and set its bit in the hot bitmap with an atomic or (functions of the
 * set of lines, not of their order); every result is kept per line and
 * merged in line order; of several errors the one on the lowest line
 * wins. Nothing here may depend on the number of jobs.
 *
 * Never: print, exit, or write a file. The sides are read with pread
 * into a small buffer reused line after line, not mapped: on a virtual
 * machine each page of a mapping costs a fault that dwarfs reading it.
 */
#define _GNU_SOURCE
#include "overlap.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#ifdef __AVX2__
#include <immintrin.h>
#elif defined __SSE2__
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../base/hash.h"
#include "../base/json.h"

#define NGRAM_DEFAULT 13
#define NGRAM_MAX 1000
#define THRESHOLD_DEFAULT 0.5
#define BOILERPLATE_DEFAULT 100
#define PREFETCH 16    /* probes issued ahead of the one being looked at: a miss is ~200 cycles */
#define BATCH 16384    /* n-gram keys gathered across records before they go to the table or
			  the filter, so that the prefetches run on from one record into the next */
#define LOAD_NUM 7     /* a table grows past LOAD_NUM/LOAD_DEN full */
#define LOAD_DEN 10
#define LOAD_INIT_NUM 3 /* and is made LOAD_INIT_NUM/LOAD_INIT_DEN full for what it expects */
#define LOAD_INIT_DEN 5
#define MSG 512
#define COARSE_BITS 8  /* the gathered build's buckets, written while B is read: their lines */
#define COARSE (1u << COARSE_BITS) /* being filled (16 KB) stay in L1 */

/* ---- the table ------------------------------------------------------- */

/*
 * One slot: 16 bytes. key 0 is an empty slot (a real hash of 0 is stored
 * as 1). count: records of the indexed side holding the key (saturating).
 * line: the first A line holding it: set when A is indexed, lowered
 * atomically while A is streamed when B is (0: not seen in A).
 */
typedef struct {
	uint64_t key;
	uint32_t count;
	uint32_t line;
} slot;

/*
 * Linear probing over lines of LINE slots (one cache line): a key's first
 * slot is the first of a line, picked by the key's fraction of the lines,
 * so that most probes read one line (the prefetched one) and compare it
 * whole, without a branch a slot. The slot found is the one a probe slot
 * by slot from the line's start would find: the first holding the key or
 * empty.
 */
#define LINE 4

typedef struct {
	slot *v;     /* cap slots, the first at a cache line */
	size_t cap;  /* slots: a multiple of LINE */
	size_t n;    /* keys held */
} table;

/* Maps a table of at least cap slots (rounded up to lines), all empty. */
static int table_init_at(table *t, size_t cap)
{
	size_t bytes;
	void *m;

	cap = (cap + LINE - 1) / LINE * LINE;
	bytes = cap * sizeof *t->v;
	/* anonymous pages come zeroed; huge pages spare a TLB miss per probe */
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return TD_FAIL(TD_ENOMEM, "no memory for an index of %zu slots", cap);
	madvise(m, bytes, MADV_HUGEPAGE);
	t->v = m;
	t->cap = cap;
	t->n = 0;
	return 0;
}

/* Maps a table for want keys, LOAD_INIT full. */
static int table_init(table *t, size_t want)
{
	return table_init_at(t, (want / LOAD_INIT_NUM * LOAD_INIT_DEN + 1024) / LINE * LINE);
}

static void table_free(table *t)
{
	if (t->v)
		munmap(t->v, t->cap * sizeof *t->v);
	t->v = NULL;
}

static inline size_t table_cap(const table *t)
{
	return t->cap;
}

/* A key's first slot: the line at the high half of key * lines (keys are well mixed). */
static inline size_t table_home(const table *t, uint64_t key)
{
	return (size_t)(((unsigned __int128)key * (t->cap / LINE)) >> 64) * LINE;
}

/* Bit k set when slot k of the line at v holds key or is empty. */
static inline unsigned line_mask(const slot *v, uint64_t key)
{
	unsigned m = 0;

	for (unsigned k = 0; k < LINE; k++)
		m |= (unsigned)((v[k].key == key) | (v[k].key == 0)) << k;
	return m;
}

/* The slot holding key, or the empty slot where it would go: the first of either from its home. */
static inline slot *table_probe(const table *t, uint64_t key)
{
	size_t i = table_home(t, key);
	unsigned m;

	while (!(m = line_mask(&t->v[i], key)))
		i = i + LINE == t->cap ? 0 : i + LINE;
	return &t->v[i + (size_t)__builtin_ctz(m)];
}

static inline void table_prefetch(const table *t, uint64_t key)
{
	__builtin_prefetch(&t->v[table_home(t, key)]);
}

/* Prefetches the slots of the first keys of a record, before its loop. */
static inline void table_prefetch_first(const table *t, const uint64_t *keys, size_t n)
{
	for (size_t j = 0; j < n && j < PREFETCH; j++)
		table_prefetch(t, keys[j]);
}

/* The slot holding key, or NULL. */
static inline slot *table_find(const table *t, uint64_t key)
{
	slot *s = table_probe(t, key);

	return s->key ? s : NULL;
}

/* Makes room for extra more keys, doubling as needed. */
static int table_reserve(table *t, size_t extra)
{
	table bigger;
	int err;

	if (t->n + extra <= table_cap(t) / LOAD_DEN * LOAD_NUM)
		return 0;
	err = table_init(&bigger, (t->n + extra) * 2 * LOAD_INIT_NUM / LOAD_INIT_DEN);
	if (err)
		return err;
	for (size_t i = 0; i < table_cap(t); i++)
		if (t->v[i].key)
			*table_probe(&bigger, t->v[i].key) = t->v[i];
	bigger.n = t->n;
	table_free(t);
	*t = bigger;
	return 0;
}

/*
 * Counts one more indexed record holding key; line is its A line (0 when
 * B is indexed). Returns the key's slot.
 */
static slot *table_add(table *t, uint64_t key, uint32_t line)
{
	slot *s = table_probe(t, key);

	if (!s->key) {
		s->key = key;
		s->line = line;
		t->n++;
	}
	if (s->count < UINT32_MAX)
		s->count++;
	return s;
}

/* Lowers s->line to line (0 in s->line is "none", above every line). */
static void slot_mark(slot *s, uint32_t line)
{
	uint32_t cur = __atomic_load_n(&s->line, __ATOMIC_RELAXED);

	while ((cur == 0 || line < cur) &&
	       !__atomic_compare_exchange_n(&s->line, &cur, line, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/* ---- the filter ------------------------------------------------------ */

/*
 * A blocked Bloom filter of the n-gram table's keys, in front of it for
 * the streamed side, whose n-grams almost all miss: one 64-bit word a key
 * (the high bits of the key pick it, as they pick the key's slot), FILTER_K
 * bits of it (from the low bits of the key) set. A key the filter says no
 * to is not in the table; a yes is verified in the table exactly as
 * before, so the filter changes how fast, never what is found. At
 * FILTER_BITS bits a key it is 1 byte an entry and says yes to about 2.5%
 * of keys not in it.
 */
#define FILTER_BITS 8
#define FILTER_K 4

typedef struct {
	uint64_t *w;
	size_t n; /* words */
} filter;

static inline size_t filter_word(const filter *f, uint64_t key)
{
	return (size_t)(((unsigned __int128)key * f->n) >> 64);
}

static inline uint64_t filter_bits(uint64_t key)
{
	uint64_t m = 0;

	for (int i = 0; i < FILTER_K; i++)
		m |= UINT64_C(1) << ((key >> (6 * i)) & 63);
	return m;
}

static inline int filter_may_hold(const filter *f, uint64_t key)
{
	uint64_t m = filter_bits(key);

	return (f->w[filter_word(f, key)] & m) == m;
}

static inline void filter_prefetch(const filter *f, uint64_t key)
{
	__builtin_prefetch(&f->w[filter_word(f, key)]);
}

static void filter_free(filter *f)
{
	if (f->w)
		munmap(f->w, f->n * sizeof *f->w);
	f->w = NULL;
}

/*
 * Builds the filter of t's keys held by at most max_count records (a key
 * held by more is boilerplate: finding it changes nothing). The table is
 * scanned in slot order, which is key order but for collisions, so the
 * filter is written front to back.
 */
static int filter_build(filter *f, const table *t, uint32_t max_count)
{
	size_t bytes;
	void *m;

	f->n = t->n * FILTER_BITS / 64 + 1;
	bytes = f->n * sizeof *f->w;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return TD_FAIL(TD_ENOMEM, "no memory for a filter of %zu keys", t->n);
	madvise(m, bytes, MADV_HUGEPAGE);
	f->w = m;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t key = t->v[i].key;

		if (key && t->v[i].count <= max_count)
			f->w[filter_word(f, key)] |= filter_bits(key);
	}
	return 0;
}

/* ---- hashing ----------------------------------------------------------- */

/* splitmix64's finaliser: spreads a key over the table's bits. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x ? x : 1;
}

#define ROLL_BASE UINT64_C(0x9e3779b97f4a7c15) /* odd: invertible mod 2^64 */

/* Per-thread scratch: reused across records, freed once. */
typedef struct {
	uint64_t *words; /* FNV-1a 64 of each word of the record */
	size_t n_words, cap_words;
	uint64_t *keys;  /* n-gram keys of the record */
	size_t cap_keys;
	uint32_t *lines; /* A lines of the matched n-grams, for the mode */
	size_t cap_lines;
	char *text, *id, *key;  /* a JSON line's decoded strings */
	size_t cap_text, cap_id, cap_key, len_text, len_id, len_key;
	int has_id;
	unsigned char *lower; /* the record lowercased (norm/1), zero-padded */
	size_t cap_lower;
	uint64_t *mask;  /* bit i: byte i of the record is a word byte */
	size_t cap_mask;
	uint32_t *starts, *ends; /* the words' first and last bytes */
	size_t cap_starts, cap_ends;
	uint64_t *seen;  /* the dedup set of index build: keys, live where seen_stamp is stamp */
	uint32_t *seen_stamp;
	uint32_t *seen_at; /* the index in the record of each seen key's first occurrence */
	size_t seen_mask;
	uint32_t stamp;
	uint64_t *mark_keys; /* the streamed A side: keys waiting to be marked in B's index */
	uint32_t *mark_lines; /* and their A lines */
	size_t n_mark, cap_mark_keys, cap_mark_lines;
	uint64_t *cand_keys;  /* the streamed A side, gathered build: keys that passed the filter */
	uint32_t *cand_lines; /* and their A lines */
	size_t n_cand, cap_cand_keys, cap_cand_lines;
} scratch;

static void scratch_free(scratch *s)
{
	free(s->words);
	free(s->keys);
	free(s->lines);
	free(s->text);
	free(s->id);
	free(s->key);
	free(s->seen);
	free(s->seen_stamp);
	free(s->seen_at);
	free(s->mark_keys);
	free(s->mark_lines);
	free(s->cand_keys);
	free(s->cand_lines);
	free(s->lower);
	free(s->mask);
	free(s->starts);
	free(s->ends);
}

/*
 * norm/1 eight bytes at a time (SWAR). For bytes below 0x80, bit 7 of
 * each byte of in_range(low7, lo, hi) is set when lo <= byte <= hi: adding
 * 0x80 - lo sets bit 7 from lo up, adding 0x80 - hi - 1 from hi + 1 up,
 * and no byte carries into the next (low7 < 0x80, the addend <= 0x80).
 */
#define ONES UINT64_C(0x0101010101010101)
#define HIGH UINT64_C(0x8080808080808080)

static inline uint64_t in_range(uint64_t low7, unsigned lo, unsigned hi)
{
	return (low7 + ONES * (0x80 - lo)) & ~(low7 + ONES * (0x80 - hi - 1)) & HIGH;
}

/*
 * Lowercases the eight bytes v (ASCII letters only) into *lower and
 * returns which of them are word bytes, bit k for byte k. An AVX2 build
 * calls classify32 instead but still compiles this (unused, which clang
 * warns of), so that the fallback cannot rot.
 */
static inline __attribute__((unused)) unsigned classify8(uint64_t v, uint64_t *lower)
{
	uint64_t high = v & HIGH, low7 = v & ~HIGH;
	uint64_t up = in_range(low7, 'A', 'Z') & ~high;
	uint64_t word = high | up | in_range(low7, 'a', 'z') | in_range(low7, '0', '9');

	*lower = v | (up >> 2); /* 0x80 >> 2 is 0x20: 'A' + 0x20 is 'a' */
	return (unsigned)(((word >> 7) * UINT64_C(0x0102040810204080)) >> 56);
}

#ifdef __AVX2__
/*
 * The same for 32 bytes with AVX2: lowercases p[0, 32) in place and
 * returns the word bytes' mask. Signed compares: a byte >= 0x80 is
 * negative, so it is never a letter or a digit, and always a word byte.
 */
static inline uint32_t classify32(unsigned char *p)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i up = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('A' - 1)),
				      _mm256_cmpgt_epi8(_mm256_set1_epi8('Z' + 1), v));
	__m256i low = _mm256_or_si256(v, _mm256_and_si256(up, _mm256_set1_epi8(0x20)));
	__m256i alpha = _mm256_and_si256(_mm256_cmpgt_epi8(low, _mm256_set1_epi8('a' - 1)),
					 _mm256_cmpgt_epi8(_mm256_set1_epi8('z' + 1), low));
	__m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('0' - 1)),
					 _mm256_cmpgt_epi8(_mm256_set1_epi8('9' + 1), v));
	__m256i high = _mm256_cmpgt_epi8(_mm256_setzero_si256(), v);

	_mm256_storeu_si256((__m256i *)(void *)p, low);
	return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(alpha, digit), high));
}
#endif

/* Lowercases buf[0, 64) in place; the mask of its word bytes. */
static inline uint64_t classify64(unsigned char *buf)
{
#ifdef __AVX2__
	return classify32(buf) | (uint64_t)classify32(buf + 32) << 32;
#else
	uint64_t m = 0, v, low;

	for (unsigned i = 0; i < 64; i += 8) {
		memcpy(&v, buf + i, 8);
		m |= (uint64_t)classify8(v, &low) << i;
		memcpy(buf + i, &low, 8);
	}
	return m;
#endif
}

/*
 * A word's hash: its bytes eight at a time, each round a bijection of the
 * chunk for a given state, so that two different words of up to eight
 * bytes never share a hash. p may be read up to 7 bytes past len (the
 * caller pads with zeros).
 */
static inline uint64_t word_hash(const unsigned char *p, size_t len)
{
	uint64_t h = len * UINT64_C(0x9e3779b97f4a7c15), x;

	/* the first eight bytes without a branch on the length: most words fit */
	memcpy(&x, p, 8);
	x = len >= 8 ? x : x & ((UINT64_C(1) << (8 * len)) - 1);
	h = (h ^ x) * UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 29;
	for (p += 8; len > 8; p += 8, len -= 8) {
		memcpy(&x, p, 8);
		x = len >= 16 ? x : x & ((UINT64_C(1) << (8 * (len - 8))) - 1);
		h = (h ^ x) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 29;
	}
	return h;
}

/*
 * Splits text[0, n) into norm/1 words, their hashes into s->words, and
 * returns the exact key of the normalised text (a hash of the sequence of
 * word hashes; 0 when there is no word). The line is copied into a
 * zero-padded buffer, lowercased and classified 64 bytes at a time into a
 * bit mask; the words' first and last bytes are the mask's rising and
 * falling edges, taken a set bit at a time.
 */
static int split_words(scratch *s, const char *text, size_t n, uint64_t *exact)
{
	size_t n_mask = (n + 63) / 64, ns = 0, ne = 0;
	uint64_t e0 = TD_FNV1A64_OFFSET, e1 = 0, prev = 0;

	if (td_grow(&s->words, &s->cap_words, n / 2 + 2, sizeof *s->words) ||
	    td_grow(&s->lower, &s->cap_lower, n_mask * 64 + 64, 1) ||
	    td_grow(&s->mask, &s->cap_mask, n_mask + 1, sizeof *s->mask) ||
	    td_grow(&s->starts, &s->cap_starts, n / 2 + 2, sizeof *s->starts) ||
	    td_grow(&s->ends, &s->cap_ends, n / 2 + 2, sizeof *s->ends))
		return TD_ENOMEM;
	memcpy(s->lower, text, n);
	memset(s->lower + n, 0, n_mask * 64 + 64 - n); /* zeros: separators */
	for (size_t w = 0; w < n_mask; w++)
		s->mask[w] = classify64(s->lower + w * 64);
	s->mask[n_mask] = 0;
	for (size_t w = 0; w < n_mask; w++) {
		uint64_t m = s->mask[w];
		uint64_t st = m & ~((m << 1) | (prev >> 63));           /* a word starts */
		uint64_t en = m & ~((m >> 1) | (s->mask[w + 1] << 63)); /* a word ends */

		prev = m;
		for (; st; st &= st - 1)
			s->starts[ns++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(st));
		for (; en; en &= en - 1)
			s->ends[ne++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(en));
	}
	assert(ns == ne);
	for (size_t j = 0; j < ns; j++)
		s->words[j] = word_hash(s->lower + s->starts[j], s->ends[j] - s->starts[j] + 1u);
	for (size_t j = 0; j + 1 < ns; j += 2) { /* two chains: half the multiply latency */
		e0 = (e0 ^ s->words[j]) * ROLL_BASE;
		e1 = (e1 ^ s->words[j + 1]) * ROLL_BASE;
	}
	if (ns & 1)
		e0 = (e0 ^ s->words[ns - 1]) * ROLL_BASE;
	s->n_words = ns;
	*exact = ns ? mix64(e0 ^ (e1 * UINT64_C(0xd6e8feb86659fd93)) ^ ns) : 0;
	return 0;
}

/*
 * The n-gram keys of the record in s->words into s->keys: key j is a
 * polynomial hash of words j..j+n-1, rolled one word at a time. Returns
 * how many (0 when the record has fewer than n words).
 */
static size_t ngram_keys(scratch *s, int n)
{
	size_t nw = s->n_words, nk, k = (size_t)n;
	uint64_t h = 0, top = 1;

	if (n <= 0 || nw < k)
		return 0;
	nk = nw - k + 1;
	if (td_grow(&s->keys, &s->cap_keys, nk, sizeof *s->keys))
		return 0;
	for (size_t i = 0; i + 1 < k; i++)
		top *= ROLL_BASE;
	for (size_t i = 0; i < k; i++)
		h = h * ROLL_BASE + s->words[i];
	s->keys[0] = mix64(h);
	for (size_t j = 1; j < nk; j++) {
		h = (h - s->words[j - 1] * top) * ROLL_BASE + s->words[j + k - 1];
		s->keys[j] = mix64(h);
	}
	return nk;
}

/* ---- checking bytes ---------------------------------------------------- */

/*
 * 0 when line[0, n) holds no NUL byte and is valid UTF-8 (no overlong
 * form, no surrogate, nothing above U+10FFFF); otherwise writes what is
 * wrong, with its column (1-based byte), to why and returns 1.
 */
static int bad_bytes(const char *line, size_t n, char *why, size_t why_size)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t i = 0;

#ifdef __AVX2__
	for (; i + 32 <= n; i += 32) { /* ASCII without NUL, 32 bytes at a time */
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));

		if (_mm256_movemask_epi8(_mm256_or_si256(v, _mm256_cmpeq_epi8(v, _mm256_setzero_si256()))))
			break;
	}
#endif
	while (i < n) {
		uint64_t v;

		if (i + 8 <= n) {
			memcpy(&v, p + i, 8);
			if (!((v - UINT64_C(0x0101010101010101)) & ~v & UINT64_C(0x8080808080808080)) &&
			    !(v & UINT64_C(0x8080808080808080))) {
				i += 8;
				continue;
			}
		}
		unsigned c = p[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
						      : (c & 0xf8) == 0xf0 ? 4 : 0;
		unsigned cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;

		if (c == 0) {
			snprintf(why, why_size, "a NUL byte at column %zu: a binary file? give text or JSON lines in UTF-8", i + 1);
			return 1;
		}
		if (len == 0 || i + len > n)
			goto bad;
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			goto bad;
		i += len;
	}
	return 0;
bad:
	snprintf(why, why_size, "invalid UTF-8 at column %zu (byte 0x%02x): convert the file to UTF-8 (iconv) or drop the line", i + 1, p[i]);
	return 1;
}

/* ---- JSON lines ------------------------------------------------------- */

static const char *json_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

static int put_byte(char **buf, size_t *cap, size_t *len, unsigned c)
{
	if (td_grow(buf, cap, *len + 2, 1))
		return -1;
	(*buf)[(*len)++] = (char)c;
	(*buf)[*len] = '\0';
	return 0;
}

static int put_utf8(char **buf, size_t *cap, size_t *len, unsigned cp)
{
	int err = 0;

	if (cp < 0x80)
		return put_byte(buf, cap, len, cp);
	if (cp < 0x800) {
		err |= put_byte(buf, cap, len, 0xc0 | (cp >> 6));
	} else if (cp < 0x10000) {
		err |= put_byte(buf, cap, len, 0xe0 | (cp >> 12));
		err |= put_byte(buf, cap, len, 0x80 | ((cp >> 6) & 0x3f));
	} else {
		err |= put_byte(buf, cap, len, 0xf0 | (cp >> 18));
		err |= put_byte(buf, cap, len, 0x80 | ((cp >> 12) & 0x3f));
		err |= put_byte(buf, cap, len, 0x80 | ((cp >> 6) & 0x3f));
	}
	return err | put_byte(buf, cap, len, 0x80 | (cp & 0x3f));
}

static int hex4(const char *p, const char *e, unsigned *v)
{
	*v = 0;
	if (e - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d > 15)
			return -1;
		*v = *v * 16 + d;
	}
	return 0;
}

/*
 * Reads the JSON string at p (at its opening quote), decoding it into
 * *buf (when buf is not NULL; a lone surrogate becomes U+FFFD). Returns
 * the byte after the closing quote, or NULL when it is not a string.
 */
static const char *json_string(const char *p, const char *e, char **buf, size_t *cap, size_t *len)
{
	if (buf)
		*len = 0;
	if (p >= e || *p != '"')
		return NULL;
	for (p++; p < e && *p != '"'; p++) {
		unsigned c = (unsigned char)*p, cp;

		if (c < 0x20)
			return NULL;
		if (c != '\\') {
			if (buf && put_byte(buf, cap, len, c))
				return NULL;
			continue;
		}
		if (++p >= e)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/': cp = (unsigned char)*p; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u': {
			unsigned lo;

			if (hex4(p + 1, e, &cp))
				return NULL;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && e - p > 6 && p[1] == '\\' && p[2] == 'u' &&
			    !hex4(p + 3, e, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			break;
		}
		default:
			return NULL;
		}
		if (buf && put_utf8(buf, cap, len, cp))
			return NULL;
	}
	if (buf && !*buf && put_byte(buf, cap, len, 0) == 0)
		*len = 0; /* an empty string: a buffer, not NULL */
	return p < e ? p + 1 : NULL;
}

static const char *json_value(const char *p, const char *e, int depth);

/* Reads a JSON number at p; returns the byte after it, or NULL. */
static const char *json_number(const char *p, const char *e)
{
	const char *q = p;

	if (q < e && *q == '-')
		q++;
	if (q >= e || *q < '0' || *q > '9')
		return NULL;
	if (*q == '0')
		q++;
	else
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	if (q < e && *q == '.') {
		if (++q >= e || *q < '0' || *q > '9')
			return NULL;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < e && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		if (q >= e || *q < '0' || *q > '9')
			return NULL;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	return q;
}

/* Skips the elements of an array or the members of an object at p ('[' or '{'). */
static const char *json_compound(const char *p, const char *e, int depth)
{
	char close = *p == '[' ? ']' : '}';

	p = json_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = json_string(p, e, NULL, NULL, NULL);
			if (!p || (p = json_ws(p, e)) >= e || *p != ':')
				return NULL;
			p = json_ws(p + 1, e);
		}
		p = json_value(p, e, depth + 1);
		if (!p || (p = json_ws(p, e)) >= e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = json_ws(p + 1, e);
	}
}

/* Skips the JSON value at p; returns the byte after it, or NULL. */
static const char *json_value(const char *p, const char *e, int depth)
{
	if (p >= e || depth > 64)
		return NULL;
	switch (*p) {
	case '"': return json_string(p, e, NULL, NULL, NULL);
	case '{': case '[': return json_compound(p, e, depth);
	case 't': return e - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
	case 'f': return e - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
	case 'n': return e - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
	default: return json_number(p, e);
	}
}

/*
 * Parses the JSON object line[0, n) and takes its field (a string, decoded
 * into s->text) and its id (a string, decoded, or a number, as written,
 * into s->id; s->has_id 0 when absent or of another type). Returns 0, or 1
 * after writing what is wrong to why.
 */
static int json_record(scratch *s, const char *line, size_t n, const char *field,
		       const char *id_field, char *why, size_t why_size)
{
	const char *p = line, *e = line + n;
	int has_text = 0;

	s->has_id = 0;
	p = json_ws(p, e);
	if (p >= e || *p != '{')
		return snprintf(why, why_size, "not a JSON object: one object per line"), 1;
	p = json_ws(p + 1, e);
	while (p < e && *p != '}') {
		const char *v;

		p = json_string(p, e, &s->key, &s->cap_key, &s->len_key);
		if (!p || (p = json_ws(p, e)) >= e || *p != ':')
			goto bad;
		v = json_ws(p + 1, e);
		if (!has_text && !strcmp(s->key, field)) {
			p = json_string(v, e, &s->text, &s->cap_text, &s->len_text);
			if (!p) {
				if (json_value(v, e, 0))
					return snprintf(why, why_size, "field \"%s\" is not a string: --field names the text", field), 1;
				goto bad;
			}
			has_text = 1;
		} else if (!s->has_id && !strcmp(s->key, id_field) && (*v == '"' || *v == '-' ||
								   (*v >= '0' && *v <= '9'))) {
			if (*v == '"') {
				p = json_string(v, e, &s->id, &s->cap_id, &s->len_id);
			} else if ((p = json_number(v, e))) {
				s->len_id = 0;
				for (const char *q = v; q < p; q++)
					if (put_byte(&s->id, &s->cap_id, &s->len_id, (unsigned char)*q))
						goto bad;
			}
			s->has_id = 1;
		} else {
			p = json_value(v, e, 0);
		}
		if (!p || (p = json_ws(p, e)) >= e)
			goto bad;
		if (*p == ',') {
			if ((p = json_ws(p + 1, e)) >= e || *p != '"')
				goto bad; /* a trailing comma */
		} else if (*p != '}') {
			goto bad;
		}
	}
	if (p >= e || json_ws(p + 1, e) != e)
		goto bad;
	if (!has_text)
		return snprintf(why, why_size, "no field \"%s\": is --field right?", field), 1;
	return 0;
bad:
	snprintf(why, why_size, "not valid JSON near column %zu: fix or drop the line", (size_t)((p ? p : e) - line) + 1);
	return 1;
}

/* ---- sides ------------------------------------------------------------- */

typedef struct {
	const char *path;
	int fd;
	size_t len;
	uint32_t n_lines;
	uint64_t *split;  /* jobs + 1: where each job's lines begin (bytes), and the end */
	uint32_t *split_line; /* jobs + 1: the number of each job's first line */
	uint32_t n_records;
	uint64_t *exact;  /* per line: its exact key (0: no words, or not a record) */
	uint64_t *id;     /* per line: its id key (0: none) */
	uint32_t *n_words; /* per line: its words */
	int is_a;
} side;

static int side_open(side *sd, const char *path, int is_a)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(sd, 0, sizeof *sd);
	sd->path = path;
	sd->is_a = is_a;
	sd->fd = fd;
	if (fd < 0)
		return TD_FAIL(TD_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return TD_FAIL(TD_EIO, "%s: not a regular file", path);
	if (st.st_size == 0)
		return TD_FAIL(TD_EINVAL, "%s: empty: no records to compare; give a file with one "
				"record per line", path);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	sd->len = (size_t)st.st_size;
	return 0;
}

/* ---- reading lines -------------------------------------------------------- */

#define READ_BLOCK (256u << 10) /* read at a time: what was read is still in L2 when split */
#define CHANGED "the file changed while it was read: compare files that nothing writes"

/* The lines of bytes [off, end) of a file, through one buffer that grows only for a longer line. */
typedef struct {
	int fd;
	uint64_t off, end; /* the next byte to read; one past the last */
	char *buf;
	size_t cap, at, len; /* buf[at, len): read, not yet returned */
	size_t seen;         /* buf[at, seen) holds no newline: a long line is searched once */
} reader;

static void reader_init(reader *r, const side *sd, uint64_t begin, uint64_t end)
{
	*r = (reader){.fd = sd->fd, .off = begin, .end = end};
}

/*
 * The next line (without its newline) at *line, *n: returns 1, 0 after
 * the last, or an error (TD_EIO, TD_ENOMEM) after writing it to why. A
 * last line without a newline is a line.
 */
static int reader_line(reader *r, const char **line, size_t *n, char *why, size_t why_size)
{
	for (;;) {
		size_t from = r->seen > r->at ? r->seen : r->at;
		char *nl = from < r->len ? memchr(r->buf + from, '\n', r->len - from) : NULL;

		if (nl || (r->off == r->end && r->at < r->len)) {
			char *e = nl ? nl : r->buf + r->len;

			*line = r->buf + r->at;
			*n = (size_t)(e - *line);
			r->at = (size_t)(e - r->buf) + (nl != NULL);
			return 1;
		}
		if (r->off == r->end)
			return 0;
		r->seen = r->len - r->at; /* where the search goes on, once moved */
		if (r->at) { /* keep the start of a line read in part */
			memmove(r->buf, r->buf + r->at, r->len - r->at);
			r->len -= r->at;
			r->at = 0;
		}
		if (r->cap - r->len < READ_BLOCK / 2 &&
		    td_grow(&r->buf, &r->cap, r->len + READ_BLOCK, 1)) {
			snprintf(why, why_size, "no memory for a line of more than %zu bytes", r->len);
			return TD_ENOMEM;
		}
		size_t want = r->cap - r->len;
		ssize_t got = pread(r->fd, r->buf + r->len, want < r->end - r->off ? want : (size_t)(r->end - r->off),
				    (off_t)r->off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(why, why_size, "%s", got < 0 ? strerror(errno) : CHANGED);
			return TD_EIO;
		}
		r->len += (size_t)got;
		r->off += (uint64_t)got;
	}
}

static void reader_free(reader *r)
{
	free(r->buf);
}

/*
 * Counts the lines, splits them among jobs (job i's lines begin at the
 * first line that begins at or after byte i * len / jobs) and allocates
 * the per-line keys.
 */
static int side_count(side *sd, int jobs)
{
	reader r;
	const char *line;
	size_t len;
	uint64_t n = 0, at = 0;
	int i = 0, rc;
	char why[MSG];

	sd->split = calloc((size_t)jobs + 1, sizeof *sd->split);
	sd->split_line = calloc((size_t)jobs + 1, sizeof *sd->split_line);
	if (!sd->split || !sd->split_line)
		return TD_FAIL(TD_ENOMEM, "%s: no memory", sd->path);
	reader_init(&r, sd, 0, sd->len);
	while ((rc = reader_line(&r, &line, &len, why, sizeof why)) == 1) {
		for (; i < jobs && at >= (uint64_t)i * sd->len / (uint64_t)jobs; i++) {
			sd->split[i] = at;
			sd->split_line[i] = (uint32_t)(n + 1);
		}
		at += len + 1;
		if (++n >= UINT32_MAX) {
			reader_free(&r);
			return TD_FAIL(TD_EINVAL, "%s: %llu lines: more than this tool counts", sd->path,
				       (unsigned long long)n);
		}
	}
	reader_free(&r);
	if (rc < 0)
		return TD_FAIL(rc, "%s: %s", sd->path, why);
	for (; i <= jobs; i++) { /* jobs past the last line have none */
		sd->split[i] = sd->len;
		sd->split_line[i] = (uint32_t)(n + 1);
	}
	sd->n_lines = (uint32_t)n;
	sd->exact = calloc(n, sizeof *sd->exact);
	sd->id = calloc(n, sizeof *sd->id);
	sd->n_words = calloc(n, sizeof *sd->n_words);
	return sd->exact && sd->id && sd->n_words ? 0 : TD_FAIL(TD_ENOMEM, "%s: no memory for %llu lines", sd->path,
				       (unsigned long long)n);
}

static void side_close(side *sd)
{
	if (sd->fd >= 0)
		close(sd->fd);
	free(sd->split);
	free(sd->split_line);
	free(sd->exact);
	free(sd->id);
	free(sd->n_words);
}

/* ---- the run -------------------------------------------------------------- */

typedef struct {
	int ngram;
	double threshold;
	const char *field, *id_field;
	uint32_t boilerplate;
	table ids, exact, grams;
	filter gramf;   /* the keys of grams that are not boilerplate, for the streamed side */
	/*
	 * B indexed: bit i set when slot i of grams is seen in A and is not
	 * boilerplate (cap bits), so that B's positions are measured without
	 * reading the slots that were not.
	 */
	uint64_t *hot;  /* cap bits, or NULL when A is indexed or pos_ok is 0 */
	uint64_t n_boilerplate; /* distinct n-grams whose count passed boilerplate */
	/*
	 * B indexed: the slot of each n-gram position of B, in line order
	 * (pos_first: per line, its first position's index), so that B is
	 * measured without being read again; pos_ok 0 when the table grew
	 * while they were taken or is too big for 32-bit slot numbers.
	 */
	uint32_t *pos_slot;
	size_t n_pos, cap_pos;
	/*
	 * The index build's batch of n_batch positions: per position, the
	 * batch index of its record's first occurrence of its key (first) and
	 * its A line (lines, when A is indexed); the n_firsts first
	 * occurrences' keys and batch indices (keys, at), in order.
	 */
	uint32_t *batch_first, *batch_lines, *batch_at;
	uint64_t *batch_keys;
	size_t n_batch, n_firsts;
	size_t cap_first, cap_lines, cap_at, cap_keys;
	uint64_t *pos_first;
	int pos_ok;
	int indexed_b;
	/*
	 * B indexed with pos_ok (gather 1): the build gathers first and
	 * counts later (gather_build). gkeys: each record's first
	 * occurrences' keys, put as they come into the bucket of their top
	 * COARSE_BITS bits, a bucket a chain of chunks of CHUNK keys (head: a
	 * bucket's first chunk, chunk_next: the next chunk of a chunk's
	 * bucket, bcur: where a bucket's next key goes), so that each bucket
	 * is in line order; hist: how many keys have each value of their top
	 * FINE_BITS bits; meanwhile pos_slot holds each position's code
	 * (gather_record), not yet its slot. gather_build then orders each
	 * bucket's keys (stably) by those bits: fat, where the keys of each
	 * value begin in its bucket's chain.
	 */
	int gather;
	uint64_t *gkeys;
	size_t n_gkeys, cap_gkeys, cap_pool; /* keys gathered, the most B can have, gkeys' room */
	uint32_t head[COARSE], *chunk_next;
	size_t bcur[COARSE], n_chunks;
	_Alignas(64) uint64_t stage[COARSE][8]; /* a bucket's keys until they fill a cache line of gkeys */
	size_t *hist; /* FINE counts */
	size_t *fat;  /* FINE places in gkeys */
	/*
	 * After gather_build: parts of the buckets by their top part_b bits
	 * (pstart: each part's first key counted over the parts, 2^part_b + 1
	 * entries); gramf, the filter of those that are not boilerplate; bp,
	 * the boilerplate ones; n_distinct, the distinct keys. The A stream
	 * collects the keys that pass gramf with their lines (cand_keys,
	 * cand_lines); gather_finish makes the distinct ones candidates
	 * (cand_line: a candidate's first A line) and gives every position of
	 * B its candidate, or SLOT_NONE (pos_slot).
	 */
	size_t *pstart;
	unsigned part_b;
	table bp;
	uint64_t *bp_keys; /* bp's keys as found, part by part */
	size_t cap_bp_keys;
	uint64_t n_distinct;
	uint64_t *cand_keys;
	uint32_t *cand_lines;
	size_t n_cand, cap_cand_keys, cap_cand_lines;
	uint32_t *cand_line;
} engine;

#define SLOT_NONE UINT32_MAX /* a position of B whose n-gram is not in A (or is boilerplate) */

/* What one record is: its text split, its id hashed. */
typedef struct {
	uint64_t exact;   /* 0: no words */
	uint64_t id;      /* 0: no id */
	size_t n_keys;
	size_t n_words;
} record;

/*
 * Reads line[0, n) (without its newline) into s and r. Returns 0, 1 for a
 * line that is no record (a blank JSON line), or -1 after writing what is
 * wrong to why (TD_ENOMEM leaves "no memory").
 */
static int read_record(const engine *en, scratch *s, record *r, const char *line, size_t n,
		       char *why, size_t why_size)
{
	const char *text = line;
	size_t len = n;

	if (bad_bytes(line, n, why, why_size))
		return -1;
	r->id = 0;
	if (json_ws(line, line + n) == line + n)
		return 1; /* a blank line is no record */
	if (en->field) {
		if (json_record(s, line, n, en->field, en->id_field, why, why_size))
			return -1;
		text = s->text;
		len = s->len_text;
		if (s->has_id)
			r->id = mix64(td_fnv1a64(TD_FNV1A64_OFFSET, s->id, s->len_id));
	}
	if (split_words(s, text, len, &r->exact)) {
		snprintf(why, why_size, "no memory");
		return -1;
	}
	/* the record's exact slot (a DRAM line, used once) is fetched while its n-grams are hashed */
	if (r->exact)
		table_prefetch(&en->exact, r->exact);
	r->n_keys = ngram_keys(s, en->ngram);
	r->n_words = s->n_words;
	if (r->n_keys == 0 && en->ngram > 0 && s->n_words >= (size_t)en->ngram) {
		snprintf(why, why_size, "no memory");
		return -1;
	}
	return 0;
}

/* The index in this record of key's first occurrence; j, key's index, when it is that (index build only). */
static uint32_t dedup_first(scratch *s, uint64_t key, uint32_t j)
{
	size_t i = key & s->seen_mask;

	while (s->seen_stamp[i] == s->stamp) {
		if (s->seen[i] == key)
			return s->seen_at[i];
		i = (i + 1) & s->seen_mask;
	}
	s->seen_stamp[i] = s->stamp;
	s->seen[i] = key;
	s->seen_at[i] = j;
	return j;
}

static int dedup_begin(scratch *s, size_t n_keys)
{
	size_t cap = 64;

	while (cap < n_keys * 2)
		cap *= 2;
	if (cap > s->seen_mask + 1 || !s->seen) {
		free(s->seen);
		free(s->seen_stamp);
		free(s->seen_at);
		s->seen = malloc(cap * sizeof *s->seen);
		s->seen_stamp = calloc(cap, sizeof *s->seen_stamp);
		s->seen_at = malloc(cap * sizeof *s->seen_at);
		if (!s->seen || !s->seen_stamp || !s->seen_at)
			return TD_FAIL(TD_ENOMEM, "no memory for a record of %zu n-grams", n_keys);
		s->seen_mask = cap - 1;
		s->stamp = 0;
	}
	if (++s->stamp == 0) {
		memset(s->seen_stamp, 0, (s->seen_mask + 1) * sizeof *s->seen_stamp);
		s->stamp = 1;
	}
	return 0;
}

/*
 * Adds the batch's n-grams to the table, in order: each record's first
 * occurrence of a key counts one more record holding it, and every
 * position is given its slot (pos_slot, when pos_ok).
 */
static int batch_flush(engine *en)
{
	size_t n = en->n_firsts, cap = table_cap(&en->grams);
	const uint64_t *keys = en->batch_keys;
	int err;

	if ((err = table_reserve(&en->grams, n)))
		return err;
	if (table_cap(&en->grams) != cap)
		en->pos_ok = 0; /* the slots given so far moved */
	if (en->pos_ok && td_grow(&en->pos_slot, &en->cap_pos, en->n_pos + en->n_batch,
				  sizeof *en->pos_slot))
		en->pos_ok = 0; /* no memory for them: B is read again instead */
	uint32_t *pos = en->pos_ok ? en->pos_slot + en->n_pos : NULL;

	table_prefetch_first(&en->grams, keys, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t j = en->batch_at[i];
		slot *sl;

		if (i + PREFETCH < n)
			table_prefetch(&en->grams, keys[i + PREFETCH]);
		sl = table_add(&en->grams, keys[i], en->indexed_b ? 0 : en->batch_lines[j]);
		if (sl->count == en->boilerplate + 1)
			en->n_boilerplate++; /* it has just become boilerplate */
		if (pos)
			pos[j] = (uint32_t)(sl - en->grams.v);
	}
	for (size_t j = 0; pos && j < en->n_batch; j++)
		pos[j] = pos[en->batch_first[j]]; /* a repeat within its record: its first's slot */
	en->n_pos += en->n_batch;
	en->n_batch = en->n_firsts = 0;
	return 0;
}

static int gather_record(engine *en, scratch *s, const record *r);

/* Adds one record of the indexed side (its line is line) to the tables (its n-grams to the batch). */
static int index_record(engine *en, scratch *s, const record *r, uint32_t line, int is_a)
{
	uint32_t aline = is_a ? line : 0;
	int err;

	if (r->id) {
		if ((err = table_reserve(&en->ids, 1)))
			return err;
		table_add(&en->ids, r->id, aline);
	}
	if (r->exact) {
		if ((err = table_reserve(&en->exact, 1)))
			return err;
		table_add(&en->exact, r->exact, aline);
	}
	if (!r->n_keys)
		return 0;
	if (en->gather)
		return gather_record(en, s, r);
	size_t n = en->n_batch + r->n_keys, f0 = en->n_batch;

	if ((err = dedup_begin(s, r->n_keys)))
		return err;
	if (td_grow(&en->batch_first, &en->cap_first, n, sizeof *en->batch_first) ||
	    (is_a && td_grow(&en->batch_lines, &en->cap_lines, n, sizeof *en->batch_lines)) ||
	    td_grow(&en->batch_at, &en->cap_at, en->n_firsts + r->n_keys, sizeof *en->batch_at) ||
	    td_grow(&en->batch_keys, &en->cap_keys, en->n_firsts + r->n_keys, sizeof *en->batch_keys))
		return TD_FAIL(TD_ENOMEM, "no memory for a record of %zu n-grams", r->n_keys);
	for (size_t j = 0; j < r->n_keys; j++) {
		uint32_t f = dedup_first(s, s->keys[j], (uint32_t)j);

		en->batch_first[f0 + j] = (uint32_t)(f0 + f);
		if (is_a)
			en->batch_lines[f0 + j] = aline;
		if (f != j)
			continue;
		en->batch_keys[en->n_firsts] = s->keys[j];
		en->batch_at[en->n_firsts++] = (uint32_t)(f0 + j);
	}
	en->n_batch = n;
	return n >= BATCH ? batch_flush(en) : 0;
}

/* ---- the gathered build (B indexed) ---------------------------------------- */

/*
 * Counting B's distinct n-grams one by one in line order in a table of
 * them all costs a random DRAM line each (the table is hundreds of MB).
 * Instead their keys are gathered first (8 bytes a record's first
 * occurrence) into buckets by their top bits, as B is read, and counted
 * part by part (a part: buckets of the same top part_b bits), each part's
 * counts small enough to stay in the L2 cache. While gathering, a
 * position's pos_slot is its code: CODE_FIRST | its key's top FINE_BITS
 * bits (its bucket) for a record's first occurrence, else how far back in
 * its record that first occurrence is; gather_finish turns the codes into
 * candidates in one pass over them, a cursor a bucket.
 */
#define FINE_BITS 12
#define FINE (1u << FINE_BITS)
#define CODE_FIRST UINT32_C(0x80000000)
#define CHUNK 1024 /* keys: a bucket takes 8 KB of gkeys at a time */
#define CHUNK_NONE UINT32_MAX
#define PART_KEYS 8192 /* a part's keys at most on average: its counts (12 bytes a key, half
				   full) stay in the L2 cache */

/*
 * Writes the 64-byte line at src to dst (64-byte aligned) past the caches:
 * written a key at a time, 64 lines at once, gkeys would cost a read of
 * each line from memory first.
 */
static inline void put_line(uint64_t *dst, const uint64_t *src)
{
#if defined __SSE2__
	for (int i = 0; i < 8; i += 2)
		_mm_stream_si128((__m128i *)(void *)(dst + i), _mm_load_si128((const __m128i *)(const void *)(src + i)));
#else
	memcpy(dst, src, 64);
#endif
}

/* Gathers B record r's n-gram keys (s->keys) and its positions' codes. */
static int gather_record(engine *en, scratch *s, const record *r)
{
	uint32_t *code;
	int err;

	assert(r->n_keys < CODE_FIRST);
	if ((err = dedup_begin(s, r->n_keys)))
		return err;
	if (td_grow(&en->pos_slot, &en->cap_pos, en->n_pos + r->n_keys, sizeof *en->pos_slot) ||
	    en->n_gkeys + r->n_keys > en->cap_gkeys)
		return TD_FAIL(TD_ENOMEM, "no memory for the %zu n-grams of the index",
			       en->n_gkeys + r->n_keys);
	code = en->pos_slot + en->n_pos;
	for (size_t j = 0; j < r->n_keys; j++) {
		uint64_t key = s->keys[j];
		uint32_t f = dedup_first(s, key, (uint32_t)j), fine = (uint32_t)(key >> (64 - FINE_BITS));

		if (f != j) {
			code[j] = (uint32_t)j - f;
			continue;
		}
		code[j] = CODE_FIRST | fine;
		en->hist[fine]++;
		en->n_gkeys++;
		size_t g = fine >> (FINE_BITS - COARSE_BITS), at = en->bcur[g];

		if (at % CHUNK == 0) { /* the bucket's chunk is full, or it has none: the next one */
			uint32_t c = (uint32_t)en->n_chunks++;

			if (en->head[g] == CHUNK_NONE)
				en->head[g] = c;
			else
				en->chunk_next[at / CHUNK - 1] = c;
			en->chunk_next[c] = CHUNK_NONE;
			at = (size_t)c * CHUNK;
		}
		en->stage[g][at % 8] = key;
		if (at % 8 == 7)
			put_line(&en->gkeys[at - 7], en->stage[g]);
		en->bcur[g] = at + 1;
	}
	en->n_pos += r->n_keys;
	return 0;
}

/*
 * n keys of address space, huge pages where the kernel has them: read
 * through thousands of cursors at once, the keys of the gathered build
 * would otherwise cost a TLB miss a key. Untouched pages cost nothing. Returns
 * NULL when there is no room; caller frees with keys_free(p, n).
 */
static uint64_t *keys_map(size_t n)
{
	size_t bytes = n * sizeof(uint64_t);
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	madvise(m, bytes, MADV_HUGEPAGE);
	return m;
}

static void keys_free(uint64_t *p, size_t n)
{
	if (p)
		munmap(p, n * sizeof *p);
}

/* The top bits that split n keys into parts of at most PART_KEYS on average. */
static unsigned part_bits(size_t n)
{
	unsigned b = 0;

	while (b < FINE_BITS && (n >> b) > PART_KEYS)
		b++;
	return b;
}

/*
 * A small open-addressing set for one part at a time (cap a power of two,
 * the key's low bits its home: a part's keys share their top bits), with
 * a 32-bit value a key; a slot is held when its stamp is now, so that the
 * next part starts empty without clearing it. A slot's key, value and
 * stamp share 16 bytes: a probe reads one cache line. The slots put since
 * the last clear are listed in put (their order), so that a walk of the
 * part's distinct keys does not probe again.
 */
typedef struct {
	uint64_t key;
	uint32_t val, stamp;
} local_slot;

typedef struct {
	local_slot *v;
	uint32_t *put; /* slots held, in the order put */
	size_t mask, n_put;
	uint32_t now;
} local;

static int local_init(local *l, size_t most)
{
	size_t cap = 64;

	while (cap < most * 2)
		cap *= 2;
	l->v = calloc(cap, sizeof *l->v);
	l->put = malloc(cap * sizeof *l->put);
	l->mask = cap - 1;
	l->n_put = 0;
	l->now = 0;
	return l->v && l->put ? 0 : TD_FAIL(TD_ENOMEM, "no memory for a part of %zu n-grams", most);
}

static void local_free(local *l)
{
	free(l->v);
	free(l->put);
}

/* Empties the set. */
static void local_clear(local *l)
{
	l->n_put = 0;
	if (++l->now == 0) {
		for (size_t k = 0; k <= l->mask; k++)
			l->v[k].stamp = 0;
		l->now = 1;
	}
}

static inline int local_held(const local *l, size_t k)
{
	return l->v[k].stamp == l->now;
}

/* The slot holding key, or the empty one where it goes. */
static inline size_t local_probe(const local *l, uint64_t key)
{
	size_t i = (size_t)key & l->mask;

	while (local_held(l, i) && l->v[i].key != key)
		i = (i + 1) & l->mask;
	return i;
}

static inline void local_put(local *l, size_t k, uint64_t key, uint32_t val)
{
	l->v[k] = (local_slot){.key = key, .val = val, .stamp = l->now};
	l->put[l->n_put++] = (uint32_t)k;
}

/* The most keys of any part (pstart, 2^b parts). */
static size_t most_in_part(const size_t *start, unsigned b)
{
	size_t most = 0;

	for (size_t p = 0; p < ((size_t)1 << b); p++)
		if (start[p + 1] - start[p] > most)
			most = start[p + 1] - start[p];
	return most;
}

/* The place in gkeys after at in at's bucket's chain. */
static inline size_t pool_next(const engine *en, size_t at)
{
	at++;
	if (at % CHUNK || en->chunk_next[at / CHUNK - 1] == CHUNK_NONE)
		return at;
	return (size_t)en->chunk_next[at / CHUNK - 1] * CHUNK;
}

/*
 * Counts the records holding each key of the part keys[lo, hi) (each
 * record's first occurrences: one key, one record), then walks the
 * counts: a key held by more than boilerplate records goes to bp, any
 * other to the filter (whose words for a part are contiguous: filter_word
 * is monotone in the key).
 */
static int count_part(engine *en, local *l, const uint64_t *keys, size_t lo, size_t hi)
{
	local_clear(l);
	for (size_t i = lo; i < hi; i++) {
		size_t k = local_probe(l, keys[i]);

		if (!local_held(l, k))
			local_put(l, k, keys[i], 0);
		l->v[k].val += l->v[k].val < UINT32_MAX;
	}
	en->n_distinct += l->n_put;
	for (size_t i = 0; i < l->n_put; i++) { /* each distinct key once */
		const local_slot *sl = &l->v[l->put[i]];
		uint64_t key = sl->key;

		if (sl->val > en->boilerplate) {
			/* tabled once all are known: in part order they would crowd one end of a table sized for fewer */
			if (td_grow(&en->bp_keys, &en->cap_bp_keys, en->n_boilerplate + 1, sizeof *en->bp_keys))
				return TD_FAIL(TD_ENOMEM, "no memory for %llu boilerplate n-grams",
					       (unsigned long long)en->n_boilerplate + 1);
			en->bp_keys[en->n_boilerplate++] = key;
		} else {
			en->gramf.w[filter_word(&en->gramf, key)] |= filter_bits(key);
		}
	}
	return 0;
}

/*
 * Orders each bucket's keys (stably) by their top FINE_BITS bits, through
 * a buffer of the largest bucket's keys, counting each part (part_b >=
 * COARSE_BITS: a part lies in one bucket) from the buffer on the way, and
 * sets en->fat.
 */
static int order_buckets(engine *en, local *l)
{
	size_t most = 0, off[FINE >> COARSE_BITS];
	uint64_t *buf;
	int err = 0;

	for (size_t g = 0; g < COARSE; g++) /* the keys still staged */
		if (en->bcur[g] % 8)
			memcpy(&en->gkeys[en->bcur[g] - en->bcur[g] % 8], en->stage[g], en->bcur[g] % 8 * sizeof *buf);
#if defined __SSE2__
	_mm_sfence(); /* the streamed lines before the reads */
#endif
	for (size_t g = 0; g < COARSE; g++) {
		size_t n = 0;

		for (size_t f = g << (FINE_BITS - COARSE_BITS); f < (g + 1) << (FINE_BITS - COARSE_BITS); f++)
			n += en->hist[f];
		most = n > most ? n : most;
	}
	if (!(buf = malloc((most + 1) * sizeof *buf)))
		return TD_FAIL(TD_ENOMEM, "no memory for the %zu n-grams of the index", most);
	for (size_t g = 0; g < COARSE; g++) {
		size_t f0 = g << (FINE_BITS - COARSE_BITS), n = 0, at;

		for (size_t f = 0; f < FINE >> COARSE_BITS; f++) {
			off[f] = n;
			n += en->hist[f0 + f];
		}
		at = en->head[g] == CHUNK_NONE ? 0 : (size_t)en->head[g] * CHUNK;
		for (size_t k = 0; k < n; k++, at = pool_next(en, at)) {
			uint64_t key = en->gkeys[at];

			buf[off[(key >> (64 - FINE_BITS)) & ((FINE >> COARSE_BITS) - 1)]++] = key;
		}
		/* off[f]: where value f0 + f ends in buf; a part: fp values */
		for (size_t f = 0, lo = 0, fp = (size_t)1 << (FINE_BITS - en->part_b);
		     f < FINE >> COARSE_BITS && !err; f += fp) {
			err = count_part(en, l, buf, lo, off[f + fp - 1]);
			lo = off[f + fp - 1];
		}
		at = en->head[g] == CHUNK_NONE ? 0 : (size_t)en->head[g] * CHUNK;
		for (size_t f = 0, k = 0; f < FINE >> COARSE_BITS; f++) {
			en->fat[f0 + f] = at;
			for (size_t j = 0; j < en->hist[f0 + f]; j++, at = pool_next(en, at))
				en->gkeys[at] = buf[k++];
		}
	}
	free(buf);
	return err;
}

/* Part p's buckets: [*f0, *f1). */
static inline void part_buckets(const engine *en, size_t p, size_t *f0, size_t *f1)
{
	*f0 = p << (FINE_BITS - en->part_b);
	*f1 = (p + 1) << (FINE_BITS - en->part_b);
}

/*
 * Builds B's n-gram index from the gathered keys: orders them and counts
 * them part by part, each part's counts small enough to stay in the L2
 * cache, into the filter (the keys that are not boilerplate), bp (those
 * that are) and the tallies. No table of every key is made: what A shares with B is found
 * later, from the few keys of A that the filter lets through
 * (gather_finish).
 */
static int gather_build(engine *en)
{
	size_t n = en->n_gkeys;
	unsigned b = part_bits(n) > COARSE_BITS ? part_bits(n) : COARSE_BITS; /* a part in one bucket */
	local l = {0};
	void *m;
	int err = 0;

	table_free(&en->grams); /* never used: the candidates are all the table there is */
	en->grams.cap = 0;
	en->part_b = b;
	en->gramf.n = n * FILTER_BITS / 64 + 1;
	m = mmap(NULL, en->gramf.n * sizeof *en->gramf.w, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return TD_FAIL(TD_ENOMEM, "no memory for a filter of %zu keys", n);
	madvise(m, en->gramf.n * sizeof *en->gramf.w, MADV_HUGEPAGE);
	en->gramf.w = m;
	if (!(en->pstart = calloc(((size_t)1 << b) + 1, sizeof *en->pstart)))
		return TD_FAIL(TD_ENOMEM, "no memory for the %zu n-grams of the index", n);
	for (size_t f = 0; f < FINE; f++)
		en->pstart[(f >> (FINE_BITS - b)) + 1] += en->hist[f];
	for (size_t p = 0; p < ((size_t)1 << b); p++)
		en->pstart[p + 1] += en->pstart[p];
	if ((err = local_init(&l, most_in_part(en->pstart, b))) || (err = order_buckets(en, &l)))
		goto done;
	if (!err && en->n_boilerplate && !(err = table_init(&en->bp, en->n_boilerplate)))
		for (size_t i = 0; i < en->n_boilerplate; i++)
			table_add(&en->bp, en->bp_keys[i], 0);
done:
	local_free(&l);
	return err;
}

/*
 * After the A stream: the keys of A that passed the filter (collected in
 * cand_keys, cand_lines) are partitioned by their top part_b bits; part by part, the
 * distinct ones that are not boilerplate become candidates (cand_line:
 * the first A line holding each), B's keys of the part are replaced by
 * their candidate's number where they are one (and their bit set in a
 * bitmap: a key of A that the filter let through by mistake is never one
 * of B's), and one pass over the codes gives every position of B its
 * first occurrence's number or SLOT_NONE, reading the bitmap (3 MB for 25
 * million keys, not 200) through a cursor for each value of the keys' top
 * FINE_BITS bits.
 */
static int gather_finish(engine *en)
{
	unsigned b = en->part_b;
	size_t np = (size_t)1 << b, nc = en->n_cand, *cs = calloc(np + 1, sizeof *cs), *cur = NULL;
	uint64_t *ck = NULL, *hit = NULL; /* hit: bit i set when B's key gkeys[i] is a candidate */
	uint32_t *cl = NULL, n_cands = 0;
	local l = {0};
	int err = 0;

	if (nc >= SLOT_NONE)
		return free(cs), TD_FAIL(TD_ENOMEM, "%zu n-grams of A may be in B: too many", nc);
	cur = malloc(np * sizeof *cur);
	ck = malloc((nc + 1) * sizeof *ck);
	cl = malloc((nc + 1) * sizeof *cl);
	en->cand_line = malloc((nc + 1) * sizeof *en->cand_line);
	hit = calloc(en->n_chunks * CHUNK / 64 + 1, sizeof *hit);
	if (!cs || !cur || !ck || !cl || !en->cand_line || !hit) {
		err = TD_FAIL(TD_ENOMEM, "no memory for %zu n-grams of A", nc);
		goto done;
	}
	for (size_t i = 0; i < nc; i++)
		cs[(b ? en->cand_keys[i] >> (64 - b) : 0) + 1]++;
	for (size_t p = 0; p < np; p++)
		cs[p + 1] += cs[p];
	memcpy(cur, cs, np * sizeof *cur);
	for (size_t i = 0; i < nc; i++) {
		size_t at = cur[b ? en->cand_keys[i] >> (64 - b) : 0]++;

		ck[at] = en->cand_keys[i];
		cl[at] = en->cand_lines[i];
	}
	if ((err = local_init(&l, most_in_part(cs, b))))
		goto done;
	for (size_t p = 0; p < np; p++) {
		local_clear(&l);
		for (size_t i = cs[p]; i < cs[p + 1]; i++) { /* the part's candidates: the lowest line */
			size_t k = local_probe(&l, ck[i]);

			if (!local_held(&l, k) && en->bp.n && table_find(&en->bp, ck[i]))
				continue; /* boilerplate: never overlap */
			if (!local_held(&l, k)) {
				local_put(&l, k, ck[i], n_cands);
				en->cand_line[n_cands++] = cl[i];
			} else if (cl[i] < en->cand_line[l.v[k].val]) {
				en->cand_line[l.v[k].val] = cl[i];
			}
		}
		size_t f0, f1;

		part_buckets(en, p, &f0, &f1);
		for (size_t f = f0; cs[p + 1] > cs[p] && f < f1; f++)
			for (size_t j = 0, at = en->fat[f]; j < en->hist[f]; j++, at = pool_next(en, at)) {
				size_t k = local_probe(&l, en->gkeys[at]);

				if (local_held(&l, k)) { /* few are: the others are left as they are */
					en->gkeys[at] = l.v[k].val;
					hit[at / 64] |= UINT64_C(1) << (at % 64);
				}
			}
	}
	for (size_t i = 0; i < en->n_pos; i++) { /* fat: a cursor a value of the top bits */
		uint32_t c = en->pos_slot[i];

		if (c & CODE_FIRST) {
			size_t f = c & (FINE - 1), at = en->fat[f];

			en->fat[f] = pool_next(en, at);
			en->pos_slot[i] = hit[at / 64] >> (at % 64) & 1 ? (uint32_t)en->gkeys[at] : SLOT_NONE;
		} else {
			en->pos_slot[i] = en->pos_slot[i - c];
		}
	}
done:
	local_free(&l);
	free(hit);
	free(cs);
	free(cur);
	free(ck);
	free(cl);
	return err;
}

/* A chunk of lines [first_line, ...) at bytes [begin, end) of a side, for one thread. */
typedef struct {
	engine *en;
	side *sd;
	uint64_t begin, end;    /* the chunk's bytes */
	uint32_t first_line, end_line; /* end_line: one past the chunk's last line */
	int measure;           /* 1: B records, measured; 0: A records, marked in B's index */
	int from_lines;        /* B indexed, read already: measure from its per-line keys and,
				  with n-grams, from the slots its positions were given */
	td_overlap_hit *hits;  /* measure: this chunk's hits, in line order */
	size_t n_hits, cap_hits;
	int err;               /* 0, or the first failure's code */
	uint32_t err_line;
	char why[MSG];
	uint64_t *cand_keys;   /* the gathered build, A records: the keys that passed B's filter */
	uint32_t *cand_lines;  /* and their lines */
	size_t n_cand;
	uint32_t n_records;    /* the records read (not from_lines) */
} chunk;

/*
 * The gathered build: keeps the waiting A keys (s->mark_keys) that pass
 * B's filter, with their lines, for gather_finish; empties the batch.
 */
static int collect_flush(engine *en, scratch *s)
{
	size_t n = s->n_mark;
	const uint64_t *keys = s->mark_keys;

	if (td_grow(&s->cand_keys, &s->cap_cand_keys, s->n_cand + n, sizeof *s->cand_keys) ||
	    td_grow(&s->cand_lines, &s->cap_cand_lines, s->n_cand + n, sizeof *s->cand_lines))
		return TD_ENOMEM;
	for (size_t j = 0; j < n && j < PREFETCH; j++)
		filter_prefetch(&en->gramf, keys[j]);
	for (size_t j = 0; j < n; j++) {
		if (j + PREFETCH < n)
			filter_prefetch(&en->gramf, keys[j + PREFETCH]);
		s->cand_keys[s->n_cand] = keys[j];
		s->cand_lines[s->n_cand] = s->mark_lines[j];
		s->n_cand += (size_t)filter_may_hold(&en->gramf, keys[j]); /* no branch to mispredict */
	}
	s->n_mark = 0;
	return 0;
}

/* Marks the waiting A keys (s->mark_keys) in B's n-gram index, and empties the batch. */
static int mark_flush(engine *en, scratch *s)
{
	size_t n = s->n_mark;
	const uint64_t *keys = s->mark_keys;
	slot *sl;

	if (en->gather)
		return collect_flush(en, s);
	for (size_t j = 0; j < n && j < PREFETCH; j++)
		filter_prefetch(&en->gramf, keys[j]);
	for (size_t j = 0; j < n; j++) {
		if (j + PREFETCH < n)
			filter_prefetch(&en->gramf, keys[j + PREFETCH]);
		if (!filter_may_hold(&en->gramf, keys[j]) || !(sl = table_find(&en->grams, keys[j])))
			continue;
		slot_mark(sl, s->mark_lines[j]);
		size_t i = (size_t)(sl - en->grams.v);

		if (en->hot && sl->count <= en->boilerplate) /* a false yes may find boilerplate */
			__atomic_fetch_or(&en->hot[i / 64], UINT64_C(1) << (i % 64), __ATOMIC_RELAXED);
	}
	s->n_mark = 0;
	return 0;
}

/*
 * Marks every key of A record r (line) in B's index: its id and exact
 * text now, its n-grams in batches (mark_flush; marking is an atomic
 * minimum, so when does not matter). Returns 0 or TD_ENOMEM.
 */
static int mark_record(engine *en, scratch *s, const record *r, uint32_t line)
{
	size_t n = s->n_mark + r->n_keys;
	slot *sl;

	if (r->id && (sl = table_find(&en->ids, r->id)))
		slot_mark(sl, line);
	if (r->exact && (sl = table_find(&en->exact, r->exact)))
		slot_mark(sl, line);
	if (!r->n_keys)
		return 0;
	if (td_grow(&s->mark_keys, &s->cap_mark_keys, n, sizeof *s->mark_keys) ||
	    td_grow(&s->mark_lines, &s->cap_mark_lines, n, sizeof *s->mark_lines))
		return TD_ENOMEM;
	memcpy(s->mark_keys + s->n_mark, s->keys, r->n_keys * sizeof *s->keys);
	for (size_t j = s->n_mark; j < n; j++)
		s->mark_lines[j] = line;
	s->n_mark = n;
	return n >= BATCH ? mark_flush(en, s) : 0;
}

/* The slot of the streamed side's key, or NULL; the filter first. */
static inline const slot *gram_find(const engine *en, uint64_t key)
{
	return filter_may_hold(&en->gramf, key) ? table_find(&en->grams, key) : NULL;
}

/* Is slot i hot (seen in A, not boilerplate)? */
static inline int slot_hot(const engine *en, uint32_t i)
{
	return (int)(en->hot[i / 64] >> (i % 64) & 1);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

/* The most frequent of v[0, n) (ties: the lowest); v is sorted in place. */
static uint32_t mode_u32(uint32_t *v, size_t n)
{
	uint32_t best = 0;
	size_t best_n = 0;

	qsort(v, n, sizeof *v, cmp_u32);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i > best_n) {
			best_n = j - i;
			best = v[i];
		}
	}
	return best;
}

/* A slot's A line when it counts as seen in A (and, for n-grams, is not boilerplate). */
static inline uint32_t seen_line(const slot *sl)
{
	return sl ? __atomic_load_n(&sl->line, __ATOMIC_RELAXED) : 0;
}

static int measure_end(const engine *en, scratch *s, const record *r, size_t n_lines, size_t best,
		       td_overlap_hit *h);

/* measure_record's n-grams for the gathered build: each position's candidate or SLOT_NONE. */
static int measure_slots(const engine *en, scratch *s, const record *r, const uint32_t *slots,
			 td_overlap_hit *h)
{
	size_t n_lines = 0, cur = 0, best = 0;

	for (size_t j = 0; j < r->n_keys; j++) {
		if (slots[j] == SLOT_NONE) {
			cur = 0;
			continue;
		}
		s->lines[n_lines++] = en->cand_line[slots[j]];
		if (++cur > best)
			best = cur;
	}
	return measure_end(en, s, r, n_lines, best, h);
}

/*
 * Measures B record r (line) against the index: fills h and returns 1 when
 * any detector fires, 0 when none does, -1 when memory runs out.
 */
static int measure_record(const engine *en, scratch *s, const record *r, const uint32_t *slots,
			  uint32_t line, td_overlap_hit *h)
{
	size_t n_lines = 0, cur = 0, best = 0;

	memset(h, 0, sizeof *h);
	h->b_line = line;
	if (r->id && (h->a_id = seen_line(table_find(&en->ids, r->id))))
		h->detectors |= TD_OVERLAP_ID;
	if (r->exact && (h->a_exact = seen_line(table_find(&en->exact, r->exact))))
		h->detectors |= TD_OVERLAP_EXACT;
	if (td_grow(&s->lines, &s->cap_lines, r->n_keys + 1, sizeof *s->lines))
		return -1;
	if (slots && en->cand_line)
		return measure_slots(en, s, r, slots, h);
	for (size_t j = 0; slots && j < r->n_keys && j < PREFETCH; j++)
		__builtin_prefetch(&en->hot[slots[j] / 64]);
	for (size_t j = 0; !slots && j < r->n_keys && j < PREFETCH; j++)
		filter_prefetch(&en->gramf, s->keys[j]);
	for (size_t j = 0; j < r->n_keys; j++) {
		const slot *sl;
		uint32_t a;

		if (j + PREFETCH < r->n_keys && slots)
			__builtin_prefetch(&en->hot[slots[j + PREFETCH] / 64]);
		else if (j + PREFETCH < r->n_keys)
			filter_prefetch(&en->gramf, s->keys[j + PREFETCH]);
		if (slots)
			sl = slot_hot(en, slots[j]) ? &en->grams.v[slots[j]] : NULL;
		else
			sl = gram_find(en, s->keys[j]);
		a = seen_line(sl);
		if (a && sl->count <= en->boilerplate) {
			s->lines[n_lines++] = a;
			if (++cur > best)
				best = cur;
		} else {
			cur = 0;
		}
	}
	return measure_end(en, s, r, n_lines, best, h);
}

/* Fills the rest of h from the matched positions' lines (s->lines) and the longest run. */
static int measure_end(const engine *en, scratch *s, const record *r, size_t n_lines, size_t best,
		       td_overlap_hit *h)
{
	h->n_grams = (uint32_t)r->n_keys;
	h->n_matched = (uint32_t)n_lines;
	if (n_lines) {
		h->detectors |= TD_OVERLAP_NGRAM;
		h->run = (uint32_t)(best + (size_t)en->ngram - 1);
		h->a_ngram = mode_u32(s->lines, n_lines);
		h->share = (double)n_lines / (double)r->n_keys;
	}
	if (h->detectors & TD_OVERLAP_EXACT) {
		h->share = 1;
		h->run = (uint32_t)r->n_words;
	}
	h->passes = (h->detectors & (TD_OVERLAP_ID | TD_OVERLAP_EXACT)) || h->share >= en->threshold;
	return h->detectors != 0;
}

/* Notes the chunk's first failure (the lowest line, as lines come in order). */
static void chunk_fail(chunk *c, int code, uint32_t line, const char *why)
{
	if (c->err)
		return;
	c->err = code;
	c->err_line = line;
	snprintf(c->why, sizeof c->why, "%s", why);
}

/* One thread: every line of the chunk, read and then marked or measured. */
static void *chunk_run(void *arg)
{
	chunk *c = arg;
	scratch s = {0};
	reader rd;
	const char *p;
	size_t n;
	uint32_t line = c->first_line;
	char why[MSG];
	int got = 0;

	reader_init(&rd, c->sd, c->begin, c->end);
	for (; c->from_lines && line < c->end_line; line++) {
		const engine *en = c->en;
		record r = {.exact = c->sd->exact[line - 1], .id = c->sd->id[line - 1],
			    .n_words = c->sd->n_words[line - 1]};
		const uint32_t *slots = NULL;
		td_overlap_hit h;

		if (line + PREFETCH < c->end_line && c->sd->exact[line + PREFETCH - 1])
			table_prefetch(&en->exact, c->sd->exact[line + PREFETCH - 1]);
		if (en->pos_ok) {
			r.n_keys = en->pos_first[line] - en->pos_first[line - 1];
			slots = en->pos_slot + en->pos_first[line - 1];
		}
		if ((r.exact || r.id || r.n_keys) && measure_record(en, &s, &r, slots, line, &h) > 0) {
			if (td_grow(&c->hits, &c->cap_hits, c->n_hits + 1, sizeof h)) {
				chunk_fail(c, TD_ENOMEM, line, "no memory");
				break;
			}
			c->hits[c->n_hits++] = h;
		}
	}
	for (; !c->from_lines && !c->err && (got = reader_line(&rd, &p, &n, why, sizeof why)) == 1; line++) {
		record r;
		int rc = line < c->end_line ? read_record(c->en, &s, &r, p, n, why, sizeof why) : -1;

		if (line >= c->end_line)
			snprintf(why, sizeof why, CHANGED);
		if (rc < 0) {
			chunk_fail(c, TD_EINVAL, line, why);
			break;
		}
		if (rc > 0)
			continue;
		c->n_records++;
		c->sd->exact[line - 1] = r.exact;
		c->sd->id[line - 1] = r.id;
		c->sd->n_words[line - 1] = (uint32_t)s.n_words;
		if (!c->measure) {
			if (mark_record(c->en, &s, &r, line)) {
				chunk_fail(c, TD_ENOMEM, line, "no memory");
				break;
			}
			continue;
		}
		td_overlap_hit h;
		int m = measure_record(c->en, &s, &r, NULL, line, &h);

		if (m < 0 || (m > 0 && td_grow(&c->hits, &c->cap_hits, c->n_hits + 1, sizeof h))) {
			chunk_fail(c, TD_ENOMEM, line, "no memory");
			break;
		}
		if (m > 0)
			c->hits[c->n_hits++] = h;
	}
	if (got < 0)
		chunk_fail(c, got, line, why);
	reader_free(&rd);
	if (!c->measure && !c->err && mark_flush(c->en, &s))
		chunk_fail(c, TD_ENOMEM, line, "no memory");
	c->cand_keys = s.cand_keys; /* the chunk's now: stream_side gathers them */
	c->cand_lines = s.cand_lines;
	c->n_cand = s.n_cand;
	s.cand_keys = NULL;
	s.cand_lines = NULL;
	scratch_free(&s);
	return NULL;
}

/*
 * Streams a side with jobs threads: each takes a run of whole lines. On a
 * failure, the one on the lowest line is reported. When measuring, the
 * hits are appended to res in line order.
 */
static int stream_side(engine *en, side *sd, int measure, int from_lines, int jobs,
		       td_overlap_result *res)
{
	chunk *c = calloc((size_t)jobs, sizeof *c);
	pthread_t *th = calloc((size_t)jobs, sizeof *th);
	size_t cap = 0;
	int err = 0, started = 0;

	if (!c || !th) {
		err = TD_FAIL(TD_ENOMEM, "no memory for %d jobs", jobs);
		goto done;
	}
	for (int i = 0; i < jobs; i++) /* side_count split the lines */
		c[i] = (chunk){.en = en, .sd = sd, .begin = sd->split[i], .end = sd->split[i + 1],
			       .first_line = sd->split_line[i], .end_line = sd->split_line[i + 1],
			       .measure = measure, .from_lines = from_lines};
	for (; started < jobs; started++)
		if (pthread_create(&th[started], NULL, chunk_run, &c[started])) {
			err = TD_FAIL(TD_EIO, "cannot start thread %d of %d", started + 1, jobs);
			break;
		}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < jobs && !err; i++)
		if (c[i].err)
			err = TD_FAIL(c[i].err, "%s:%u: %s", sd->path, c[i].err_line, c[i].why);
	for (int i = 0; i < jobs && !from_lines && !err; i++) /* every line read: all the records */
		sd->n_records = (i ? sd->n_records : 0) + c[i].n_records;
	for (int i = 0; i < jobs && !err && measure; i++) {
		if (td_grow(&res->hits, &cap, res->n_hits + c[i].n_hits, sizeof *res->hits)) {
			err = TD_FAIL(TD_ENOMEM, "no memory for %zu hits", res->n_hits + c[i].n_hits);
			break;
		}
		if (c[i].n_hits) /* a chunk without hits has no array: memcpy's NULL is undefined */
			memcpy(res->hits + res->n_hits, c[i].hits, c[i].n_hits * sizeof *c[i].hits);
		res->n_hits += c[i].n_hits;
	}
	for (int i = 0; i < jobs && !err && !measure && en->gather; i++) {
		size_t n = en->n_cand + c[i].n_cand;

		if (td_grow(&en->cand_keys, &en->cap_cand_keys, n, sizeof *en->cand_keys) ||
		    td_grow(&en->cand_lines, &en->cap_cand_lines, n, sizeof *en->cand_lines)) {
			err = TD_FAIL(TD_ENOMEM, "no memory for %zu n-grams of A", n);
			break;
		}
		if (c[i].n_cand) {
			memcpy(en->cand_keys + en->n_cand, c[i].cand_keys, c[i].n_cand * sizeof *c[i].cand_keys);
			memcpy(en->cand_lines + en->n_cand, c[i].cand_lines, c[i].n_cand * sizeof *c[i].cand_lines);
		}
		en->n_cand = n;
	}
done:
	for (int i = 0; c && i < jobs; i++) {
		free(c[i].hits);
		free(c[i].cand_keys);
		free(c[i].cand_lines);
	}
	free(c);
	free(th);
	return err;
}

/* Builds the index from the indexed side, one line at a time, in order. */
static int build_index(engine *en, side *sd)
{
	const char *p;
	size_t n;
	uint32_t line = 1;
	scratch s = {0};
	reader rd;
	char why[MSG];
	int err = 0, got;

	en->pos_ok = en->indexed_b && en->ngram > 0 && table_cap(&en->grams) <= UINT32_MAX &&
		     (en->pos_first = malloc(((size_t)sd->n_lines + 1) * sizeof *en->pos_first));
	/* a record of len bytes has at most (len + 1) / 2 words, so at most that many n-grams */
	en->cap_gkeys = sd->len / 2 + sd->n_lines + 1;
	/* each bucket's last chunk may be part full */
	en->cap_pool = (en->cap_gkeys / CHUNK + COARSE + 1) * CHUNK;
	en->gather = en->pos_ok && en->cap_pool / CHUNK < CHUNK_NONE &&
		     (en->hist = calloc(FINE, sizeof *en->hist)) &&
		     (en->fat = calloc(FINE, sizeof *en->fat)) &&
		     (en->chunk_next = malloc(en->cap_pool / CHUNK * sizeof *en->chunk_next)) &&
		     (en->gkeys = keys_map(en->cap_pool));
	for (size_t g = 0; g < COARSE; g++)
		en->head[g] = CHUNK_NONE;
	/* as many codes as keys at most: the whole array at once (pages touched as used), never copied */
	if (en->gather && (en->pos_slot = malloc(en->cap_gkeys * sizeof *en->pos_slot)))
		en->cap_pos = en->cap_gkeys;
	reader_init(&rd, sd, 0, sd->len);
	for (; (got = reader_line(&rd, &p, &n, why, sizeof why)) == 1; line++) {
		record r;
		int rc = line <= sd->n_lines ? read_record(en, &s, &r, p, n, why, sizeof why) : -1;

		if (line > sd->n_lines)
			snprintf(why, sizeof why, CHANGED);
		if (en->pos_ok)
			en->pos_first[line - 1] = en->n_pos + en->n_batch;
		if (rc < 0) {
			err = TD_FAIL(TD_EINVAL, "%s:%u: %s", sd->path, line, why);
			break;
		}
		if (rc > 0)
			continue;
		sd->n_records++;
		sd->exact[line - 1] = r.exact;
		sd->id[line - 1] = r.id;
		sd->n_words[line - 1] = (uint32_t)s.n_words;
		if ((err = index_record(en, &s, &r, line, sd->is_a)))
			break;
	}
	if (got < 0 && !err)
		err = TD_FAIL(got, "%s:%u: %s", sd->path, line, why);
	reader_free(&rd);
	if (!err)
		err = en->gather ? gather_build(en) : batch_flush(en);
	if (en->pos_ok)
		en->pos_first[sd->n_lines] = en->n_pos;
	scratch_free(&s);
	return err;
}

/*
 * Is small[0, ns) the lines of big[0, nb) starting somewhere? Sets *first
 * (1-based) and returns 1. Gives up after comparing 64 * (nb + ns) lines,
 * so that a file of repeated lines cannot make it quadratic.
 */
static int find_run(const uint64_t *big, uint32_t nb, const uint64_t *small, uint32_t ns,
		    uint32_t *first)
{
	uint64_t budget = 64 * ((uint64_t)nb + ns);

	if (ns > nb)
		return 0;
	for (uint32_t s = 0; s + ns <= nb && budget; s++) {
		uint32_t k = 0;

		if (big[s] != small[0])
			continue;
		while (k < ns && big[s + k] == small[k] && --budget)
			k++;
		if (k == ns) {
			*first = s + 1;
			return 1;
		}
	}
	return 0;
}

static void find_relation(td_overlap_result *res, const side *a, const side *b)
{
	uint32_t first;

	res->relation = TD_OVERLAP_REL_NONE;
	if (find_run(a->exact, a->n_lines, b->exact, b->n_lines, &first))
		res->relation_b_in_a = 1;
	else if (find_run(b->exact, b->n_lines, a->exact, a->n_lines, &first))
		res->relation_b_in_a = 0;
	else
		return;
	res->rel_first = first;
	res->rel_last = first - 1 + (res->relation_b_in_a ? b->n_lines : a->n_lines);
	res->relation = a->n_lines == b->n_lines ? TD_OVERLAP_REL_SAME
			: first == 1		 ? TD_OVERLAP_REL_PREFIX
						 : TD_OVERLAP_REL_SUBRANGE;
}

static int side_result(td_overlap_side *out, const side *sd)
{
	out->path = strdup(sd->path);
	out->bytes = sd->len;
	out->lines = sd->n_lines;
	out->records = sd->n_records;
	return out->path ? 0 : TD_FAIL(TD_ENOMEM, "no memory");
}

static int check_opts(engine *en, const td_overlap_opts *o, int *jobs)
{
	static const td_overlap_opts none;

	if (!o)
		o = &none;
	en->ngram = o->ngram == 0 ? NGRAM_DEFAULT : o->ngram < 0 ? 0 : o->ngram;
	en->threshold = o->threshold == 0 ? THRESHOLD_DEFAULT : o->threshold;
	en->field = o->field;
	en->id_field = o->id_field ? o->id_field : "id";
	*jobs = o->jobs ? o->jobs : 1;
	if (en->ngram > NGRAM_MAX)
		return TD_FAIL(TD_EINVAL, "ngram %d: at most %d words", en->ngram, NGRAM_MAX);
	if (!(en->threshold > 0 && en->threshold <= 1))
		return TD_FAIL(TD_EINVAL, "threshold %g: give a share in (0, 1]", en->threshold);
	if (o->boilerplate < 0 || o->boilerplate >= UINT32_MAX)
		return TD_FAIL(TD_EINVAL, "boilerplate %lld: give a number of records >= 1",
			       o->boilerplate);
	if (*jobs < 1 || *jobs > 1024)
		return TD_FAIL(TD_EINVAL, "jobs %d: give 1..1024", *jobs);
	en->boilerplate = o->boilerplate ? (uint32_t)o->boilerplate : BOILERPLATE_DEFAULT;
	return 0;
}

/* Counts the hits that pass and the boilerplate n-grams; fills the rest of res. */
static void finish(td_overlap_result *res, const engine *en)
{
	res->n_passing = 0;
	for (size_t i = 0; i < res->n_hits; i++)
		res->n_passing += res->hits[i].passes != 0;
	res->boilerplate_ngrams = en->n_boilerplate;
	res->index_entries = en->gather ? en->n_distinct : en->grams.n;
	res->index_bytes = (table_cap(&en->ids) + table_cap(&en->exact) + table_cap(&en->grams)) *
			   sizeof(slot);
	res->filter_bytes = en->gramf.n * sizeof *en->gramf.w +
			    (en->hot ? (table_cap(&en->grams) / 64 + 1) * sizeof *en->hot : 0);
	res->ngram = en->ngram;
	res->threshold = en->threshold;
	res->boilerplate = en->boilerplate;
	res->indexed_b = en->indexed_b;
}

int td_overlap_run(td_overlap_result **out, const char *path_a, const char *path_b,
		   const td_overlap_opts *o)
{
	engine en = {0};
	side a = {.fd = -1}, b = {.fd = -1};
	td_overlap_result *res = NULL;
	int jobs, err;

	*out = NULL;
	if ((err = check_opts(&en, o, &jobs)))
		return err;
	if ((err = side_open(&a, path_a, 1)) || (err = side_open(&b, path_b, 0)) ||
	    (err = side_count(&a, jobs)) || (err = side_count(&b, jobs)))
		goto done;
	en.indexed_b = b.len < a.len;
	side *small = en.indexed_b ? &b : &a, *big = en.indexed_b ? &a : &b;

	if ((err = table_init(&en.ids, 0)) || (err = table_init(&en.exact, small->n_lines)) ||
	    (err = table_init(&en.grams, en.ngram ? small->len / 8 : 0)))
		goto done;
	res = calloc(1, sizeof *res);
	if (!res) {
		err = TD_FAIL(TD_ENOMEM, "no memory");
		goto done;
	}
	if ((err = build_index(&en, small)) ||
	    (en.ngram && !en.gather && (err = filter_build(&en.gramf, &en.grams, en.boilerplate))))
		goto done;
	if (en.pos_ok && !en.gather && !(en.hot = calloc(table_cap(&en.grams) / 64 + 1, sizeof *en.hot)))
		en.pos_ok = 0; /* no memory for it: B is read again instead */
	/* B indexed: mark B's keys with the A lines holding them, then measure B */
	if ((err = stream_side(&en, big, !en.indexed_b, 0, jobs, res)) ||
	    (en.gather && (err = gather_finish(&en))))
		goto done;
	if (en.indexed_b && (err = stream_side(&en, small, 1, en.ngram == 0 || en.pos_ok, jobs, res)))
		goto done;
	for (side *sd = &a; sd; sd = sd == &a ? &b : NULL)
		if (sd->n_records == 0) {
			err = TD_FAIL(TD_EINVAL, "%s: no records (%u blank lines): nothing to compare; "
					"give a file with one record per line", sd->path, sd->n_lines);
			goto done;
		}
	find_relation(res, &a, &b);
	finish(res, &en);
	if ((err = side_result(&res->a, &a)) || (err = side_result(&res->b, &b)))
		goto done;
	*out = res;
	res = NULL;
done:
	td_overlap_result_free(res);
	free(en.pos_slot);
	free(en.pos_first);
	free(en.hot);
	free(en.batch_first);
	free(en.batch_lines);
	free(en.batch_at);
	free(en.batch_keys);
	keys_free(en.gkeys, en.cap_pool);
	free(en.fat);
	free(en.chunk_next);
	free(en.pstart);
	free(en.cand_keys);
	free(en.cand_lines);
	free(en.cand_line);
	table_free(&en.bp);
	free(en.bp_keys);
	free(en.hist);
	filter_free(&en.gramf);
	table_free(&en.ids);
	table_free(&en.exact);
	table_free(&en.grams);
	side_close(&b);
	side_close(&a);
	return err;
}

void td_overlap_result_free(td_overlap_result *r)
{
	if (!r)
		return;
	free(r->a.path);
	free(r->b.path);
	free(r->hits);
	free(r);
}

/* ---- reports --------------------------------------------------------------- */

const char *td_overlap_relation_text(char *buf, size_t size, const td_overlap_result *r)
{
	const char *in = r->relation_b_in_a ? "B" : "A", *of = r->relation_b_in_a ? "A" : "B";

	switch (r->relation) {
	case TD_OVERLAP_REL_SAME:
		snprintf(buf, size, "B is A: the same %u lines", r->a.lines);
		break;
	case TD_OVERLAP_REL_PREFIX:
	case TD_OVERLAP_REL_SUBRANGE:
		snprintf(buf, size, "%s is lines %u..%u of %s: a %s", in, r->rel_first, r->rel_last, of,
			 r->relation == TD_OVERLAP_REL_PREFIX ? "prefix" : "sub-range");
		break;
	default:
		snprintf(buf, size, "none");
	}
	return buf;
}

static const char *detector_names(char *buf, size_t size, unsigned d)
{
	snprintf(buf, size, "%s%s%s%s%s", d & TD_OVERLAP_ID ? "id" : "",
		 (d & TD_OVERLAP_ID) && (d & ~1u) ? "," : "", d & TD_OVERLAP_EXACT ? "exact" : "",
		 (d & TD_OVERLAP_EXACT) && (d & TD_OVERLAP_NGRAM) ? "," : "",
		 d & TD_OVERLAP_NGRAM ? "ngram" : "");
	return buf;
}

/* The A line a hit names: exact's, else id's, else the n-grams'. */
static uint32_t hit_a_line(const td_overlap_hit *h)
{
	return h->a_exact ? h->a_exact : h->a_id ? h->a_id : h->a_ngram;
}

static int buf_done(td_json_buf *b, char **text, size_t *len)
{
	if (b->err || !b->s) {
		td_json_buf_free(b);
		return TD_FAIL(TD_ENOMEM, "no memory for the report");
	}
	*text = b->s;
	if (len)
		*len = b->len;
	return 0;
}

static void putf(td_json_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(td_json_buf *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	td_json_put_raw(b, line);
}

int td_overlap_report_text(char **text, size_t *len, const td_overlap_result *r)
{
	td_json_buf b = TD_JSON_BUF_INIT;
	char rel[256], det[32];

	putf(&b, "A: %s: %u lines, %u records, %zu bytes\n", r->a.path, r->a.lines, r->a.records,
	     r->a.bytes);
	putf(&b, "B: %s: %u lines, %u records, %zu bytes\n", r->b.path, r->b.lines, r->b.records,
	     r->b.bytes);
	putf(&b, "indexed: %s (the smaller); normalisation %s; ", r->indexed_b ? "B" : "A",
	     TD_OVERLAP_NORM);
	if (r->ngram)
		putf(&b, "%d-grams, threshold %g, boilerplate: in more than %lld records of %s\n",
		     r->ngram, r->threshold, r->boilerplate, r->indexed_b ? "B" : "A");
	else
		putf(&b, "n-grams off\n");
	putf(&b, "relation: %s\n", td_overlap_relation_text(rel, sizeof rel, r));
	if (r->ngram)
		putf(&b, "boilerplate: %llu distinct %d-grams (not counted as overlap)\n",
		     (unsigned long long)r->boilerplate_ngrams, r->ngram);
	for (size_t i = 0; i < r->n_hits; i++) {
		const td_overlap_hit *h = &r->hits[i];
		uint32_t a = hit_a_line(h);

		putf(&b, "B:%u\tA:", h->b_line);
		if (a)
			putf(&b, "%u", a);
		else
			putf(&b, "-");
		putf(&b, "\t%s\tshare %.3f (%u/%u)\trun %u%s\n",
		     detector_names(det, sizeof det, h->detectors), h->share, h->n_matched,
		     h->n_grams, h->run, h->passes ? "\tPASSES" : "");
	}
	putf(&b, "total: %zu of %u records of B overlap A; %zu pass the threshold\n", r->n_hits,
	     r->b.records, r->n_passing);
	return buf_done(&b, text, len);
}

static void json_side(td_json_buf *b, const char *name, const td_overlap_side *s)
{
	putf(b, "\"%s\":{\"path\":", name);
	td_json_put_string(b, s->path);
	putf(b, ",\"bytes\":%zu,\"lines\":%u,\"records\":%u},", s->bytes, s->lines, s->records);
}

int td_overlap_report_json(char **text, size_t *len, const td_overlap_result *r)
{
	static const char *const kinds[] = {"none", "same", "prefix", "sub-range"};
	td_json_buf b = TD_JSON_BUF_INIT;
	char rel[256];

	putf(&b, "{\"schema\":\"%s\",\"normalisation\":\"%s\",", TD_OVERLAP_SCHEMA, TD_OVERLAP_NORM);
	json_side(&b, "a", &r->a);
	json_side(&b, "b", &r->b);
	putf(&b, "\"indexed\":\"%s\",\"ngram\":%d,\"threshold\":", r->indexed_b ? "b" : "a", r->ngram);
	td_json_put_number(&b, r->threshold);
	putf(&b, ",\"boilerplate_records\":%lld,\"boilerplate_ngrams\":%llu,", r->boilerplate,
	     (unsigned long long)r->boilerplate_ngrams);
	putf(&b, "\"relation\":{\"kind\":\"%s\"", kinds[r->relation]);
	if (r->relation)
		putf(&b, ",\"inner\":\"%s\",\"first\":%u,\"last\":%u", r->relation_b_in_a ? "b" : "a",
		     r->rel_first, r->rel_last);
	putf(&b, ",\"text\":");
	td_json_put_string(&b, td_overlap_relation_text(rel, sizeof rel, r));
	putf(&b, "},\"hits\":[");
	for (size_t i = 0; i < r->n_hits; i++) {
		const td_overlap_hit *h = &r->hits[i];

		putf(&b, "%s{\"b_line\":%u,\"a_line\":%u,\"detectors\":[%s%s%s%s%s],", i ? "," : "",
		     h->b_line, hit_a_line(h), h->detectors & TD_OVERLAP_ID ? "\"id\"" : "",
		     (h->detectors & TD_OVERLAP_ID) && (h->detectors & ~1u) ? "," : "",
		     h->detectors & TD_OVERLAP_EXACT ? "\"exact\"" : "",
		     (h->detectors & TD_OVERLAP_EXACT) && (h->detectors & TD_OVERLAP_NGRAM) ? "," : "",
		     h->detectors & TD_OVERLAP_NGRAM ? "\"ngram\"" : "");
		putf(&b, "\"a_id\":%u,\"a_exact\":%u,\"a_ngram\":%u,\"ngrams\":%u,\"matched\":%u,"
			 "\"share\":", h->a_id, h->a_exact, h->a_ngram, h->n_grams, h->n_matched);
		td_json_put_number(&b, h->share);
		putf(&b, ",\"longest_run\":%u,\"passes\":%s}", h->run, h->passes ? "true" : "false");
	}
	putf(&b, "],\"total\":{\"overlapping\":%zu,\"passing\":%zu}}\n", r->n_hits, r->n_passing);
	return buf_done(&b, text, len);
}
