/*
 * catalogue.c - loading mutation catalogues (see catalogue.h).
 *
 * Must never accept an entry it cannot honour: a field it does not know, a
 * guard list it would not run, a finding it cannot name.
 */
#define _GNU_SOURCE
#include "catalogue.h"

#include <lauxlib.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "gen.h"
#include "luahost.h"
#include "pathglob.h"
#include "../base/strv.h"

static const char *const fields[] = {"name", "file", "find", "replace", "occurrence",
				     "guards", "finding", "designed_against", "why",
				     "equivalent", NULL};

/* An equivalent { id, reason } declaration, resolved once every catalogue is loaded. */
typedef struct {
	char *id, *reason, *where;
} decl_t;

/* The declarations of every catalogue of one td_catalogue_load, in load order. */
typedef struct {
	decl_t *v;
	size_t n, cap;
} decls_t;

static td_mutants *list_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static const char *where(lua_State *L)
{
	static _Thread_local char buf[512];

	return td_lua_where(L, buf, sizeof buf);
}

/*
 * Raises a Lua error with the message as formatted, without luaL_error's
 * position: the messages here start with where(L) already, and a second
 * "cat.lua:3:" would only repeat it.
 */
static int fail_here(lua_State *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	return lua_error(L);
}

static const char *host_root(lua_State *L)
{
	const char *root;

	lua_getfield(L, LUA_REGISTRYINDEX, "tdaudit.root");
	root = lua_tostring(L, -1);
	lua_pop(L, 1); /* the registry keeps the string alive */
	return root;
}

/* Appends the files under the root matching pattern, sorted. */
static void expand_glob(lua_State *L, const char *pattern, char ***out)
{
	td_pathglob_skips sk = {0};
	char **found = NULL;
	size_t files = 0, dirs;

	if (pattern[0] == '/' || strstr(pattern, ".."))
		fail_here(L, "%s: glob '%s' must be relative to the root, without '..'", where(L), pattern);
	if (td_pathglob_list(&found, host_root(L), pattern, &sk) != 0) {
		td_strv_free(found);
		fail_here(L, "%s: generate: %s", where(L), td_error_last());
	}
	for (size_t i = 0; found && found[i]; i++, files++)
		if (td_strv_find(*out, found[i]) < 0)
			td_strv_push(out, found[i]);
	td_strv_free(found);
	dirs = sk.dirs;
	if (sk.links_outside)
		printf("%s: generate: glob '%s': %zu link%s leading outside the repository (or "
		       "nowhere) skipped\n",
		       where(L), pattern, sk.links_outside, sk.links_outside == 1 ? "" : "s");
	if (!files && !dirs)
		fail_here(L, "%s: generate: glob '%s' matches no file", where(L), pattern);
	if (!files)
		fail_here(L, "%s: generate: glob '%s' matches no file, only %d director%s", where(L),
			  pattern, (int)dirs, dirs == 1 ? "y" : "ies");
	if (dirs)
		printf("%s: generate: glob '%s': %zu director%s skipped (generate reads files)\n",
		       where(L), pattern, dirs, dirs == 1 ? "y" : "ies");
}

static void check_fields(lua_State *L)
{
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		int ok = 0;

		lua_pop(L, 1);
		for (int i = 0; fields[i] && lua_type(L, -1) == LUA_TSTRING; i++)
			ok |= strcmp(lua_tostring(L, -1), fields[i]) == 0;
		if (!ok)
			fail_here(L, "%s: mutant has no field '%s' (fields: name file find replace "
				      "occurrence guards finding designed_against why equivalent)",
				   where(L), lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
	}
}

/* The string field name of the entry, a copy (NULL if absent and optional). */
static char *str_field(lua_State *L, const char *name, int required)
{
	char *s = NULL;
	int t = lua_getfield(L, 1, name);

	if (t == LUA_TNIL && required)
		fail_here(L, "%s: mutant needs a '%s'", where(L), name);
	if (t != LUA_TNIL && (t != LUA_TSTRING || lua_rawlen(L, -1) == 0))
		fail_here(L, "%s: mutant field '%s' must be a non-empty string", where(L), name);
	if (t == LUA_TSTRING && !(s = strdup(lua_tostring(L, -1))))
		luaL_error(L, "out of memory");
	lua_pop(L, 1);
	return s;
}

static int int_field(lua_State *L, const char *name)
{
	int t = lua_getfield(L, 1, name);
	lua_Integer v = 0;

	if (t != LUA_TNIL && (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < 1 || v > 1000000))
		fail_here(L, "%s: mutant field '%s' must be a positive integer", where(L), name);
	lua_pop(L, 1);
	return (int)v;
}

