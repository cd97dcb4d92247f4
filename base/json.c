/*
 * json.c - JSON text built in a growable buffer (see json.h).
 *
 * Must never produce text that is not valid JSON: strings are escaped, and
 * a number that is not finite is written as null, never as "nan".
 */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "grow.h"

void td_json_buf_free(td_json_buf *b)
{
	if (!b)
		return;
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

void td_json_buf_clear(td_json_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* Room for n more bytes and the NUL; sets the sticky error on failure. */
static int reserve(td_json_buf *b, size_t n)
{
	if (b->err)
		return 0;
	b->err = td_grow(&b->s, &b->cap, b->len + n + 1, 1); /* sticky: later puts do nothing */
	return !b->err;
}

static void put_bytes(td_json_buf *b, const char *p, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void td_json_put_raw(td_json_buf *b, const char *text)
{
	put_bytes(b, text, strlen(text));
}

/* The escape for byte ch, or NULL when it passes through as it is. */
static const char *escape_of(unsigned char ch, char tmp[8])
{
	switch (ch) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	default: break;
	}
	if (ch >= 0x20 && ch != 0x7f)
		return NULL;
	snprintf(tmp, 8, "\\u%04x", ch);
	return tmp;
}

void td_json_put_string(td_json_buf *b, const char *s)
{
	char tmp[8];

	put_bytes(b, "\"", 1);
	for (const char *p = s; *p; p++) {
		const char *e = escape_of((unsigned char)*p, tmp);

		if (e)
			td_json_put_raw(b, e);
		else
			put_bytes(b, p, 1);
	}
	put_bytes(b, "\"", 1);
}

int td_json_put_number(td_json_buf *b, double v)
{
	char num[40];

	if (!isfinite(v)) {
		td_json_put_raw(b, "null");
		return 1;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(num, sizeof num, "%.*g", prec, v);
		if (strtod(num, NULL) == v)
			break;
	}
	td_json_put_raw(b, num);
	return 0;
}

void td_json_put_int(td_json_buf *b, int64_t v)
{
	char num[32];

	snprintf(num, sizeof num, "%lld", (long long)v);
	td_json_put_raw(b, num);
}

void td_json_fput_string(FILE *f, const char *s)
{
	td_json_buf b = TD_JSON_BUF_INIT;

	if (!s) {
		fputs("null", f);
		return;
	}
	td_json_put_string(&b, s);
	fputs(b.s && !b.err ? b.s : "null", f);
	td_json_buf_free(&b);
}
