/*
 * luahost.h - sandboxed Lua 5.4 states for tdaudit.lua, catalogues, audits.
 *
 * Lua is a trust boundary. A state has only the base, string, table, math
 * and utf8 libraries, without dofile, loadfile, load, require or
 * collectgarbage; no os, no io. Files are read only through the harness's
 * own API, confined to the repository root:
 *
 *   tdaudit.read_file(path)  -> the file's text (path relative to the root)
 *   tdaudit.glob(pattern)    -> sorted list of the matching files (pathglob.h: "**" any
 *                               depth; never a directory, never a link leading out)
 *
 * Each state has a memory budget, and per script an instruction budget and
 * a wall-clock budget; a script that exceeds one fails with a message
 * saying which. The instruction budget also counts the steps of the
 * pattern matcher (string.find, match, gmatch, gsub: luapat.c), which is
 * where a script can spend long in C; both are checked there. A script may
 * not set a __gc metamethod: finalizers run with Lua's hooks off, where no
 * budget can stop them, and again inside lua_close. Every call
 * into Lua goes through lua_pcall with a traceback, and errors come back as
 * "file:line: message".
 */
#ifndef TD_LUAHOST_H
#define TD_LUAHOST_H

#include <lua.h>
#include <stddef.h>

typedef struct td_lua td_lua;

/* Zero is every default: td_lua_opts o = {0}, or {.mem_limit = ...}. */
typedef struct {
	size_t mem_limit;    /* bytes; 0: 256 MiB */
	long instr_limit;    /* VM instructions per script; 0: 200 million */
	double wall_limit_s; /* wall-clock seconds per script, runs of children not counted; 0: 60 */
} td_lua_opts;

/*
 * A fresh sandboxed state whose file API is confined to root (an existing
 * directory). Caller frees with td_lua_free.
 */
int td_lua_new(td_lua **out, const char *root, const td_lua_opts *opts);
void td_lua_free(td_lua *L);

/* The raw state, to register functions. Borrowed: valid until td_lua_free. */
lua_State *td_lua_state(td_lua *L);

/* The repository root given to td_lua_new. Borrowed. */
const char *td_lua_root(const td_lua *L);

/*
 * Runs the script at path (relative to root) as text (binary chunks are
 * refused). TD_EINVAL with "path:line: message" and a traceback on a Lua
 * error, TD_EIO when the file cannot be read.
 */
int td_lua_run_file(td_lua *L, const char *path);

/*
 * Gives the running script seconds more on its wall-clock budget: for a
 * host function that waited that long on a child (which has its own
 * deadline), so a script is charged only for its own time.
 */
void td_lua_credit(lua_State *L, double seconds);

/*
 * Where the Lua code that called the current C function is: "path:line".
 * For use inside registered functions, to put file:line in messages.
 */
const char *td_lua_where(lua_State *L, char *buf, size_t size);

/* Whether rel is a path a script may name: relative, with no ".." component. */
int td_lua_rel_ok(const char *rel);

/*
 * Reads a whole file under root into a NUL-terminated buffer. Refuses
 * absolute paths, ".." components and symlinks that leave root. Caller frees
 * *out with free(); *len may be NULL.
 */
int td_lua_read_confined(const char *root, const char *path, char **out, size_t *len);

#endif
