/*
 * project.c - loading tdaudit.lua (see project.h).
 *
 * Must never accept a setting it would then ignore: unknown fields and
 * repeated settings are refused, with the line they are on.
 */
#define _GNU_SOURCE
#include "project.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/error.h"
#include "luahost.h"
#include "pathglob.h"
#include "proc.h"
#include "../base/strv.h"

static td_project *proj(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static int fail_at(lua_State *L, const char *fmt, const char *a)
{
	char where[256];

	td_lua_where(L, where, sizeof where);
	lua_pushfstring(L, "%s: %s", where, lua_pushfstring(L, fmt, a));
	return lua_error(L); /* not luaL_error: it would add the position a second time */
}

/* Reads the array of strings at idx into *out (must be NULL: set once). */
static void read_strings(lua_State *L, int idx, const char *what, char ***out)
{
	lua_Integer n;

	if (*out)
		fail_at(L, "%s is given twice; give it once", what);
	if (lua_type(L, idx) != LUA_TTABLE)
		fail_at(L, "%s must be a table of strings, e.g. { \"make\", \"-j2\" } (no shell strings)",
			what);
	n = (lua_Integer)lua_rawlen(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
			fail_at(L, "%s must be a plain list of strings, without named fields", what);
	}
	if (n == 0)
		fail_at(L, "%s is empty", what);
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, idx, i) != LUA_TSTRING)
			fail_at(L, "every entry of %s must be a string", what);
		if (td_strv_push(out, lua_tostring(L, -1)) != 0)
			luaL_error(L, "%s", td_error_last());
		lua_pop(L, 1);
	}
}

static int l_build(lua_State *L)
{
	read_strings(L, 1, "build", &proj(L)->build);
	return 0;
}

/* read_strings for a list of globs (pathglob.h), each checked. */
static void read_globs(lua_State *L, const char *what, char ***out)
{
	read_strings(L, 1, what, out);
	for (size_t i = 0; (*out)[i]; i++)
		if (td_pathglob_check((*out)[i]) != 0)
			fail_at(L, "%s", td_error_last());
}

static int l_sources(lua_State *L)
{
	read_globs(L, "sources", &proj(L)->sources);
	return 0;
}

static int l_tests(lua_State *L)
{
	read_globs(L, "tests", &proj(L)->tests);
	return 0;
}

static int l_catalogues(lua_State *L)
{
	read_globs(L, "catalogues", &proj(L)->catalogues);
	return 0;
}

static int l_audits(lua_State *L)
{
	read_globs(L, "audits", &proj(L)->audits);
	return 0;
}

