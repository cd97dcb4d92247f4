/*
 * covcache.h - the coverage of a schema's unmutated suite, kept by content.
 *
 * tdaudit mutate --schemata runs the whole suite once per file on its
 * schema build with no mutant on, to see it pass and to learn which tests
 * reach which mutants (mutate.c). When nothing that run depends on has
 * changed (every file of the scratch tree, schema included, byte for
 * byte; the build; the tests), the run would give the same answer, so its
 * record is kept under a key that hashes all of that, and a later run
 * reads it instead of running the suite again. A record is one file,
 * STATE/coverage/KEY (16 hex digits), written atomically; the newest
 * TD_COVCACHE_KEEP are kept. What a record holds is the caller's text.
 */
#ifndef TD_COVCACHE_H
#define TD_COVCACHE_H

#include <stddef.h>
#include <stdint.h>

#define TD_COVCACHE_KEEP 1024

/*
 * The record of key in dir (STATE/coverage) into *text (caller frees).
 * Returns 0 when there is one, 1 when there is none (*text NULL).
 */
int td_covcache_get(char **text, const char *dir, uint64_t key);

/*
 * Keeps len bytes of text as the record of key in dir (made if missing),
 * then removes the oldest records beyond TD_COVCACHE_KEEP. TD_EIO naming
 * the file when it cannot be written.
 */
int td_covcache_put(const char *dir, uint64_t key, const char *text, size_t len);

#endif
