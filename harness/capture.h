/*
 * capture.h - a child's output, bounded: read from a pipe into its file,
 * the first `limit` bytes and the last TD_CAPTURE_TAIL bytes kept, the
 * bytes between them counted and dropped. A mutant that prints gigabytes
 * fills neither the memory nor the disk, and a runner's verdict at the end
 * of a long output (a fail_text) is still in the file.
 *
 * The harness drains the pipe while it waits for the child (proc.c), so a
 * child never blocks on a full pipe for long.
 */
#ifndef TD_CAPTURE_H
#define TD_CAPTURE_H

#include <stddef.h>

#define TD_CAPTURE_TAIL (64 * 1024)        /* bytes kept from the end of a cut output */
#define TD_CAPTURE_LIMIT ((size_t)16 << 20) /* the default head kept: 16 MiB */

/* One stream. Plain data: its fields are read by proc.c and the tests. */
typedef struct {
	int in;                  /* the pipe's read end; -1 once at end of file */
	int out;                 /* the file it is kept in: borrowed, never closed here */
	size_t limit;            /* head bytes kept */
	unsigned long long seen; /* bytes read from the pipe */
	char *tail;              /* the ring of the last bytes past limit; NULL until needed */
	size_t tail_len, tail_pos;
} td_capture;

/*
 * Makes the pipe of a stream kept in the open file out, keeping limit
 * bytes (0: TD_CAPTURE_LIMIT). *child_end gets the write end, for the
 * child's stdout or stderr; the caller closes it after the fork. Both
 * ends are close-on-exec. TD_EIO when the pipe cannot be made.
 */
int td_capture_open(td_capture *c, int out, size_t limit, int *child_end);

/*
 * Waits up to ms milliseconds for output on any of the n streams and
 * keeps what arrived. Returns at once when there is output.
 */
void td_capture_wait(td_capture *c, int n, int ms);

/*
 * Keeps what is left in the pipe without waiting for more (a descendant
 * that escaped may hold it open), closes it, and, when the output was
 * cut, appends a line saying how many bytes were dropped, then the tail.
 * Returns the number of bytes dropped (0: all kept). Safe on a stream
 * whose open failed or that was closed already.
 */
unsigned long long td_capture_close(td_capture *c);

#endif