/* Refuses any field of the table at idx that is not in allowed. */
static void only_fields(lua_State *L, int idx, const char *what, const char *const *allowed)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		int ok = 0;

		lua_pop(L, 1);
		for (int i = 0; allowed[i] && lua_type(L, -1) == LUA_TSTRING; i++)
			ok |= strcmp(lua_tostring(L, -1), allowed[i]) == 0;
		if (!ok) {
			char where[256], names[512] = "";

			td_lua_where(L, where, sizeof where);
			for (int i = 0; allowed[i]; i++)
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
					 i ? ", " : "", allowed[i]);
			if (lua_type(L, -1) == LUA_TSTRING)
				lua_pushfstring(L, "%s: %s has no field '%s' (its fields: %s)", where,
						what, lua_tostring(L, -1), names);
			else
				lua_pushfstring(L, "%s: %s takes named fields (%s); a value was given "
						   "without a name: write NAME = VALUE",
						where, what, names);
			lua_error(L); /* the position is in the message already */
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Reads runner.tests_of at idx (nil: none) into r's of_glob / of_name
 * pairs, its globs sorted (Lua's table order is random per state).
 */
static void read_tests_of(lua_State *L, int idx, td_runner *r)
{
	char **keys = NULL;
	int t;

	if (lua_isnil(L, idx))
		return;
	if (!lua_istable(L, idx))
		fail_at(L, "%s must be a table { [\"file glob\"] = { \"test\", ... } }",
			"runner.tests_of");
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING || td_pathglob_check(lua_tostring(L, -1)) != 0)
			fail_at(L, "%s: every key must be a file glob relative to the root",
				"runner.tests_of");
		if (td_strv_push(&keys, lua_tostring(L, -1)) != 0)
			luaL_error(L, "out of memory");
	}
	if (!keys)
		fail_at(L, "%s is empty", "runner.tests_of");
	qsort(keys, td_strv_len(keys), sizeof *keys, by_name);
	for (size_t k = 0; keys[k]; k++) {
		lua_getfield(L, idx, keys[k]);
		t = lua_gettop(L);
		if (lua_type(L, t) == LUA_TSTRING) { /* one name: as a list of one */
			lua_createtable(L, 1, 0);
			lua_pushvalue(L, t);
			lua_rawseti(L, -2, 1);
			lua_replace(L, t);
		}
		for (lua_Integer i = 1; lua_istable(L, t) && lua_rawgeti(L, t, i) != LUA_TNIL; i++) {
			if (lua_type(L, -1) != LUA_TSTRING || !lua_rawlen(L, -1))
				fail_at(L, "%s: every test name must be a non-empty string",
					"runner.tests_of");
			if (td_strv_push(&r->of_glob, keys[k]) ||
			    td_strv_push(&r->of_name, lua_tostring(L, -1)))
				luaL_error(L, "out of memory");
			lua_pop(L, 1);
		}
		if (!lua_istable(L, t) || lua_rawlen(L, t) == 0)
			fail_at(L, "%s: give each file glob a test name or a list of them",
				"runner.tests_of");
		lua_settop(L, t - 1);
	}
	td_strv_free(keys); /* leaks on a refusal: the state's error ends the load */
}

static int l_runner(lua_State *L)
{
	static const char *const fields[] = {"list",     "run",		"fail_text",
					     "tests_of", "program_is_test", NULL};
	td_project *p = proj(L);
	td_runner *r;

	luaL_checktype(L, 1, LUA_TTABLE);
	only_fields(L, 1, "runner", fields);
	if (p->n_runners == TD_PROJECT_MAX_RUNNERS)
		fail_at(L, "more than %s runners", "8");
	r = &p->runners[p->n_runners++];
	td_lua_where(L, r->where, sizeof r->where);
	lua_getfield(L, 1, "list");
	read_strings(L, lua_gettop(L), "runner.list", &r->list);
	lua_getfield(L, 1, "run");
	read_strings(L, lua_gettop(L), "runner.run", &r->run);
	if (lua_getfield(L, 1, "fail_text") != LUA_TNIL) {
		if (!lua_isstring(L, -1) || lua_rawlen(L, -1) == 0)
			fail_at(L, "%s must be a non-empty string", "runner.fail_text");
		if (!(r->fail_text = strdup(lua_tostring(L, -1))))
			luaL_error(L, "out of memory");
	}
	lua_getfield(L, 1, "tests_of");
	read_tests_of(L, lua_gettop(L), r);
	if (lua_getfield(L, 1, "program_is_test") != LUA_TNIL) {
		if (!lua_isboolean(L, -1))
			fail_at(L, "%s must be true or false", "runner.program_is_test");
		r->program_is_test = lua_toboolean(L, -1);
	}
	for (int i = 0; r->run[i]; i++)
		if (strstr(r->run[i], "{test}"))
			return 0;
	return fail_at(L, "runner.run must contain %s where the test name goes", "\"{test}\"");
}

static int l_ledger(lua_State *L)
{
	td_project *p = proj(L);
	const char *path = luaL_checkstring(L, 1);

	if (p->ledger)
		fail_at(L, "%s is given twice; give it once", "ledger");
	p->ledger = strdup(path);
	if (!p->ledger)
		luaL_error(L, "out of memory");
	return 0;
}