/*
 * Appends the entry's guards to *out, which must be owned by something a
 * Lua error frees (a pending mutant, a strv_box): a refusal below unwinds
 * past this function with the list half built.
 */
static void guards_field(lua_State *L, char ***out)
{
	lua_Integer n;

	if (lua_getfield(L, 1, "guards") == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	if (!lua_istable(L, -1))
		fail_here(L, "%s: guards must be a list of test names", where(L));
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, -1, i) != LUA_TSTRING || td_strv_push(out, lua_tostring(L, -1)))
			fail_here(L, "%s: guards must be a list of test names", where(L));
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

static int strv_box_gc(lua_State *L)
{
	char ***box = lua_touserdata(L, 1);

	td_strv_free(*box);
	*box = NULL;
	return 0;
}

/*
 * An empty td_strv owned by a Lua userdata pushed on the stack: a Lua error
 * raised while it is filled (a refused glob, a file that cannot be read)
 * leaves it to the collector, which frees it.
 */
static char ***strv_box(lua_State *L)
{
	char ***box = lua_newuserdatauv(L, sizeof *box, 0);

	*box = NULL;
	if (luaL_newmetatable(L, "tdaudit.strv")) {
		lua_pushcfunction(L, strv_box_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	return box;
}

/*
 * Whether name starts with the stem of file (its base name up to the first
 * '.') and a '-': "plan-flip-per-layer" for core/plan.c. The stem puts an
 * entry's id beside its file in every listing and report, and lets
 * `--only 'plan-*'` mean "the mutants of core/plan.c".
 */
static int named_for_its_file(const char *name, const char *file, char *stem, size_t size)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t n = strcspn(base, ".");

	snprintf(stem, size, "%.*s-", (int)n, base);
	return strncmp(name, stem, strlen(stem)) == 0;
}

/*
 * Refuses a file path that could name anything outside the repository: a
 * mutant's text is written to ROOT/file in a scratch copy, so the path must
 * be relative and normalised (no empty, "." or ".." component), and
 * nothing on the way may be a symbolic link (writing through it would
 * write where it points).
 */
static void check_file(lua_State *L, const char *file)
{
	const char *root = host_root(L), *p = file;
	char path[PATH_MAX];
	struct stat st;

	if (!*file || *file == '/')
		fail_here(L, "%s: file '%s' must be a path relative to the repository root", where(L),
			   file);
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			fail_here(L, "%s: file '%s' must be a normalised path inside the repository "
				      "(no '.', '..' or empty component)", where(L), file);
		snprintf(path, sizeof path, "%s/%.*s", root, (int)(p + n - file), file);
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			fail_here(L, "%s: file '%s' goes through the symbolic link '%s': a mutant "
				      "is written through its path, so name the file itself", where(L),
				   file, path + strlen(root) + 1);
		if (!p[n])
			break;
		p += n + 1;
	}
}

static void check_entry(lua_State *L, const td_mutants *list, const td_mutant *m)
{
	char stem[256];

	check_file(L, m->file);
	if (!named_for_its_file(m->name, m->file, stem, sizeof stem))
		fail_here(L, "%s: mutant '%s' edits %s, so its name must start with '%s'", where(L),
			   m->name, m->file, stem);
	if (!m->guards && !m->equivalent)
		fail_here(L, "%s: mutant '%s' names no guards; say which tests must fail", where(L),
			   m->name);
	if (!m->finding == !m->designed_against)
		fail_here(L, "%s: mutant '%s' needs exactly one of finding = N (the DEBUG.md entry "
			      "it re-introduces) or designed_against = \"why\"", where(L), m->name);
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->v[i].name, m->name) == 0)
			fail_here(L, "%s: mutant name '%s' is already used at %s", where(L), m->name,
				   list->v[i].where);
}

/* Room for one more entry in list. */
static int grow(td_mutants *list)
{
	return td_grow(&list->v, &list->cap, list->n + 1, sizeof *list->v);
}

/* Frees an entry that a Lua error left half-built (its __gc). */
static int pending_gc(lua_State *L)
{
	td_mutant *m = lua_touserdata(L, 1);

	td_mutant_free(m);
	memset(m, 0, sizeof *m);
	return 0;
}

/*
 * The entry being built, owned by a Lua userdata until the list takes it:
 * every refusal below is a Lua error, which unwinds past this function, and
 * the collector then frees what was copied so far.
 */
