/*
 * capture.c - a child's output read from a pipe, bounded (capture.h).
 *
 * Must never hold more than TD_CAPTURE_TAIL bytes of a stream in memory,
 * nor write more than limit + TD_CAPTURE_TAIL bytes (and one line) to its
 * file, nor block on a pipe: every read is non-blocking.
 */
#define _GNU_SOURCE
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"

#define READ_CHUNK 65536
#define READS_PER_WAKE 16 /* then back to the caller, which checks its deadline */

int td_capture_open(td_capture *c, int out, size_t limit, int *child_end)
{
	int p[2];

	memset(c, 0, sizeof *c);
	c->in = -1;
	c->out = out;
	c->limit = limit ? limit : TD_CAPTURE_LIMIT;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		return TD_FAIL(TD_EIO, "cannot make a pipe for a child's output: %s", strerror(errno));
	fcntl(p[1], F_SETFL, 0); /* the child's end blocks, as a file would not */
	c->in = p[0];
	*child_end = p[1];
	return 0;
}

/* Writes all of buf to fd (a regular file); errors are dropped: the log is best effort. */
static void put(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w <= 0 && errno != EINTR)
			return;
		if (w > 0)
			buf += w, len -= (size_t)w;
	}
}

/* Keeps len bytes past the head in the ring (only the last TD_CAPTURE_TAIL matter). */
static void keep_tail(td_capture *c, const char *buf, size_t len)
{
	if (!c->tail && !(c->tail = malloc(TD_CAPTURE_TAIL)))
		return; /* counted as dropped; the note still says so */
	if (len > TD_CAPTURE_TAIL) {
		buf += len - TD_CAPTURE_TAIL;
		len = TD_CAPTURE_TAIL;
	}
	while (len > 0) {
		size_t n = TD_CAPTURE_TAIL - c->tail_pos < len ? TD_CAPTURE_TAIL - c->tail_pos : len;

		memcpy(c->tail + c->tail_pos, buf, n);
		c->tail_pos = (c->tail_pos + n) % TD_CAPTURE_TAIL;
		c->tail_len = c->tail_len + n < TD_CAPTURE_TAIL ? c->tail_len + n : TD_CAPTURE_TAIL;
		buf += n;
		len -= n;
	}
}

/* Sorts len bytes just read into the head (the file) and the tail. */
static void take(td_capture *c, const char *buf, size_t len)
{
	size_t head = 0;

	if (c->seen < c->limit)
		head = c->limit - c->seen < len ? (size_t)(c->limit - c->seen) : len;
	put(c->out, buf, head);
	keep_tail(c, buf + head, len - head);
	c->seen += len;
}

/* Reads what the pipe holds, a bounded number of chunks; closes it at end of file. */
static void pump(td_capture *c, int bounded)
{
	static __thread char buf[READ_CHUNK];

	for (int i = 0; c->in >= 0 && (!bounded || i < READS_PER_WAKE); i++) {
		ssize_t n = read(c->in, buf, sizeof buf);

		if (n > 0) {
			take(c, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		close(c->in); /* end of file, or an error: nothing more will come */
		c->in = -1;
	}
}

void td_capture_wait(td_capture *c, int n, int ms)
{
	struct pollfd fds[2];
	int k = 0;

	for (int i = 0; i < n && k < 2; i++)
		if (c[i].in >= 0)
			fds[k++] = (struct pollfd){.fd = c[i].in, .events = POLLIN};
	if (poll(fds, (nfds_t)k, ms) <= 0)
		return;
	for (int i = 0; i < n; i++)
		pump(&c[i], 1);
}

unsigned long long td_capture_close(td_capture *c)
{
	unsigned long long dropped;

	if (c->in >= 0) {
		pump(c, 0); /* non-blocking: returns at EAGAIN even if a writer lives on */
		if (c->in >= 0)
			close(c->in);
		c->in = -1;
	}
	dropped = c->seen > c->limit ? c->seen - c->limit - (c->tail ? c->tail_len : 0) : 0;
	if (c->seen > c->limit) {
		char note[200];
		size_t start = c->tail_len < TD_CAPTURE_TAIL ? 0 : c->tail_pos;
		int len = snprintf(note, sizeof note,
				   "\n[tdaudit: output cut after %zu bytes: %llu bytes not kept; the "
				   "last %zu follow]\n",
				   c->limit, dropped, c->tail ? c->tail_len : 0);

		put(c->out, note, (size_t)len);
		if (c->tail) {
			put(c->out, c->tail + start, c->tail_len - start);
			put(c->out, c->tail, start);
		}
	}
	free(c->tail);
	c->tail = NULL;
	c->seen = 0; /* closed: a second call writes nothing */
	return dropped;
}
