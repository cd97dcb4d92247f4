/*
 * luahost.c - sandboxed Lua states (see luahost.h).
 *
 * Must never open a library beyond base, string, table, math and utf8, nor
 * let a script read outside the repository root, nor run without budgets.
 */
#define _GNU_SOURCE
#include "luahost.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../base/error.h"
#include "../base/strv.h"
#include "luahost_int.h"
#include "pathglob.h"
#include "reaper.h"

struct td_lua {
	lua_State *L;
	char root[PATH_MAX]; /* realpath of the repository root */
	size_t mem_used, mem_limit;
	long instr_limit, instr_used;
	double wall_limit, deadline; /* seconds; the deadline on CLOCK_MONOTONIC */
};

#define HOOK_EVERY 1000 /* instructions between budget checks */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	td_lua *h = ud;
	size_t old = ptr ? osize : 0;

	if (nsize == 0) {
		h->mem_used -= old;
		free(ptr);
		return NULL;
	}
	if (nsize > old && h->mem_used + (nsize - old) > h->mem_limit)
		return NULL; /* Lua raises "not enough memory" */
	ptr = realloc(ptr, nsize);
	if (ptr)
		h->mem_used = h->mem_used - old + nsize;
	return ptr;
}

static td_lua *host_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

/*
 * Adds steps to the script's count and raises a Lua error when a budget
 * is spent: the instructions, the wall-clock deadline, or a stop asked
 * for by a signal (reaper.h).
 */
static void charge(lua_State *L, td_lua *h, long steps)
{
	char msg[200]; /* lua_pushfstring knows no %ld: format here */

	h->instr_used += steps;
	if (h->instr_used > h->instr_limit) {
		snprintf(msg, sizeof msg, "instruction budget exceeded (%ld VM instructions); a "
					  "catalogue or audit must not loop forever", h->instr_limit);
		luaL_error(L, "%s", msg);
	}
	if (now() > h->deadline)
		luaL_error(L, "wall-clock budget exceeded (%f s of Lua, children's runs not "
			      "counted); a catalogue or audit must not run this long",
			   h->wall_limit);
	if (td_reaper_stopped())
		luaL_error(L, "stopped by signal %d", td_reaper_stopped());
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	charge(L, host_of(L), HOOK_EVERY);
}

void td_lua_charge(lua_State *L, long steps)
{
	charge(L, host_of(L), steps);
}

void td_lua_credit(lua_State *L, double seconds)
{
	if (seconds > 0)
		host_of(L)->deadline += seconds;
}

/*
 * setmetatable without __gc: Lua runs finalizers with hooks off, where no
 * budget can stop them, and runs them again in lua_close; a __gc that
 * loops would hang tdaudit. Lua marks an object for finalization only when
 * its metatable has __gc as it is set, so refusing it here is enough.
 */
