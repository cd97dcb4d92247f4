/*
 * catalogue.c - loading mutation catalogues (see catalogue.h).
 *
 * Must never accept an entry it cannot honour: a field it does not know, a
 * guard list it would not run, a finding it cannot name.
 */
#define _GNU_SOURCE
#include "catalogue.h"

#include <glob.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "luahost.h"
#include "strv.h"

static const char *const fields[] = {"name", "file", "find", "replace", "occurrence",
				     "guards", "finding", "designed_against", "why",
				     "equivalent", NULL};

static td_mutants *list_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static const char *where(lua_State *L)
{
	static _Thread_local char buf[512];

	return td_lua_where(L, buf, sizeof buf);
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
			luaL_error(L, "%s: mutant has no field '%s' (fields: name file find replace "
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
		luaL_error(L, "%s: mutant needs a '%s'", where(L), name);
	if (t != LUA_TNIL && (t != LUA_TSTRING || lua_rawlen(L, -1) == 0))
		luaL_error(L, "%s: mutant field '%s' must be a non-empty string", where(L), name);
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
		luaL_error(L, "%s: mutant field '%s' must be a positive integer", where(L), name);
	lua_pop(L, 1);
	return (int)v;
}

static char **guards_field(lua_State *L)
{
	char **g = NULL;
	lua_Integer n;

	if (lua_getfield(L, 1, "guards") == LUA_TNIL) {
		lua_pop(L, 1);
		return NULL;
	}
	if (!lua_istable(L, -1))
		luaL_error(L, "%s: guards must be a list of test names", where(L));
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, -1, i) != LUA_TSTRING || td_strv_push(&g, lua_tostring(L, -1)))
			luaL_error(L, "%s: guards must be a list of test names", where(L));
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return g;
}

static void check_entry(lua_State *L, const td_mutants *list, const td_mutant *m)
{
	if (!m->guards && !m->equivalent)
		luaL_error(L, "%s: mutant '%s' names no guards; say which tests must fail", where(L),
			   m->name);
	if (!m->finding == !m->designed_against)
		luaL_error(L, "%s: mutant '%s' needs exactly one of finding = N (the DEBUG.md entry "
			      "it re-introduces) or designed_against = \"why\"", where(L), m->name);
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->v[i].name, m->name) == 0)
			luaL_error(L, "%s: mutant name '%s' is already used at %s", where(L), m->name,
				   list->v[i].where);
}

static int grow(td_mutants *list)
{
	size_t cap = list->cap ? list->cap * 2 : 64;
	td_mutant *v;

	if (list->n < list->cap)
		return 0;
	v = realloc(list->v, cap * sizeof *v);
	if (!v)
		return -1;
	list->v = v;
	list->cap = cap;
	return 0;
}

static int l_mutant(lua_State *L)
{
	td_mutants *list = list_of(L);
	td_mutant m = {0};

	luaL_checktype(L, 1, LUA_TTABLE);
	check_fields(L);
	m.name = str_field(L, "name", 1);
	m.file = str_field(L, "file", 1);
	m.find = str_field(L, "find", 1);
	lua_getfield(L, 1, "replace"); /* may be empty: a deletion */
	if (!lua_isstring(L, -1))
		luaL_error(L, "%s: mutant needs a 'replace' string", where(L));
	m.replace = strdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	m.why = str_field(L, "why", 1);
	m.designed_against = str_field(L, "designed_against", 0);
	m.equivalent = str_field(L, "equivalent", 0);
	m.occurrence = int_field(L, "occurrence");
	m.finding = int_field(L, "finding");
	m.guards = guards_field(L);
	check_entry(L, list, &m);
	m.where = strdup(where(L));
	m.id = strdup(m.name);
	m.op = strdup("catalogue");
	lua_getfield(L, lua_upvalueindex(2), "path");
	m.catalogue = strdup(lua_tostring(L, -1));
	if (!m.replace || !m.where || !m.id || !m.op || !m.catalogue || grow(list))
		luaL_error(L, "out of memory");
	list->v[list->n++] = m; /* on a Lua error above, m leaks: loading then fails anyway */
	return 0;
}

static int load_one(td_mutants *out, const char *root, const char *path)
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
	lua_pushcclosure(L, l_mutant, 2);
	lua_setglobal(L, "mutant");
	err = td_lua_run_file(lua, path);
	td_lua_free(lua);
	return err;
}

int td_catalogue_load(td_mutants *out, const char *root, char *const *globs)
{
	for (size_t i = 0; globs && globs[i]; i++) {
		char pat[8192];
		glob_t g;
		int rc, err = 0;

		snprintf(pat, sizeof pat, "%s/%s", root, globs[i]);
		rc = glob(pat, 0, NULL, &g);
		if (rc == GLOB_NOMATCH)
			return TD_FAIL(TD_EINVAL, "catalogue glob '%s' matches no file", globs[i]);
		if (rc != 0)
			return TD_FAIL(TD_EIO, "cannot expand catalogue glob '%s'", globs[i]);
		for (size_t k = 0; k < g.gl_pathc && !err; k++)
			err = load_one(out, root, g.gl_pathv[k] + strlen(root) + 1);
		globfree(&g);
		if (err)
			return err;
	}
	return 0;
}

void td_mutant_free(td_mutant *m)
{
	free(m->id), free(m->name), free(m->catalogue), free(m->where), free(m->file);
	free(m->find), free(m->replace), free(m->designed_against), free(m->why);
	free(m->equivalent), free(m->op);
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
