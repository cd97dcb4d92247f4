/*
 * error.c - per-thread last-error message (see error.h).
 *
 * Must never allocate: it runs on out-of-memory paths.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];
static _Thread_local char last_origin[256];
static _Thread_local int last_code;

int td_error_set(int code, const char *file, const char *func, const char *fmt, ...)
{
	va_list ap;

	snprintf(last_origin, sizeof last_origin, "%s: %s", file, func);
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof last_msg, fmt, ap);
	va_end(ap);
	last_code = code;
	return code;
}

const char *td_error_last(void)
{
	return last_code ? last_msg : "no error";
}

const char *td_error_origin(void)
{
	return last_code ? last_origin : "";
}

int td_error_code(void)
{
	return last_code;
}

void td_error_clear(void)
{
	last_code = TD_OK;
	last_msg[0] = '\0';
	last_origin[0] = '\0';
}

const char *td_error_name(int code)
{
	switch (code) {
	case TD_OK: return "TD_OK";
	case TD_EINVAL: return "TD_EINVAL";
	case TD_ENOMEM: return "TD_ENOMEM";
	case TD_EIO: return "TD_EIO";
	case TD_ENOTSUP: return "TD_ENOTSUP";
	case TD_ESTATE: return "TD_ESTATE";
	}
	return "TD_E(unknown)";
}