static int l_confine(lua_State *L)
{
	td_project *p = proj(L);
	const char *mode = luaL_checkstring(L, 1);

	if (p->confine_given++)
		fail_at(L, "%s is given twice; give it once", "confine");
	if (strcmp(mode, "off") && strcmp(mode, "landlock"))
		fail_at(L, "confine must be \"landlock\" or \"off\", not \"%s\"", mode);
	p->confine = strcmp(mode, "off") != 0;
	if (!p->confine)
		snprintf(p->confine_off_by, sizeof p->confine_off_by, "confine \"off\" in tdaudit.lua");
	return 0;
}

/* TDAUDIT_CONFINE=off turns confinement off; "landlock" or empty leaves tdaudit.lua's word. */
static int confine_env(td_project *p)
{
	const char *v = getenv("TDAUDIT_CONFINE");

	if (!v || !*v || !strcmp(v, "landlock"))
		return 0;
	if (strcmp(v, "off"))
		return TD_FAIL(TD_EINVAL, "TDAUDIT_CONFINE=%s: give off (or landlock, the default)", v);
	p->confine = 0;
	snprintf(p->confine_off_by, sizeof p->confine_off_by, "TDAUDIT_CONFINE=off");
	return 0;
}

static double number_field(lua_State *L, const char *name, double dflt)
{
	double v = 0;

	if (lua_getfield(L, 1, name) == LUA_TNIL) {
		lua_pop(L, 1);
		return dflt;
	}
	if (!lua_isnumber(L, -1) || !isfinite(v = lua_tonumber(L, -1)) || v <= 0)
		fail_at(L, "timeout.%s must be a finite positive number of seconds", name);
	lua_pop(L, 1);
	return v;
}

static int l_timeout(lua_State *L)
{
	static const char *const fields[] = {"factor", "floor", "build", NULL};
	td_project *p = proj(L);

	luaL_checktype(L, 1, LUA_TTABLE);
	if (p->timeout_given++)
		fail_at(L, "%s is given twice; give it once", "timeout");
	only_fields(L, 1, "timeout", fields);
	p->timeout_factor = number_field(L, "factor", p->timeout_factor);
	p->timeout_floor = number_field(L, "floor", p->timeout_floor);
	p->timeout_build = number_field(L, "build", p->timeout_build);
	return 0;
}

/* ---- variant { ... } ------------------------------------------------------ */

/* "YYYY-MM-DD" at the top of the stack as UTC seconds at its midnight; refuses anything else. */
static long long date_field(lua_State *L, const char *what)
{
	const char *s = lua_tostring(L, -1);
	int y = 0, m = 0, d = 0, n = 0; /* set: clang cannot see that fail_at does not return */
	struct tm tm = {0};

	if (lua_type(L, -1) != LUA_TSTRING || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 ||
	    n != 10 || strlen(s) != 10 || m < 1 || m > 12 || d < 1 || d > 31 || y < 1970)
		fail_at(L, "%s must be a date \"YYYY-MM-DD\" (UTC), e.g. \"2019-06-01\"", what);
	tm.tm_year = y - 1900, tm.tm_mon = m - 1, tm.tm_mday = d;
	return (long long)timegm(&tm);
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TD_VARIANT_NAME_MAX)
		return 0;
	for (const char *c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", *c))
			return 0;
	return 1;
}

/* variant.env: { NAME = "value", ... } into v->env as sorted "NAME=VALUE". */
static void read_env(lua_State *L, int idx, td_variant *v)
{
	if (!lua_istable(L, idx))
		fail_at(L, "%s must be a table { NAME = \"value\" }", "variant.env");
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
		int ok = (k[0] == '_' || (k[0] >= 'A' && k[0] <= 'Z') || (k[0] >= 'a' && k[0] <= 'z'));

		for (const char *c = k; ok && *c; c++)
			ok = *c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
			     (*c >= '0' && *c <= '9');
		if (!ok)
			fail_at(L, "%s: every key must be an environment variable's name", "variant.env");
		if (lua_type(L, -1) != LUA_TSTRING)
			fail_at(L, "%s: every value must be a string", "variant.env");
		if (td_strv_len(v->env) == TD_VARIANT_ENV_MAX)
			fail_at(L, "variant.env holds more than %s variables", "60");
		lua_pushfstring(L, "%s=%s", k, lua_tostring(L, -1));
		if (td_strv_push(&v->env, lua_tostring(L, -1)))
			luaL_error(L, "out of memory");
		lua_pop(L, 2);
	}
	if (!v->env)
		fail_at(L, "%s is empty", "variant.env");
	qsort(v->env, td_strv_len(v->env), sizeof *v->env, by_name);
}