static td_mutant *pending_mutant(lua_State *L)
{
	td_mutant *m = lua_newuserdatauv(L, sizeof *m, 0);

	memset(m, 0, sizeof *m);
	if (luaL_newmetatable(L, "tdaudit.pending_mutant")) {
		lua_pushcfunction(L, pending_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	return m;
}

static int l_mutant(lua_State *L)
{
	td_mutants *list = list_of(L);
	td_mutant *m;

	luaL_checktype(L, 1, LUA_TTABLE);
	check_fields(L);
	m = pending_mutant(L);
	m->name = str_field(L, "name", 1);
	m->file = str_field(L, "file", 1);
	m->find = str_field(L, "find", 1);
	lua_getfield(L, 1, "replace"); /* may be empty: a deletion */
	if (!lua_isstring(L, -1))
		fail_here(L, "%s: mutant needs a 'replace' string", where(L));
	m->replace = strdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	m->why = str_field(L, "why", 1);
	m->designed_against = str_field(L, "designed_against", 0);
	m->equivalent = str_field(L, "equivalent", 0);
	m->occurrence = int_field(L, "occurrence");
	m->finding = int_field(L, "finding");
	guards_field(L, &m->guards);
	check_entry(L, list, m);
	m->where = strdup(where(L));
	m->id = strdup(m->name);
	m->op = strdup("catalogue");
	lua_getfield(L, lua_upvalueindex(2), "path");
	m->catalogue = strdup(lua_tostring(L, -1));
	if (!m->replace || !m->where || !m->id || !m->op || !m->catalogue || grow(list))
		luaL_error(L, "out of memory");
	list->v[list->n++] = *m;
	memset(m, 0, sizeof *m); /* the list owns the fields now */
	return 0;
}

/* The generate{} options: the operator class mask. */
static unsigned classes_field(lua_State *L)
{
	unsigned mask = 0;
	lua_Integer n;

	if (lua_getfield(L, 1, "operators") == LUA_TNIL) {
		lua_pop(L, 1);
		return TD_GEN_ALL;
	}
	if (!lua_istable(L, -1))
		fail_here(L, "%s: operators must be a list of class names", where(L));
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		td_gen_class c = 0; /* fail_here does not return, which clang cannot tell */

		if (lua_rawgeti(L, -1, i) != LUA_TSTRING || td_gen_class_parse(&c, lua_tostring(L, -1)))
			fail_here(L, "%s: %s", where(L), td_error_last());
		mask |= (unsigned)c;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return mask;
}

/* Appends one generated mutant as a catalogue entry. */
static void add_generated(lua_State *L, td_mutants *list, const td_gen_mutant *g, const char *file,
			  char *const *guards)
{
	td_mutant m = {0};
	char why[512];

	snprintf(why, sizeof why, "generated: %s '%s' -> '%s' in %s()", td_gen_class_name(g->cls),
		 g->orig, g->repl, g->func);
	m.id = strdup(g->id), m.name = strdup(g->id), m.file = strdup(file);
	m.find = strdup(g->orig), m.replace = strdup(g->repl), m.why = strdup(why);
	m.designed_against = strdup("generated operator mutant");
	m.op = strdup(td_gen_class_name(g->cls)), m.where = strdup(where(L));
	lua_getfield(L, lua_upvalueindex(2), "path");
	m.catalogue = strdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	m.offset = g->off, m.line = g->line, m.generated = 1;
	m.func = g->func ? strdup(g->func) : NULL;
	for (size_t i = 0; guards && guards[i]; i++)
		td_strv_push(&m.guards, guards[i]);
	if (!m.id || !m.name || !m.file || !m.find || !m.replace || !m.why || !m.op || !m.where ||
	    !m.catalogue || !m.designed_against || grow(list))
		luaL_error(L, "out of memory");
	list->v[list->n++] = m;
}

/* Runs the generator over one file and appends its mutants. */
static void generate_file(lua_State *L, td_mutants *list, const char *file, unsigned classes,
			  char *const *guards)
{
	td_gen_opts opts = {0};
	td_gen_result *res = NULL;
	char *src;
	size_t len;

	opts.classes = classes;
	check_file(L, file);
	if (td_lua_read_confined(host_root(L), file, &src, &len) != 0 ||
	    td_gen_file(&res, file, src, len, &opts) != 0) {
		free(src);
		fail_here(L, "%s: %s", where(L), td_error_last());
	}
	for (size_t i = 0; i < res->n_mutants; i++) {
		size_t k;

		for (k = 0; k < list->n && strcmp(list->v[k].id, res->mutants[i].id); k++)
			;
		if (k == list->n) /* a file matched by two globs adds its mutants once */
			add_generated(L, list, &res->mutants[i], file, guards);
	}
	for (size_t i = 0; i < res->n_skips; i++) {
		printf("%s: %s: %d generated mutant%s skipped: %s\n", where(L), file, res->skips[i].count,
		       res->skips[i].count == 1 ? "" : "s", res->skips[i].reason);
		list->n_skipped += (size_t)res->skips[i].count;
	}
	td_gen_result_free(res);
	free(src);
}

static int l_generate(lua_State *L)
{
	static const char *const gen_fields[] = {"files", "operators", "guards", NULL};
	td_mutants *list = list_of(L);
	unsigned classes;
	char ***guards, ***files;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		int ok = 0;

		lua_pop(L, 1);
		for (int i = 0; gen_fields[i] && lua_type(L, -1) == LUA_TSTRING; i++)
			ok |= strcmp(lua_tostring(L, -1), gen_fields[i]) == 0;
		if (!ok)
			fail_here(L, "%s: generate has no field '%s' (fields: files operators guards)",
				   where(L), lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
	}
	classes = classes_field(L);
	guards = strv_box(L), files = strv_box(L); /* a refusal below frees them */
	guards_field(L, guards);
	if (lua_getfield(L, 1, "files") != LUA_TTABLE)
		fail_here(L, "%s: generate needs files = { \"glob\", ... }", where(L));
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
		if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
			fail_here(L, "%s: files must be a list of globs", where(L));
		expand_glob(L, lua_tostring(L, -1), files);
		lua_pop(L, 1);
	}
	for (size_t i = 0; *files && (*files)[i]; i++)
		generate_file(L, list, (*files)[i], classes, *guards);
	td_strv_free(*files), *files = NULL;
	td_strv_free(*guards), *guards = NULL;
	return 0;
}

/*
 * equivalent { id = "FILE:FUNCTION:...", reason = "..." }: declares the
 * generated mutant id equivalent (reported with its reason, not run). The
 * id is checked once every catalogue has run (resolve_equivalents), since
 * the generate { } that makes it may come later or in another catalogue.
 */
static int l_equivalent(lua_State *L)
{
	decls_t *d = lua_touserdata(L, lua_upvalueindex(1));
	decl_t x = {0};

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING ||
		    (strcmp(lua_tostring(L, -1), "id") && strcmp(lua_tostring(L, -1), "reason")))
			fail_here(L, "%s: equivalent has no field '%s' (fields: id reason)", where(L),
				   lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
	}
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "reason" : "id";

		if (lua_getfield(L, 1, name) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
			fail_here(L, "%s: equivalent needs %s = \"...\", a non-empty string%s", where(L),
				   name, i ? " (why the mutant changes nothing observable)"
					   : " (a generated mutant's id, as tdaudit mutate --list prints it)");
		lua_pop(L, 1);
	}
	lua_getfield(L, 1, "id"), lua_getfield(L, 1, "reason");
	x.id = strdup(lua_tostring(L, -2)), x.reason = strdup(lua_tostring(L, -1));
	x.where = strdup(where(L));
	lua_pop(L, 2);
	if (!x.id || !x.reason || !x.where ||
	    td_grow(&d->v, &d->cap, d->n + 1, sizeof *d->v)) {
		free(x.id), free(x.reason), free(x.where);
		return luaL_error(L, "out of memory");
	}
	d->v[d->n++] = x;
	return 0;
}

