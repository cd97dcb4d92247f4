/*
 * fileio.h - reading whole files and writing them atomically.
 *
 * A file written with td_file_write_atomic is either the old file or the
 * whole new one, whatever happens: the bytes go to a temporary file in the
 * same directory, which is fsynced, renamed over the target, and the
 * directory fsynced. No user file is ever written in place. A writer
 * killed before the rename leaves its temporary file
 * ("<path>.tmp.<pid>.XXXXXX"); the next write of the same path removes it
 * once that pid is gone.
 */
#ifndef TD_FILEIO_H
#define TD_FILEIO_H

#include <stddef.h>

/*
 * Reads path into a NUL-terminated buffer (*len bytes before the NUL; len
 * may be NULL). Caller frees *out with free(). TD_EIO naming the path.
 */
int td_file_read(const char *path, char **out, size_t *len);

/*
 * Replaces path with len bytes of data atomically, with the given mode
 * (e.g. 0644). TD_EIO naming the path and the step that failed; on failure
 * the old file is untouched and no temporary file is left behind.
 */
int td_file_write_atomic(const char *path, const void *data, size_t len, unsigned mode);

/*
 * Whether path could be written by td_file_write_atomic, without writing
 * anything: not a directory, and its directory exists and is writable.
 * TD_EIO naming path and why; the check before a long run that ends by
 * writing path.
 */
int td_file_check_writable(const char *path);

/* Creates dir and its missing parents (like mkdir -p). */
int td_mkdirs(const char *dir);

#endif