static int l_variant(lua_State *L)
{
	static const char *const fields[] = {"name",  "build", "args",     "env",
					     "before", "since", "range", "fallback", NULL};
	td_project *p = proj(L);
	td_variant *v;
	const char *name = "";

	luaL_checktype(L, 1, LUA_TTABLE);
	only_fields(L, 1, "variant", fields);
	if (lua_getfield(L, 1, "name") != LUA_TSTRING || !valid_name(name = lua_tostring(L, -1)))
		fail_at(L, "variant needs a name of 1 to %s characters from [a-z0-9._-], e.g. "
			   "name = \"no-werror\"", "40");
	if (!strcmp(name, "default") || !strcmp(name, "all"))
		fail_at(L, "variant name \"%s\" is reserved: \"default\" is build { } itself and "
			   "\"all\" means every variant; choose another", name);
	if (td_project_variant(p, name) >= 0)
		fail_at(L, "variant \"%s\" is declared twice; give each variant its own name", name);
	if (p->n_variants == TD_PROJECT_MAX_VARIANTS)
		fail_at(L, "more than %s variants", "15");
	v = &p->variants[p->n_variants++];
	snprintf(v->name, sizeof v->name, "%s", name);
	v->fallback = -1;
	td_lua_where(L, v->where, sizeof v->where);
	if (lua_getfield(L, 1, "build") != LUA_TNIL)
		read_strings(L, lua_gettop(L), "variant.build", &v->build);
	if (lua_getfield(L, 1, "args") != LUA_TNIL)
		read_strings(L, lua_gettop(L), "variant.args", &v->args);
	if (v->build && v->args)
		fail_at(L, "variant \"%s\" gives both build and args: args add to build { }'s argv, "
			   "build replaces it; give one", name);
	if (lua_getfield(L, 1, "env") != LUA_TNIL)
		read_env(L, lua_gettop(L), v);
	if (!v->build && !v->args && !v->env)
		fail_at(L, "variant \"%s\" changes nothing: give it build, args or env", name);
	if (lua_getfield(L, 1, "before") != LUA_TNIL)
		v->before = date_field(L, "variant.before");
	if (lua_getfield(L, 1, "since") != LUA_TNIL)
		v->since = date_field(L, "variant.since");
	if (lua_getfield(L, 1, "range") != LUA_TNIL) {
		const char *r = lua_tostring(L, -1), *dots = r ? strstr(r, "..") : NULL;

		if (lua_type(L, -1) != LUA_TSTRING || !dots || dots == r || !dots[2] ||
		    strstr(dots + 2, ".."))
			fail_at(L, "%s must be \"A..B\": the commits reachable from B and not from A",
				"variant.range");
		if (!(v->range = strdup(r)))
			luaL_error(L, "out of memory");
	}
	if (lua_getfield(L, 1, "fallback") != LUA_TNIL) {
		if (lua_type(L, -1) != LUA_TSTRING || !lua_rawlen(L, -1) ||
		    lua_rawlen(L, -1) > TD_VARIANT_NAME_MAX)
			fail_at(L, "%s must name a variant (\"default\", or one declared)",
				"variant.fallback");
		snprintf(v->fallback_name, sizeof v->fallback_name, "%s", lua_tostring(L, -1));
	}
	return 0;
}

