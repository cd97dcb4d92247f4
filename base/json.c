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

size_t td_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void td_json_put_string(td_json_buf *b, const char *s)
{
	char tmp[8];

	put_bytes(b, "\"", 1);
	for (const char *p = s; *p;) {
		const char *e = escape_of((unsigned char)*p, tmp);
		size_t n = td_utf8_len(p);

		if (e)
			td_json_put_raw(b, e), n = 1;
		else if (n)
			put_bytes(b, p, n);
		else /* not UTF-8: JSON text must be, so the byte becomes U+FFFD */
			td_json_put_raw(b, "\\ufffd"), n = 1;
		p += n;
	}
	put_bytes(b, "\"", 1);
}

void td_xml_put_text(td_json_buf *b, const char *s)
{
	for (const char *p = s; p && *p;) {
		size_t n = td_utf8_len(p);

		if (*p == '&')
			td_json_put_raw(b, "&amp;");
		else if (*p == '<')
			td_json_put_raw(b, "&lt;");
		else if (*p == '>')
			td_json_put_raw(b, "&gt;");
		else if (*p == '"')
			td_json_put_raw(b, "&quot;");
		else if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			td_json_put_raw(b, " "); /* not allowed in XML 1.0, even escaped */
		else if (n)
			put_bytes(b, p, n);
		else
			td_json_put_raw(b, "\xef\xbf\xbd"); /* U+FFFD for a byte that is not UTF-8 */
		p += n ? n : 1;
	}
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
