/*
 * error.h - the error model of the base, the core, the harness and the ledger.
 *
 * A function that can fail returns int: 0 on success or a negative TD_E*
 * code. On failure it leaves a one-line message for the user, readable
 * with td_error_last(): the offending value and what to do about it, never
 * the source file or function that noticed (td_error_origin() keeps those,
 * for a developer). Callers pass codes up unchanged and never repaint a
 * lower-level message. Nothing in the libraries aborts or exits.
 */
#ifndef TD_ERROR_H
#define TD_ERROR_H

enum {
	TD_OK = 0,
	TD_EINVAL = -1,   /* a bad argument: the message names it */
	TD_ENOMEM = -2,   /* an allocation failed or a size overflowed */
	TD_EIO = -3,      /* a file or process operation failed */
	TD_ENOTSUP = -4,  /* not available in this build (e.g. no CUDA) */
	TD_ESTATE = -5,   /* an object is in the wrong state for the call */
};

/*
 * Records code and a message for this thread and returns code, so that a
 * failure reads `return TD_FAIL(TD_EINVAL, "axis %d ...", i);`.
 */
int td_error_set(int code, const char *file, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define TD_FAIL(code, ...) td_error_set((code), __FILE__, __func__, __VA_ARGS__)

/*
 * A precondition or invariant that runs in every build: when expr is
 * false, the enclosing function (which returns int) returns TD_EINVAL
 * with a message naming the file, function, line and expr's text (a
 * broken invariant is the tool's bug: where it broke is the message),
 * `return TD_FAIL(...)` style. It never aborts: a broken invariant in the
 * libraries is an error the caller sees, not the end of the process.
 * Write what must hold: TD_REQUIRE(n <= cap), TD_REQUIRE(err == 0).
 */
#define TD_REQUIRE(expr)                                                                           \
	do {                                                                                       \
		if (!(expr))                                                                       \
			return td_error_set(TD_EINVAL, __FILE__, __func__,                         \
					    "%s: %s: line %d: requirement failed: %s", __FILE__,   \
					    __func__, __LINE__, #expr);                            \
	} while (0)

/*
 * The message of this thread's last failure, or "no error". Never NULL.
 * Borrowed: valid until this thread's next failure.
 */
const char *td_error_last(void);

/*
 * Where this thread's last failure was raised, "harness/mutate.c:
 * claim_dir", or "" when there is none. Never NULL. Borrowed: valid until
 * this thread's next failure.
 */
const char *td_error_origin(void);

/* The code of this thread's last failure, or TD_OK. */
int td_error_code(void);

/* Forgets the last failure of this thread. */
void td_error_clear(void);

/* A stable name for a code ("TD_EINVAL"); never NULL. */
const char *td_error_name(int code);

#endif
