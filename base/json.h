/*
 * json.h - JSON text: a growable buffer that objects and log lines are
 * built in, strings escaped, numbers in the shortest form that reads back.
 * The training log (core/jsonl.h) and the harness's reports write with it.
 */
#ifndef TD_JSON_H
#define TD_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A growable text buffer: JSON objects and text log lines are built in one.
 * Plain data: start from TD_JSON_BUF_INIT; release with td_json_buf_free.
 * An allocation failure is sticky: err becomes TD_ENOMEM, later appends do
 * nothing, and s keeps what was built so far (NUL-terminated when non-NULL).
 */
typedef struct td_json_buf {
	char *s;	  /* the text, NUL-terminated; NULL until the first append */
	size_t len, cap;  /* bytes used (without the NUL) and allocated */
	int err;	  /* 0, or TD_ENOMEM after a failed growth */
} td_json_buf;

#define TD_JSON_BUF_INIT                                                                           \
	{                                                                                          \
		NULL, 0, 0, 0                                                                      \
	}

/* Frees b's text and resets it to TD_JSON_BUF_INIT; accepts NULL. */
void td_json_buf_free(td_json_buf *b);

/* Empties b, keeping its allocation (and clearing err). */
void td_json_buf_clear(td_json_buf *b);

/* Appends text as it is (no escaping). */
void td_json_put_raw(td_json_buf *b, const char *text);

/*
 * Writes s to f as a JSON string (escaped as td_json_put_string does), or
 * null when s is NULL. For writers that stream JSON to a FILE.
 */
void td_json_fput_string(FILE *f, const char *s);

/*
 * Appends s as a JSON string: quoted, with ", \ and control bytes escaped;
 * a byte that is not part of valid UTF-8 becomes \ufffd, so the output is
 * valid JSON whatever s holds.
 */
void td_json_put_string(td_json_buf *b, const char *s);

/*
 * Appends s as XML character data (for text and attribute values): & < > "
 * escaped, control characters XML 1.0 forbids as a space, a byte that is
 * not valid UTF-8 as U+FFFD. NULL appends nothing.
 */
void td_xml_put_text(td_json_buf *b, const char *s);

/*
 * The length (1 to 4) of the valid UTF-8 sequence s starts with (a NUL
 * byte is 1), or 0 when it starts with a byte that is not one (overlong
 * forms, surrogates and code points past U+10FFFF included).
 */
size_t td_utf8_len(const char *s);

/*
 * Appends v as a JSON number in the shortest %.*g form that reads back to
 * v; a non-finite v is written as null. Returns 1 when v was written as
 * null, 0 otherwise.
 */
int td_json_put_number(td_json_buf *b, double v);

/* Appends v in decimal. */
void td_json_put_int(td_json_buf *b, int64_t v);

#endif