/* Resolves each variant's fallback name, now that every variant is declared. */
static int resolve_fallbacks(td_project *p)
{
	for (int i = 1; i < p->n_variants; i++) {
		td_variant *v = &p->variants[i];

		if (!v->fallback_name[0])
			continue;
		v->fallback = td_project_variant(p, v->fallback_name);
		if (v->fallback < 0)
			return TD_FAIL(TD_EINVAL, "%s: variant \"%s\" falls back to \"%s\", which is no "
						  "variant; declare it, or name \"default\"",
				       v->where, v->name, v->fallback_name);
		if (v->fallback == i)
			return TD_FAIL(TD_EINVAL, "%s: variant \"%s\" falls back to itself; name another "
						  "variant, or give no fallback",
				       v->where, v->name);
	}
	return 0;
}

int td_project_variant(const td_project *p, const char *name)
{
	for (int i = 0; i < p->n_variants; i++)
		if (!strcmp(p->variants[i].name, name))
			return i;
	return -1;
}

int td_variant_argv(char ***argv, const td_project *p, int v)
{
	const td_variant *var = &p->variants[v];
	char *const *base = var->build ? var->build : p->build;
	int err = 0;

	*argv = NULL;
	for (size_t i = 0; !err && base && base[i]; i++)
		err = td_strv_push(argv, base[i]);
	for (size_t i = 0; !err && !var->build && var->args && var->args[i]; i++)
		err = td_strv_push(argv, var->args[i]);
	if (err) {
		td_strv_free(*argv);
		*argv = NULL;
	}
	return err;
}

const char *td_variant_env_string(char *buf, size_t size, const td_project *p, int v)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; p->variants[v].env && p->variants[v].env[i] && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? " " : "", p->variants[v].env[i]);
	return buf;
}

const char *td_variant_describe(char *buf, size_t size, const td_project *p, int v)
{
	char **argv = NULL, env[1024];
	size_t k;

	if (td_variant_argv(&argv, p, v) != 0) {
		snprintf(buf, size, "(out of memory)");
		return buf;
	}
	td_proc_argv_string((const char *const *)argv, buf, (unsigned)size);
	td_strv_free(argv);
	td_variant_env_string(env, sizeof env, p, v);
	k = strlen(buf);
	if (env[0] && k < size)
		snprintf(buf + k, size - k, " (env %s)", env);
	return buf;
}

/* ---- trainer { ... } ------------------------------------------------------ */

/* Every field a trainer block may have, in the order td_trainer keeps them. */
static const struct {
	const char *name;
	enum td_tfield_kind kind;
	const char *const *sub; /* TD_TF_MAP: the only keys allowed (NULL: any) */
	int need;               /* which of sub must be given: 0 any, -1 all, 1 exactly one,
				 * N > 1 the first N (the rest are optional) */
} tfields[] = {
	{"config", TD_TF_STRING, NULL, 0},
	{"steps", TD_TF_NUMBER, NULL, 0},
	{"timeout", TD_TF_NUMBER, NULL, 0},
	{"init", TD_TF_ARGV, NULL, 0},
	{"train", TD_TF_ARGV, NULL, 0},
	{"stop", TD_TF_ARGV, NULL, 0},
	{"resume", TD_TF_ARGV, NULL, 0},
	{"eval", TD_TF_ARGV, NULL, 0},
	{"set", TD_TF_ARGV, NULL, 0},
	{"absent", TD_TF_ARGV, NULL, 0},
	{"log", TD_TF_STRING, NULL, 0},
	{"hash", TD_TF_MAP, (const char *const[]){"file", "line", NULL}, 1},
	{"init_hash", TD_TF_MAP, (const char *const[]){"file", "line", NULL}, 1},
	{"seed", TD_TF_MAP, (const char *const[]){"key", "other", NULL}, -1},
	{"threads", TD_TF_MAP, (const char *const[]){"key", "other", NULL}, -1},
	{"keys", TD_TF_MAP, NULL, 0},
	{"inert", TD_TF_LIST, NULL, 0},
	{"eval_line", TD_TF_MAP, (const char *const[]){"pattern", "names", NULL}, -1},
	{"final_eval", TD_TF_MAP, NULL, 0},
	{"counters", TD_TF_MAP, (const char *const[]){"field", NULL}, -1},
	{"provoke", TD_TF_MAP, NULL, 0},
	{"manifests", TD_TF_MAP, (const char *const[]){"train", "eval", "field", NULL}, 2},
};
#define N_TFIELDS (sizeof tfields / sizeof tfields[0])
_Static_assert(N_TFIELDS <= TD_TRAINER_FIELDS, "td_trainer has room for every field");