/*
 * Marks each declared mutant equivalent. A declaration is refused
 * (TD_EINVAL, with its catalogue:line) when no generated mutant has its id
 * (stale: the code, or the generate { }, changed, and a declaration that
 * silently matched nothing would hide nothing from no one), when the id is
 * a hand-written entry's (which says equivalent = "..." itself), or when
 * the id was declared before.
 */
static int resolve_equivalents(td_mutants *m, const decls_t *d)
{
	for (size_t k = 0; k < d->n; k++) {
		const decl_t *x = &d->v[k];
		td_mutant *hit = NULL;

		for (size_t i = 0; i < m->n && !hit; i++)
			if (!strcmp(m->v[i].id, x->id))
				hit = &m->v[i];
		if (!hit)
			return TD_FAIL(TD_EINVAL, "%s: equivalent: no generated mutant has the id '%s'; "
						  "remove or update the declaration (tdaudit mutate "
						  "--list prints the ids)", x->where, x->id);
		if (!hit->generated)
			return TD_FAIL(TD_EINVAL, "%s: equivalent: '%s' is a hand-written entry (%s); "
						  "say equivalent = \"reason\" in its mutant { }",
				       x->where, x->id, hit->where);
		if (hit->equivalent)
			return TD_FAIL(TD_EINVAL, "%s: equivalent: '%s' is already declared at %s",
				       x->where, x->id, hit->equivalent_where);
		hit->equivalent = strdup(x->reason), hit->equivalent_where = strdup(x->where);
		if (!hit->equivalent || !hit->equivalent_where)
			return TD_FAIL(TD_ENOMEM, "out of memory");
	}
	return 0;
}

