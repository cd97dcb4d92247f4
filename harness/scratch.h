/*
 * scratch.h - warm scratch copies of a repository's files.
 *
 * A scratch tree is a directory under .tdaudit/ holding a copy of the
 * repository's files, plus whatever its build leaves there. Syncing it
 * rewrites only the files whose bytes or executable bit differ, so its
 * build stays incremental between runs, and removes the files that the
 * previous sync copied and the source no longer has (build outputs, which
 * no sync copied, are left alone). The source is never written.
 */
#ifndef TD_SCRATCH_H
#define TD_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Makes dst mirror the listed files of src_root (relative paths). The list
 * of what was copied is kept in manifest (a path outside dst). *n_written
 * gets the number of files written or removed (may be NULL).
 */
int td_scratch_sync(const char *src_root, char *const *files, const char *dst,
		    const char *manifest, size_t *n_written);

/*
 * A fingerprint of the files of dst that the last sync copied (those the
 * manifest lists): each one's path, type, mode, size, inode and change
 * times (lstat), or its absence. A build or test that creates, changes
 * or deletes one of them changes it; reading them does not. TD_EIO when
 * the manifest cannot be read.
 */
int td_scratch_stamp(uint64_t *out, const char *dst, const char *manifest);

/*
 * A hash of the contents of the files of dst that the last sync copied:
 * each one's path and bytes (FNV-1a 64, continuing *h), a missing one
 * hashed as missing. Unlike td_scratch_stamp it is the same for the same
 * bytes in another tree or after a rewrite. TD_EIO when the manifest
 * cannot be read.
 */
int td_scratch_content_hash(uint64_t *h, const char *dst, const char *manifest);

/*
 * Writes len bytes to dst/rel, replacing it (not atomically: scratch trees
 * are ours). Keeps the file's mode.
 */
int td_scratch_put(const char *dst, const char *rel, const char *data, size_t len);

/* Writes len bytes to path (created or truncated) with mode. */
int td_scratch_put_mode(const char *path, const char *data, size_t len, unsigned mode);

#endif