static int l_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "a script may not set a __gc metamethod: finalizers "
					     "run where no budget can stop them");
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* buf = a "/" b; -1 if it does not fit. */
static int join(char *buf, size_t size, const char *a, const char *b)
{
	int n = snprintf(buf, size, "%s/%s", a, b);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int td_lua_rel_ok(const char *rel)
{
	if (!rel[0] || rel[0] == '/')
		return 0;
	for (const char *p = rel; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return 0;
	}
	return 1;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int td_lua_read_confined(const char *root, const char *path, char **out, size_t *len)
{
	char full[PATH_MAX], real[PATH_MAX], rroot[PATH_MAX];
	FILE *f = NULL;
	char *buf = NULL;
	long n;
	int err = 0;

	*out = NULL;
	if (!td_lua_rel_ok(path))
		return TD_FAIL(TD_EINVAL, "'%s' is not a path inside the repository; give it relative "
					  "to the root, without '..'", path);
	if (join(full, sizeof full, root, path) != 0)
		return TD_FAIL(TD_EINVAL, "path %s is too long", path);
	if (!realpath(root, rroot) || !realpath(full, real))
		return TD_FAIL(TD_EIO, "cannot read %s: %s", path, strerror(errno));
	if (strncmp(real, rroot, strlen(rroot)) != 0 || real[strlen(rroot)] != '/')
		return TD_FAIL(TD_EINVAL, "%s leads outside the repository (to %s)", path, real);
	if (is_dir(real)) {
		err = TD_FAIL(TD_EINVAL, "%s is a directory, not a file to read", path);
		goto done;
	}
	f = fopen(real, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		err = TD_FAIL(TD_EIO, "cannot read %s: %s", path, strerror(errno));
		goto done;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		err = TD_FAIL(buf ? TD_EIO : TD_ENOMEM, "cannot read %s (%ld bytes)", path, n);
		goto done;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	*out = buf;
	buf = NULL;
done:
	free(buf);
	if (f)
		fclose(f);
	return err;
}

static int l_read_file(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	char *buf;
	size_t len;

	if (td_lua_read_confined(host_of(L)->root, path, &buf, &len) != 0)
		return luaL_error(L, "%s", td_error_last());
	lua_pushlstring(L, buf, len);
	free(buf);
	return 1;
}

/*
 * tdaudit.glob(pattern): the files matching pattern (pathglob.h), sorted;
 * directories are never listed, and a link leading outside the repository
 * is left out with a note on stderr.
 */
static int l_glob(lua_State *L)
{
	const char *pat = luaL_checkstring(L, 1);
	td_pathglob_skips sk = {0};
	char **files = NULL;
	char where[300];

	if (!td_lua_rel_ok(pat))
		return luaL_error(L, "glob '%s' must be relative to the repository root, without '..'",
				  pat);
	lua_newtable(L);
	if (td_pathglob_list(&files, host_of(L)->root, pat, &sk) != 0) {
		td_strv_free(files);
		return luaL_error(L, "%s", td_error_last());
	}
	for (size_t i = 0; files && files[i]; i++) {
		lua_pushstring(L, files[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	td_strv_free(files);
	if (sk.links_outside)
		fprintf(stderr, "%s: tdaudit.glob('%s'): %zu link%s leading outside the repository "
				"(or nowhere) left out\n",
			td_lua_where(L, where, sizeof where), pat, sk.links_outside,
			sk.links_outside == 1 ? "" : "s");
	return 1;
}

static void open_sandbox(lua_State *L)
{
	static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},     {LUA_STRLIBNAME, luaopen_string},
					{LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
					{LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};
	static const char *const banned[] = {"dofile", "loadfile", "load", "require",
					     "collectgarbage", NULL};
	static const luaL_Reg api[] = {{"read_file", l_read_file}, {"glob", l_glob}, {NULL, NULL}};

	for (const luaL_Reg *l = libs; l->name; l++) {
		luaL_requiref(L, l->name, l->func, 1);
		lua_pop(L, 1);
	}
	for (int i = 0; banned[i]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, banned[i]);
	}
	luaL_newlib(L, api);
	lua_setglobal(L, "tdaudit");
	lua_getglobal(L, "setmetatable");
	lua_pushcclosure(L, l_setmetatable, 1);
	lua_setglobal(L, "setmetatable");
	td_luapat_open(L);
}

int td_lua_new(td_lua **out, const char *root, const td_lua_opts *opts)
{
	td_lua *h = calloc(1, sizeof *h);

	*out = NULL;
	if (!h)
		return TD_FAIL(TD_ENOMEM, "out of memory for a Lua state");
	if (!realpath(root, h->root)) {
		free(h);
		return TD_FAIL(TD_EIO, "repository root %s: %s", root, strerror(errno));
	}
	h->mem_limit = opts && opts->mem_limit ? opts->mem_limit : (size_t)256 << 20;
	h->instr_limit = opts && opts->instr_limit ? opts->instr_limit : 200000000L;
	h->wall_limit = opts && opts->wall_limit_s > 0 ? opts->wall_limit_s : 60.0;
	h->L = lua_newstate(budget_alloc, h);
	if (!h->L) {
		free(h);
		return TD_FAIL(TD_ENOMEM, "out of memory for a Lua state");
	}
	open_sandbox(h->L);
	*out = h;
	return 0;
}

void td_lua_free(td_lua *h)
{
	if (!h)
		return;
	lua_close(h->L);
	free(h);
}

lua_State *td_lua_state(td_lua *h)
{
	return h->L;
}

const char *td_lua_root(const td_lua *h)
{
	return h->root;
}

/*
 * The message handler of every script run: the error with a traceback,
 * unless a host function raised it (a refusal such as "cat.lua:3: mutant
 * 'x' names no guards"): that message already names the script's line,
 * and a traceback of "[C]: in function 'mutant'" would only bury it.
 */
static int traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	lua_Debug ar;

	if (msg && lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar) && ar.what[0] == 'C')
		return 1; /* the message as it is */
	luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
	return 1;
}

int td_lua_run_file(td_lua *h, const char *path)
{
	lua_State *L = h->L;
	char *src, chunk[PATH_MAX + 1];
	size_t len;
	int err, base;

	err = td_lua_read_confined(h->root, path, &src, &len);
	if (err)
		return err;
	snprintf(chunk, sizeof chunk, "@%s", path);
	lua_pushcfunction(L, traceback);
	base = lua_gettop(L);
	if (luaL_loadbufferx(L, src, len, chunk, "t") != LUA_OK) {
		err = TD_FAIL(TD_EINVAL, "%s", lua_tostring(L, -1));
		goto done;
	}
	h->instr_used = 0;
	h->deadline = now() + h->wall_limit;
	lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
	if (lua_pcall(L, 0, 0, base) != LUA_OK)
		err = TD_FAIL(TD_EINVAL, "%s", lua_tostring(L, -1));
	lua_sethook(L, NULL, 0, 0);
done:
	lua_settop(L, base - 1);
	free(src);
	return err;
}

const char *td_lua_where(lua_State *L, char *buf, size_t size)
{
	lua_Debug ar;

	if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
		snprintf(buf, size, "%s:%d", ar.short_src, ar.currentline);
	else
		snprintf(buf, size, "?");
	return buf;
}