static int load_one(td_mutants *out, decls_t *decls, const char *root, const char *src,
		    const char *path)
{
	td_lua *lua;
	lua_State *L;
	int err = td_lua_new(&lua, root, NULL);

	if (err)
		return err;
	L = td_lua_state(lua);
	lua_pushlightuserdata(L, out);
	lua_newtable(L);
	lua_pushstring(L, path);
	lua_setfield(L, -2, "path");
	lua_pushvalue(L, -2);
	lua_pushvalue(L, -2);
	lua_pushcclosure(L, l_mutant, 2);
	lua_setglobal(L, "mutant");
	lua_pushcclosure(L, l_generate, 2);
	lua_setglobal(L, "generate");
	lua_pushlightuserdata(L, decls);
	lua_pushcclosure(L, l_equivalent, 1);
	lua_setglobal(L, "equivalent");
	lua_pushstring(L, src); /* where the files the catalogue names are */
	lua_setfield(L, LUA_REGISTRYINDEX, "tdaudit.root");
	err = td_lua_run_file(lua, path);
	td_lua_free(lua);
	return err;
}

int td_catalogue_load(td_mutants *out, const char *root, char *const *globs)
{
	return td_catalogue_load_at(out, root, root, globs);
}

int td_catalogue_load_at(td_mutants *out, const char *root, const char *src, char *const *globs)
{
	char **files = NULL;
	decls_t decls = {0};
	int err = 0;

	for (size_t i = 0; !err && globs && globs[i]; i++)
		err = td_pathglob_need(&files, root, globs[i], "catalogue");
	for (size_t k = 0; !err && files && files[k]; k++)
		err = load_one(out, &decls, root, src, files[k]);
	if (!err)
		err = resolve_equivalents(out, &decls);
	for (size_t k = 0; k < decls.n; k++)
		free(decls.v[k].id), free(decls.v[k].reason), free(decls.v[k].where);
	free(decls.v);
	td_strv_free(files);
	return err;
}

void td_mutant_free(td_mutant *m)
{
	free(m->id), free(m->name), free(m->catalogue), free(m->where), free(m->file);
	free(m->func);
	free(m->find), free(m->replace), free(m->designed_against), free(m->why);
	free(m->equivalent), free(m->equivalent_where), free(m->op);
	td_strv_free(m->guards);
}

void td_mutants_free(td_mutants *m)
{
	for (size_t i = 0; m && i < m->n; i++)
		td_mutant_free(&m->v[i]);
	if (m) {
		free(m->v);
		memset(m, 0, sizeof *m);
	}
}

int td_mutant_locate(td_mutant *m, const char *text, size_t len, size_t *count)
{
	if (m->generated) { /* by offset: the token must still be there */
		size_t flen = strlen(m->find);

		*count = m->offset + flen <= len && memcmp(text + m->offset, m->find, flen) == 0;
		return *count ? TD_LOCATE_OK : TD_LOCATE_STALE;
	}
	size_t flen = strlen(m->find), n = 0, at = 0;
	int found = 0;

	for (const char *p = memmem(text, len, m->find, flen); p;
	     p = memmem(p + 1, len - (size_t)(p + 1 - text), m->find, flen)) {
		n++;
		if ((m->occurrence == 0 && n == 1) || (int)n == m->occurrence) {
			at = (size_t)(p - text);
			found = 1;
		}
	}
	*count = n;
	if (!found)
		return TD_LOCATE_STALE;
	if (m->occurrence == 0 && n > 1)
		return TD_LOCATE_AMBIGUOUS;
	m->offset = at;
	m->line = 1;
	for (size_t i = 0; i < at; i++)
		m->line += text[i] == '\n';
	return TD_LOCATE_OK;
}

int td_mutant_apply(const td_mutant *m, const char *text, size_t len, char **out, size_t *out_len)
{
	size_t flen = strlen(m->find), rlen = strlen(m->replace);
	size_t n = len - flen + rlen;
	char *s = malloc(n + 1);

	*out = NULL;
	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory applying %s", m->id);
	memcpy(s, text, m->offset);
	memcpy(s + m->offset, m->replace, rlen);
	memcpy(s + m->offset + rlen, text + m->offset + flen, len - m->offset - flen);
	s[n] = '\0';
	*out = s;
	*out_len = n;
	return 0;
}