const td_tfield *td_trainer_field(const td_trainer *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].name, name))
			return &t->f[i];
	return NULL;
}

/* A map's value as text: strings, numbers and booleans are accepted. */
static const char *map_value(lua_State *L, const char *field)
{
	char what[128];

	if (lua_type(L, -1) == LUA_TBOOLEAN)
		return lua_toboolean(L, -1) ? "true" : "false";
	if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
		return lua_tostring(L, -1);
	snprintf(what, sizeof what, "trainer.%s", field);
	fail_at(L, "every value of %s must be a string, number or boolean", what);
	return NULL;
}

/* Inserts (k, v) into the map f, kept sorted by key. */
static void map_put(lua_State *L, td_tfield *f, const char *k, const char *v)
{
	size_t n = td_strv_len(f->keys), at = n;

	if (td_strv_push(&f->keys, k) || td_strv_push(&f->values, v))
		luaL_error(L, "out of memory");
	while (at > 0 && strcmp(f->keys[at - 1], k) > 0)
		at--;
	for (size_t i = n; i > at; i--) {
		char *tk = f->keys[i], *tv = f->values[i];

		f->keys[i] = f->keys[i - 1], f->values[i] = f->values[i - 1];
		f->keys[i - 1] = tk, f->values[i - 1] = tv;
	}
}

/* Reads the map at the top of the stack into f, checking its keys against sub. */
static void read_map(lua_State *L, td_tfield *f, const char *const *sub, int need)
{
	int idx = lua_gettop(L), n_sub = 0, n_given = 0;
	char what[128];

	snprintf(what, sizeof what, "trainer.%s", f->name);
	if (lua_type(L, idx) != LUA_TTABLE)
		fail_at(L, "%s must be a table of named values, e.g. { key = \"value\" }", what);
	if (sub)
		only_fields(L, idx, what, sub);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_type(L, -2) != LUA_TSTRING)
			fail_at(L, "%s must have named fields only", what);
		map_put(L, f, lua_tostring(L, -2), map_value(L, f->name));
		lua_pop(L, 1);
		n_given++;
	}
	for (int i = 0; sub && sub[i]; i++)
		n_sub++;
	if (need == -1 && n_given != n_sub)
		fail_at(L, "%s needs every one of its fields (docs/audit.md)", what);
	if (need == 1 && n_given != 1)
		fail_at(L, "%s needs exactly one of its fields (docs/audit.md)", what);
	for (int i = 0; need > 1 && i < need; i++)
		if (td_strv_find(f->keys, sub[i]) < 0) {
			snprintf(what, sizeof what, "trainer.%s.%s", f->name, sub[i]);
			fail_at(L, "%s must be given (docs/audit.md)", what);
		}
}

/* Reads trainer field i from the block's table (at index 1) if given. */
static void read_tfield(lua_State *L, td_trainer *t, size_t i)
{
	td_tfield *f = &t->f[i];
	char what[128];

	snprintf(what, sizeof what, "trainer.%s", f->name);
	if (lua_getfield(L, 1, f->name) == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	f->given = 1;
	switch (f->kind) {
	case TD_TF_ARGV:
		read_strings(L, lua_gettop(L), what, &f->list);
		break;
	case TD_TF_LIST:
		if (lua_type(L, -1) == LUA_TTABLE && lua_rawlen(L, -1) == 0)
			break; /* an empty list is a list */
		read_strings(L, lua_gettop(L), what, &f->list);
		break;
	case TD_TF_STRING:
		if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
			fail_at(L, "%s must be a non-empty string", what);
		if (!(f->str = strdup(lua_tostring(L, -1))))
			luaL_error(L, "out of memory");
		break;
	case TD_TF_NUMBER:
		if (!lua_isnumber(L, -1) || (f->num = lua_tonumber(L, -1)) <= 0)
			fail_at(L, "%s must be a positive number", what);
		break;
	case TD_TF_MAP:
		read_map(L, f, tfields[i].sub, tfields[i].need);
		break;
	}
	lua_pop(L, 1);
}

static int l_trainer(lua_State *L)
{
	static const char *names[N_TFIELDS + 1];
	td_trainer *t = &proj(L)->trainer;

	if (t->given)
		fail_at(L, "%s is given twice; give it once", "trainer");
	luaL_checktype(L, 1, LUA_TTABLE);
	for (size_t i = 0; i < N_TFIELDS; i++)
		names[i] = tfields[i].name;
	only_fields(L, 1, "trainer", names);
	t->given = 1;
	td_lua_where(L, t->where, sizeof t->where);
	for (size_t i = 0; i < N_TFIELDS; i++)
		read_tfield(L, t, i);
	if (!t->f[0].given || !t->f[1].given || !td_trainer_field(t, "train")->given ||
	    !td_trainer_field(t, "hash")->given)
		fail_at(L, "%s needs at least config, steps, train and hash (docs/audit.md)", "trainer");
	if (td_trainer_field(t, "keys")->given && !td_trainer_field(t, "set")->given)
		fail_at(L, "%s has keys but no set template saying how to set one", "trainer");
	return 0;
}

static void trainer_init(td_trainer *t)
{
	t->n = (int)N_TFIELDS;
	for (size_t i = 0; i < N_TFIELDS; i++)
		t->f[i].name = tfields[i].name, t->f[i].kind = tfields[i].kind;
}

static void trainer_free(td_trainer *t)
{
	for (int i = 0; i < t->n; i++) {
		free(t->f[i].str);
		td_strv_free(t->f[i].list);
		td_strv_free(t->f[i].keys);
		td_strv_free(t->f[i].values);
	}
}

/*
 * The globals' __index: a name that is neither a setting nor Lua's (a
 * misspelt setting, `bogus { 1 }`) is refused with its line and the
 * settings there are, not as Lua's "attempt to call a nil value".
 */
static int l_unknown_name(lua_State *L)
{
	const char *name = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";

	return fail_at(L, "'%s' is no setting of tdaudit.lua (the settings: build, runner, sources, "
			  "tests, catalogues, ledger, timeout, audits, trainer, confine, variant; "
			  "docs/tdaudit-lua.md)",
		       name);
}

static void register_dsl(lua_State *L, td_project *p)
{
	static const luaL_Reg fns[] = {{"build", l_build},       {"runner", l_runner},
				       {"sources", l_sources},   {"tests", l_tests},
				       {"catalogues", l_catalogues}, {"ledger", l_ledger},
				       {"timeout", l_timeout},   {"audits", l_audits},
				       {"trainer", l_trainer},   {"confine", l_confine},
				       {"variant", l_variant},   {NULL, NULL}};

	for (const luaL_Reg *f = fns; f->name; f++) {
		lua_pushlightuserdata(L, p);
		lua_pushcclosure(L, f->func, 1);
		lua_setglobal(L, f->name);
	}
	lua_pushglobaltable(L);
	lua_newtable(L);
	lua_pushcfunction(L, l_unknown_name);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	lua_pop(L, 1);
}

static int check_complete(td_project *p)
{
	if (!p->build)
		return TD_FAIL(TD_EINVAL, "tdaudit.lua:1: no build { ... } given; say how to build, "
					  "e.g. build { \"make\" }");
	if (p->n_runners == 0)
		return TD_FAIL(TD_EINVAL, "tdaudit.lua:1: no runner { list = ..., run = ... } given");
	if (!p->ledger && !(p->ledger = strdup(".tdaudit/ledger.db")))
		return TD_FAIL(TD_ENOMEM, "out of memory");
	return resolve_fallbacks(p);
}

int td_project_load(td_project **out, const char *root)
{
	td_project *p = calloc(1, sizeof *p);
	td_lua *lua = NULL;
	int err;

	*out = NULL;
	if (!p)
		return TD_FAIL(TD_ENOMEM, "out of memory for a project");
	p->timeout_factor = 10;
	p->timeout_floor = 5;
	p->timeout_build = 600;
	p->confine = 1;
	snprintf(p->variants[0].name, sizeof p->variants[0].name, "default");
	p->variants[0].fallback = -1;
	p->n_variants = 1;
	trainer_init(&p->trainer);
	err = td_lua_new(&lua, root, NULL);
	if (err)
		goto done;
	snprintf(p->root, sizeof p->root, "%s", td_lua_root(lua));
	register_dsl(td_lua_state(lua), p);
	err = td_lua_run_file(lua, "tdaudit.lua");
	if (err == TD_EIO)
		err = TD_FAIL(TD_EIO, "%s/tdaudit.lua: cannot read it; tdaudit needs one at the "
				      "repository root (its format: tdaudit's docs/tdaudit-lua.md)", p->root);
	if (!err)
		err = check_complete(p);
	if (!err)
		err = confine_env(p);
done:
	td_lua_free(lua);
	if (err)
		td_project_free(p);
	else
		*out = p;
	return err;
}

void td_project_free(td_project *p)
{
	if (!p)
		return;
	td_strv_free(p->build);
	for (int i = 0; i < p->n_variants; i++) {
		td_strv_free(p->variants[i].build);
		td_strv_free(p->variants[i].args);
		td_strv_free(p->variants[i].env);
		free(p->variants[i].range);
	}
	for (int i = 0; i < p->n_runners; i++) {
		td_strv_free(p->runners[i].list);
		td_strv_free(p->runners[i].run);
		free(p->runners[i].fail_text);
		td_strv_free(p->runners[i].of_glob);
		td_strv_free(p->runners[i].of_name);
	}
	td_strv_free(p->sources);
	td_strv_free(p->tests);
	td_strv_free(p->catalogues);
	td_strv_free(p->audits);
	trainer_free(&p->trainer);
	free(p->ledger);
	free(p);
}

int td_runner_tests_of(char ***names, int *matched, const td_runner *r, const char *rel)
{
	const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
	const char *dot = strrchr(base, '.');
	char stem[256];
	int err = 0;

	snprintf(stem, sizeof stem, "%.*s", (int)(dot && dot > base ? dot - base : 255), base);
	if (matched)
		*matched = 0;
	for (size_t i = 0; !err && r->of_glob && r->of_glob[i]; i++) {
		char **one = NULL;
		char *const name[] = {r->of_name[i], NULL};

		if (!td_pathglob_match(r->of_glob[i], rel))
			continue;
		if (matched)
			*matched = 1;
		err = td_strv_subst(&one, name, "{stem}", stem);
		if (!err && td_strv_find(*names, one[0]) < 0)
			err = td_strv_push(names, one[0]);
		td_strv_free(one);
	}
	return err;
}

size_t td_project_say_empty_globs(const td_project *p, const char *command)
{
	char *const *sets[] = {p->sources, p->tests};
	static const char *const names[] = {"sources", "tests"};
	size_t empty = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; sets[s] && sets[s][i]; i++) {
			char **files = NULL;

			if (td_pathglob_list(&files, p->root, sets[s][i], NULL) == 0 && !files) {
				fprintf(stderr, "tdaudit %s: WARNING: tdaudit.lua's %s glob '%s' matches no "
						"file of the working tree; check it ('*' does not cross '/', "
						"'**' does)\n", command, names[s], sets[s][i]);
				empty++;
			}
			td_strv_free(files);
		}
	return empty;
}

int td_project_matches(char *const *globs, const char *rel)
{
	for (size_t i = 0; globs && globs[i]; i++)
		if (td_pathglob_match(globs[i], rel))
			return 1;
	return 0;
}
