/*
 * audit.c - running audit scripts and their host API (see audit.h).
 *
 * Must never: run a child anywhere but in the audit's scratch directory,
 * read a file outside it (audit.hash, audit.jsonl) or outside the
 * repository (the scripts themselves, through luahost), or turn a script
 * that failed or recorded nothing into a pass.
 */
#define _GNU_SOURCE
#include "audit.h"

#include <errno.h>
#include <ftw.h>
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"
#include "../base/strv.h"
#include "luahost.h"
#include "overlap.h"
#include "pathglob.h"
#include "proc.h"
#include "testrun.h"

static const char *const status_names[] = {"pass", "fail", "skip", "error"};

const char *td_audit_status_name(enum td_audit_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "?";
}

void td_audit_result_free(td_audit_result *r)
{
	if (!r)
		return;
	free(r->name), free(r->script), free(r->class_), free(r->summary), free(r->reason);
	td_strv_free(r->evidence);
	td_strv_free(r->commands);
	memset(r, 0, sizeof *r);
}

/* ---- the list of audits ------------------------------------------------------ */

/* The stem of a script path: "seed" for "audits/seed.lua". Into buf. */
static const char *stem(char *buf, size_t size, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	snprintf(buf, size, "%.*s", (int)n, b);
	return buf;
}

int td_audit_list(char ***names, char ***scripts, const td_project *p)
{
	char name[256];
	int err = 0;

	*names = *scripts = NULL;
	for (size_t g = 0; !err && p->audits && p->audits[g]; g++) {
		char **found = NULL;

		err = td_pathglob_need(&found, p->root, p->audits[g], "audits");
		for (size_t i = 0; !err && found && found[i]; i++) {
			const char *rel = found[i];

			stem(name, sizeof name, rel);
			if (td_strv_find(*scripts, rel) >= 0)
				continue; /* matched by two globs */
			if (td_strv_find(*names, name) >= 0)
				err = TD_FAIL(TD_EINVAL, "two audit scripts are named '%s' (%s and another); "
							 "an audit's name is its file's stem", name, rel);
			if (!err && (td_strv_push(names, name) || td_strv_push(scripts, rel)))
				err = TD_FAIL(TD_ENOMEM, "out of memory listing audits");
		}
		td_strv_free(found);
	}
	/* sort both by name (few entries: insertion sort) */
	for (size_t i = 1; !err && i < td_strv_len(*names); i++)
		for (size_t j = i; j > 0 && strcmp((*names)[j - 1], (*names)[j]) > 0; j--) {
			char *t = (*names)[j];

			(*names)[j] = (*names)[j - 1], (*names)[j - 1] = t;
			t = (*scripts)[j], (*scripts)[j] = (*scripts)[j - 1], (*scripts)[j - 1] = t;
		}
	if (err) {
		td_strv_free(*names), td_strv_free(*scripts);
		*names = *scripts = NULL;
	}
	return err;
}

/* ---- one audit's context ------------------------------------------------------- */

typedef struct {
	const td_project *p;
	char tree[PATH_MAX];    /* absolute: the root or a mutant's scratch tree */
	char scratch[PATH_MAX + 512]; /* STATE/audit/<name>, td_testrun_state_dir of tree */
	char config[PATH_MAX];  /* the trainer config's copy, relative to scratch ("" when none) */
	td_audit_result *res;
	int n_runs;
	int recorded;
} actx;

static actx *ctx_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* Empties and recreates dir (an audit's scratch directory). */
static int fresh_dir(const char *dir)
{
	if (access(dir, F_OK) == 0 && nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return TD_FAIL(TD_EIO, "cannot empty the audit scratch directory %s: %s", dir,
			       strerror(errno));
	return td_mkdirs(dir);
}

/* Appends a line to the result's command log or evidence. */
static void note(lua_State *L, char ***v, const char *line)
{
	if (td_strv_push(v, line) != 0)
		luaL_error(L, "out of memory");
}

/* ---- templates --------------------------------------------------------------------- */

/*
 * The value of placeholder name into buf: a var from the table at vars_idx
 * (0: none), else a built-in ({root}, {config}). NULL when nothing fills it.
 */
static const char *var_value(lua_State *L, actx *c, int vars_idx, const char *name, char *buf,
			     size_t size)
{
	if (vars_idx) {
		lua_getfield(L, vars_idx, name);
		if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
			if (lua_isinteger(L, -1))
				snprintf(buf, size, "%lld", (long long)lua_tointeger(L, -1));
			else
				snprintf(buf, size, "%s", lua_tostring(L, -1));
			lua_pop(L, 1);
			return buf;
		}
		lua_pop(L, 1);
	}
	if (!strcmp(name, "root"))
		return c->tree;
	if (!strcmp(name, "config") && c->config[0])
		return c->config;
	return NULL;
}

/*
 * Pushes word with every {name} replaced. A placeholder nothing fills is a
 * Lua error naming it: a template must never reach a child half-filled.
 */
static void push_subst(lua_State *L, actx *c, int vars_idx, const char *word)
{
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	for (const char *s = word; *s;) {
		const char *open = strchr(s, '{'), *close = open ? strchr(open, '}') : NULL;
		char name[64], val[1024];
		const char *v;

		if (!open || !close || (size_t)(close - open - 1) >= sizeof name) {
			luaL_addstring(&b, s);
			break;
		}
		luaL_addlstring(&b, s, (size_t)(open - s));
		snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
		v = var_value(L, c, vars_idx, name, val, sizeof val);
		if (!v)
			luaL_error(L, "the template word '%s' has {%s}, which no variable fills "
				      "(give it in vars)", word, name);
		luaL_addstring(&b, v);
		s = close + 1;
	}
	luaL_pushresult(&b);
}

/* A trainer field by name; NULL when the project has no trainer block or the field is unset. */
static const td_tfield *tfield(const actx *c, const char *name)
{
	const td_tfield *f = c->p->trainer.given ? td_trainer_field(&c->p->trainer, name) : NULL;

	return f && f->given ? f : NULL;
}

/* Appends word (substituted) to *argv. */
static void argv_push(lua_State *L, actx *c, int vars_idx, char ***argv, const char *word)
{
	push_subst(L, c, vars_idx, word);
	if (td_strv_push(argv, lua_tostring(L, -1)) != 0)
		luaL_error(L, "out of memory");
	lua_pop(L, 1);
}

/*
 * The trainer's set template once per key of the table at set_idx (sorted
 * by key, so that argv is the same every run), {key} and {value} filled.
 */
static void append_sets(lua_State *L, actx *c, int set_idx, char ***argv)
{
	const td_tfield *set = tfield(c, "set");
	char **keys = NULL;
	int vars;

	if (!set_idx)
		return;
	lua_pushnil(L);
	while (lua_next(L, set_idx)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING || td_strv_push(&keys, lua_tostring(L, -1)))
			luaL_error(L, "opts.set must be a table of key = value");
	}
	for (size_t i = 1; keys && keys[i]; i++)
		for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			char *t = keys[j];

			keys[j] = keys[j - 1], keys[j - 1] = t;
		}
	if (keys && !set) {
		td_strv_free(keys);
		luaL_error(L, "opts.set given but the trainer block has no set template");
	}
	for (size_t i = 0; keys && keys[i]; i++) {
		lua_newtable(L);
		vars = lua_gettop(L);
		lua_pushstring(L, keys[i]);
		lua_setfield(L, vars, "key");
		lua_getfield(L, set_idx, keys[i]);
		lua_setfield(L, vars, "value");
		for (size_t w = 0; set->list[w]; w++)
			argv_push(L, c, vars, argv, set->list[w]);
		lua_pop(L, 1);
	}
	td_strv_free(keys);
}

/* ---- audit.run --------------------------------------------------------------------- */

/* The text of path (may be missing: ""), pushed. */
static void push_file(lua_State *L, const char *path)
{
	char *text = NULL;
	size_t len = 0;

	if (td_file_read(path, &text, &len) != 0) {
		td_error_clear();
		lua_pushliteral(L, "");
		return;
	}
	lua_pushlstring(L, text, len);
	free(text);
}

/* FNV-1a 64 of the file at scratch/rel as 16 hex digits into hex; 0 or TD_E*. */
static int hash_file(char hex[17], const actx *c, const char *rel)
{
	char path[PATH_MAX * 2], *text = NULL;
	size_t len = 0;
	int err;

	if (!td_lua_rel_ok(rel))
		return TD_FAIL(TD_EINVAL, "'%s' is not a path inside the audit's scratch directory", rel);
	snprintf(path, sizeof path, "%s/%s", c->scratch, rel);
	err = td_file_read(path, &text, &len);
	if (err)
		return err;
	snprintf(hex, 17, "%016llx", (unsigned long long)td_fnv1a64(TD_FNV1A64_OFFSET, text, len));
	free(text);
	return 0;
}

/*
 * The first capture (or the whole match) of Lua pattern pat in any line
 * of the string at idx, pushed; nil when no line matches.
 */
static void push_line_match(lua_State *L, int idx, const char *pat)
{
	size_t len;
	const char *s = lua_tolstring(L, idx, &len), *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		lua_getglobal(L, "string");
		lua_getfield(L, -1, "match");
		lua_pushlstring(L, s, n);
		lua_pushstring(L, pat);
		lua_call(L, 2, 1);
		lua_remove(L, -2);
		if (!lua_isnil(L, -1))
			return;
		lua_pop(L, 1);
		s += n + 1;
	}
	lua_pushnil(L);
}

/*
 * res.hash for a trainer command: the hash spec it has (train, stop and
 * resume: trainer.hash; init: trainer.init_hash, else its whole stdout,
 * trimmed). The result table is at res_idx, its stdout in field stdout.
 */
static void set_hash(lua_State *L, actx *c, const char *cmd, int res_idx, int vars_idx)
{
	const td_tfield *spec = !strcmp(cmd, "init") ? tfield(c, "init_hash")
				: (!strcmp(cmd, "train") || !strcmp(cmd, "stop") || !strcmp(cmd, "resume"))
					? tfield(c, "hash")
					: NULL;
	char hex[17];

	if (!spec && strcmp(cmd, "init"))
		return;
	lua_getfield(L, res_idx, "stdout");
	if (!spec) { /* init without init_hash: the whole output is the hash */
		lua_getglobal(L, "string");
		lua_getfield(L, -1, "match");
		lua_pushvalue(L, -3);
		lua_pushliteral(L, "^%s*(.-)%s*$");
		lua_call(L, 2, 1);
		lua_remove(L, -2);
	} else if (!strcmp(spec->keys[0], "line")) {
		push_line_match(L, lua_gettop(L), spec->values[0]);
	} else {
		push_subst(L, c, vars_idx, spec->values[0]);
		if (hash_file(hex, c, lua_tostring(L, -1)) == 0)
			lua_pushstring(L, hex);
		else
			td_error_clear(), lua_pushnil(L);
		lua_remove(L, -2);
	}
	if (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) == 0) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
	lua_setfield(L, res_idx, "hash");
	lua_pop(L, 1); /* stdout */
}

/* The argv of a run: a trainer command by name, or a list of words; then the sets. */
static char **build_argv(lua_State *L, actx *c, int vars_idx, int set_idx, const char **cmd)
{
	char **argv = NULL;

	*cmd = NULL;
	if (lua_type(L, 1) == LUA_TSTRING) {
		static const char *const cmds[] = {"init", "train", "stop", "resume", "eval", "absent",
						   NULL};
		const td_tfield *f;
		int known = 0;

		*cmd = lua_tostring(L, 1);
		for (int i = 0; cmds[i]; i++)
			known |= !strcmp(cmds[i], *cmd);
		if (!known)
			luaL_error(L, "audit.run: '%s' is not a trainer command (init, train, stop, "
				      "resume, eval, absent)", *cmd);
		if (!(f = tfield(c, *cmd)))
			luaL_error(L, "audit.run: the trainer block has no %s template; check "
				      "audit.trainer().%s first and skip", *cmd, *cmd);
		for (size_t i = 0; f->list[i]; i++)
			argv_push(L, c, vars_idx, &argv, f->list[i]);
	} else {
		luaL_checktype(L, 1, LUA_TTABLE);
		for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 1); i++) {
			if (lua_rawgeti(L, 1, i) != LUA_TSTRING)
				luaL_error(L, "audit.run: every word of an argv must be a string");
			argv_push(L, c, vars_idx, &argv, lua_tostring(L, -1));
			lua_pop(L, 1);
		}
		if (!argv)
			luaL_error(L, "audit.run: an empty argv");
	}
	append_sets(L, c, set_idx, &argv);
	return argv;
}

/* The field name of the table at idx if it is a table, else 0. */
static int opt_table(lua_State *L, int idx, const char *name)
{
	if (lua_type(L, idx) != LUA_TTABLE)
		return 0;
	if (lua_getfield(L, idx, name) == LUA_TTABLE)
		return lua_gettop(L);
	lua_pop(L, 1);
	return 0;
}

static double opt_timeout(lua_State *L, actx *c)
{
	const td_tfield *t = tfield(c, "timeout");
	double v = t ? t->num : 300;

	if (lua_type(L, 2) == LUA_TTABLE) {
		if (lua_getfield(L, 2, "timeout") == LUA_TNUMBER && lua_tonumber(L, -1) > 0)
			v = lua_tonumber(L, -1);
		lua_pop(L, 1);
	}
	return v;
}

/* Pushes the result table of a finished run. */
static void push_run_result(lua_State *L, const char *shown, const td_proc_result *pr,
			    const char *out_path, const char *err_path)
{
	int r;

	lua_newtable(L);
	r = lua_gettop(L);
	lua_pushstring(L, shown);
	lua_setfield(L, r, "argv");
	lua_pushinteger(L, pr->timed_out ? -1 : pr->exited ? pr->status : 128 + pr->status);
	lua_setfield(L, r, "status");
	lua_pushboolean(L, pr->exited && !pr->timed_out);
	lua_setfield(L, r, "exited");
	lua_pushboolean(L, pr->timed_out);
	lua_setfield(L, r, "timed_out");
	lua_pushnumber(L, pr->seconds);
	lua_setfield(L, r, "seconds");
	push_file(L, out_path);
	lua_setfield(L, r, "stdout");
	push_file(L, err_path);
	lua_setfield(L, r, "stderr");
}

static int l_run(lua_State *L)
{
	actx *c = ctx_of(L);
	int vars_idx = opt_table(L, 2, "vars"), set_idx = opt_table(L, 2, "set");
	const char *cmd;
	char **argv = build_argv(L, c, vars_idx, set_idx, &cmd);
	char out_path[PATH_MAX * 2], err_path[PATH_MAX * 2], shown[2048], line[2400], how[64];
	td_proc_opts po = {0};
	td_proc_result pr;
	td_jail jail;
	int err, r;

	c->n_runs++;
	snprintf(out_path, sizeof out_path, "%s/.run/%d.stdout", c->scratch, c->n_runs);
	snprintf(err_path, sizeof err_path, "%s/.run/%d.stderr", c->scratch, c->n_runs);
	td_proc_argv_string((const char *const *)argv, shown, sizeof shown);
	po.argv = (const char *const *)argv, po.cwd = c->scratch;
	po.out_path = out_path, po.err_path = err_path, po.timeout_s = opt_timeout(L, c);
	err = td_testrun_jail(&jail, &po, c->p, c->scratch); /* writes only in its scratch */
	if (!err)
		err = td_proc_run(&pr, &po);
	td_lua_credit(L, pr.seconds); /* the child had its own deadline: not the script's time */
	td_strv_free(argv);
	if (err) { /* could not start: an environment error, the audit cannot go on */
		snprintf(line, sizeof line, "%s -> not started: %s", shown, td_error_last());
		note(L, &c->res->commands, line);
		return luaL_error(L, "audit.run: %s", td_error_last());
	}
	push_run_result(L, shown, &pr, out_path, err_path);
	r = lua_gettop(L);
	if (cmd) {
		lua_pushstring(L, cmd);
		lua_setfield(L, r, "command");
		set_hash(L, c, cmd, r, vars_idx);
	}
	td_proc_describe(&pr, how, sizeof how);
	lua_getfield(L, r, "hash");
	snprintf(line, sizeof line, "%s -> %s (%.2fs)%s%s", shown, how, pr.seconds,
		 lua_isstring(L, -1) ? " hash " : "", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
	lua_pop(L, 1);
	note(L, &c->res->commands, line);
	return 1;
}

/* ---- audit.hash, audit.jsonl ---------------------------------------------------------- */

/* The path argument (1) with vars (2) filled in, pushed; checked to stay in the scratch dir. */
/* The path at stack index arg, its placeholders filled from the table at vars (0: none). */
static const char *scratch_path_at(lua_State *L, actx *c, int arg, int vars)
{
	const char *rel;

	luaL_checkstring(L, arg);
	push_subst(L, c, vars, lua_tostring(L, arg));
	rel = lua_tostring(L, -1);
	if (!td_lua_rel_ok(rel))
		luaL_error(L, "'%s' is not a path inside the audit's scratch directory (relative, "
			      "without '..')", rel);
	return rel;
}

static const char *scratch_path(lua_State *L, actx *c)
{
	return scratch_path_at(L, c, 1, lua_type(L, 2) == LUA_TTABLE ? 2 : 0);
}

static int l_hash(lua_State *L)
{
	actx *c = ctx_of(L);
	const char *rel = scratch_path(L, c);
	char hex[17], line[PATH_MAX + 64];

	if (hash_file(hex, c, rel) != 0) {
		lua_pushnil(L);
		lua_pushstring(L, td_error_last());
		td_error_clear();
		return 2;
	}
	snprintf(line, sizeof line, "hash %s -> %s", rel, hex);
	note(L, &c->res->commands, line);
	lua_pushstring(L, hex);
	return 1;
}

/* JSON text into Lua values: objects and arrays become tables, null audit.null. */
static int push_json(lua_State *L, const char **p, int depth);

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n')
		(*p)++;
}

static void put_utf8(luaL_Buffer *b, unsigned cp)
{
	char u[4];
	size_t n = 0;

	if (cp < 0x80)
		u[n++] = (char)cp;
	else if (cp < 0x800)
		u[n++] = (char)(0xC0 | cp >> 6), u[n++] = (char)(0x80 | (cp & 0x3F));
	else
		u[n++] = (char)(0xE0 | cp >> 12), u[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)),
		u[n++] = (char)(0x80 | (cp & 0x3F));
	luaL_addlstring(b, u, n);
}

static int push_json_string(lua_State *L, const char **p)
{
	luaL_Buffer b;
	const char *s = *p + 1;

	luaL_buffinit(L, &b);
	for (; *s && *s != '"'; s++) {
		if (*s != '\\') {
			luaL_addchar(&b, *s);
			continue;
		}
		s++;
		switch (*s) {
		case 'n': luaL_addchar(&b, '\n'); break;
		case 't': luaL_addchar(&b, '\t'); break;
		case 'r': luaL_addchar(&b, '\r'); break;
		case 'b': luaL_addchar(&b, '\b'); break;
		case 'f': luaL_addchar(&b, '\f'); break;
		case 'u': {
			unsigned cp = 0;

			for (int i = 1; i <= 4; i++) {
				char h = s[i];

				if (!h)
					return -1;
				cp = cp * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
			}
			put_utf8(&b, cp);
			s += 4;
			break;
		}
		case '\0': return -1;
		default: luaL_addchar(&b, *s);
		}
	}
	if (*s != '"')
		return -1;
	luaL_pushresult(&b);
	*p = s + 1;
	return 0;
}

static int push_json_container(lua_State *L, const char **p, int depth, int object)
{
	lua_Integer n = 0;

	lua_newtable(L);
	(*p)++;
	skip_ws(p);
	if (**p == (object ? '}' : ']')) {
		(*p)++;
		return 0;
	}
	for (;;) {
		skip_ws(p);
		if (object) {
			if (**p != '"' || push_json_string(L, p))
				return -1;
			skip_ws(p);
			if (*(*p)++ != ':')
				return -1;
		}
		skip_ws(p);
		if (push_json(L, p, depth + 1))
			return -1;
		if (object)
			lua_rawset(L, -3);
		else
			lua_rawseti(L, -2, ++n);
		skip_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (*(*p)++ != (object ? '}' : ']'))
			return -1;
		return 0;
	}
}

static int push_json(lua_State *L, const char **p, int depth)
{
	char *end;
	double v;

	luaL_checkstack(L, 8, "JSON nesting");
	if (depth > 64)
		return -1;
	skip_ws(p);
	switch (**p) {
	case '{': return push_json_container(L, p, depth, 1);
	case '[': return push_json_container(L, p, depth, 0);
	case '"': return push_json_string(L, p);
	case 't': if (strncmp(*p, "true", 4)) return -1; lua_pushboolean(L, 1); *p += 4; return 0;
	case 'f': if (strncmp(*p, "false", 5)) return -1; lua_pushboolean(L, 0); *p += 5; return 0;
	case 'n':
		if (strncmp(*p, "null", 4))
			return -1;
		lua_getglobal(L, "audit");
		lua_getfield(L, -1, "null");
		lua_remove(L, -2);
		*p += 4;
		return 0;
	}
	v = strtod(*p, &end);
	if (end == *p)
		return -1;
	if (v == floor(v) && fabs(v) < 9007199254740992.0 && !memchr(*p, '.', (size_t)(end - *p)) &&
	    !memchr(*p, 'e', (size_t)(end - *p)) && !memchr(*p, 'E', (size_t)(end - *p)))
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, v);
	*p = end;
	return 0;
}

static int l_jsonl(lua_State *L)
{
	actx *c = ctx_of(L);
	const char *rel = scratch_path(L, c);
	char path[PATH_MAX * 2], *text = NULL, line[PATH_MAX + 64];
	lua_Integer n = 0;
	int lineno = 0;

	snprintf(path, sizeof path, "%s/%s", c->scratch, rel);
	if (td_file_read(path, &text, NULL) != 0) {
		lua_pushnil(L);
		lua_pushfstring(L, "cannot read %s: it is not there (the trainer wrote no such file)",
				rel);
		td_error_clear();
		return 2;
	}
	lua_newtable(L);
	for (char *s = text; *s;) {
		char *nl = strchr(s, '\n');
		const char *q = s;

		if (nl)
			*nl = '\0';
		lineno++;
		skip_ws(&q);
		if (*q) {
			if (push_json(L, &q, 0) || (skip_ws(&q), *q)) {
				free(text);
				return luaL_error(L, "%s:%d: not a JSON line", rel, lineno);
			}
			lua_rawseti(L, -2, ++n);
		}
		s = nl ? nl + 1 : s + strlen(s);
	}
	free(text);
	snprintf(line, sizeof line, "read %s: %lld JSON lines", rel, (long long)n);
	note(L, &c->res->commands, line);
	return 1;
}

/* The detectors of a hit, as words: "id+exact". */
static const char *detector_names(char *buf, size_t size, unsigned d)
{
	snprintf(buf, size, "%s%s%s%s%s", d & TD_OVERLAP_ID ? "id" : "",
		 d & TD_OVERLAP_ID && d & (TD_OVERLAP_EXACT | TD_OVERLAP_NGRAM) ? "+" : "",
		 d & TD_OVERLAP_EXACT ? "exact" : "",
		 d & TD_OVERLAP_EXACT && d & TD_OVERLAP_NGRAM ? "+" : "",
		 d & TD_OVERLAP_NGRAM ? "ngram" : "");
	return buf;
}

/*
 * audit.overlap(train, eval, vars, opts): tdaudit overlap's engine on two
 * files of the scratch directory. opts: field (the JSON string field with
 * the text; nil: text files), id (the id field), ngram, threshold. Returns
 * { passing, hits, train_records, eval_records, relation, first = { line,
 * train_line, detectors, share } } (first: the first passing record).
 */
static int l_overlap(lua_State *L)
{
	actx *c = ctx_of(L);
	int vars = lua_type(L, 3) == LUA_TTABLE ? 3 : 0;
	const char *ra = scratch_path_at(L, c, 1, vars), *rb = scratch_path_at(L, c, 2, vars);
	char pa[PATH_MAX * 2], pb[PATH_MAX * 2], rel[256], line[2 * PATH_MAX + 128], det[32];
	td_overlap_opts o = {0};
	td_overlap_result *r;

	if (lua_type(L, 4) == LUA_TTABLE) {
		o.field = lua_getfield(L, 4, "field") == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		o.id_field = lua_getfield(L, 4, "id") == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		o.ngram = lua_getfield(L, 4, "ngram") == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
		o.threshold = lua_getfield(L, 4, "threshold") == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
	}
	snprintf(pa, sizeof pa, "%s/%s", c->scratch, ra);
	snprintf(pb, sizeof pb, "%s/%s", c->scratch, rb);
	if (td_overlap_run(&r, pa, pb, &o) != 0) {
		lua_pushnil(L);
		lua_pushstring(L, td_error_last());
		td_error_clear();
		return 2;
	}
	lua_newtable(L);
	lua_pushinteger(L, (lua_Integer)r->n_passing), lua_setfield(L, -2, "passing");
	lua_pushinteger(L, (lua_Integer)r->n_hits), lua_setfield(L, -2, "hits");
	lua_pushinteger(L, r->a.records), lua_setfield(L, -2, "train_records");
	lua_pushinteger(L, r->b.records), lua_setfield(L, -2, "eval_records");
	lua_pushstring(L, td_overlap_relation_text(rel, sizeof rel, r));
	lua_setfield(L, -2, "relation");
	for (size_t i = 0; i < r->n_hits; i++) {
		const td_overlap_hit *h = &r->hits[i];

		if (!h->passes)
			continue;
		lua_newtable(L);
		lua_pushinteger(L, h->b_line), lua_setfield(L, -2, "line");
		lua_pushinteger(L, h->a_id ? h->a_id : h->a_exact ? h->a_exact : h->a_ngram);
		lua_setfield(L, -2, "train_line");
		lua_pushstring(L, detector_names(det, sizeof det, h->detectors));
		lua_setfield(L, -2, "detectors");
		lua_pushnumber(L, h->share), lua_setfield(L, -2, "share");
		lua_setfield(L, -2, "first");
		break;
	}
	snprintf(line, sizeof line, "overlap %s %s (%s): %zu of %u evaluation records pass; %s", ra,
		 rb, TD_OVERLAP_NORM, r->n_passing, r->b.records, rel);
	note(L, &c->res->commands, line);
	td_overlap_result_free(r);
	return 1;
}

/* ---- audit.trainer, audit.result ------------------------------------------------------ */

static void push_strings(lua_State *L, char *const *v)
{
	lua_newtable(L);
	for (size_t i = 0; v && v[i]; i++) {
		lua_pushstring(L, v[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

static int l_trainer(lua_State *L)
{
	actx *c = ctx_of(L);
	const td_trainer *t = &c->p->trainer;

	if (!t->given) {
		lua_pushnil(L);
		return 1;
	}
	lua_newtable(L);
	for (int i = 0; i < t->n; i++) {
		const td_tfield *f = &t->f[i];

		if (!f->given)
			continue;
		if (f->kind == TD_TF_STRING)
			lua_pushstring(L, f->str);
		else if (f->kind == TD_TF_NUMBER)
			lua_pushnumber(L, f->num);
		else if (f->kind == TD_TF_MAP) {
			lua_newtable(L);
			for (size_t k = 0; f->keys && f->keys[k]; k++) {
				lua_pushstring(L, f->values[k]);
				lua_setfield(L, -2, f->keys[k]);
			}
		} else
			push_strings(L, f->list);
		lua_setfield(L, -2, f->name);
	}
	lua_pushstring(L, t->where);
	lua_setfield(L, -2, "where");
	return 1;
}

/* A string field of the table at idx, copied; NULL when absent. */
static char *dup_field(lua_State *L, int idx, const char *name, int required)
{
	char *s = NULL;

	if (lua_getfield(L, idx, name) == LUA_TSTRING) {
		if (!(s = strdup(lua_tostring(L, -1))))
			luaL_error(L, "out of memory");
	} else if (required || !lua_isnil(L, -1)) {
		luaL_error(L, "audit.result: %s must be a string", name);
	}
	lua_pop(L, 1);
	return s;
}

static int l_result(lua_State *L)
{
	static const char *const statuses[] = {"pass", "fail", "skip", NULL};
	static const char *const classes[] = {"LOUD", "COUNTED", "SILENT", "-", NULL};
	actx *c = ctx_of(L);
	td_audit_result *r = c->res;
	int st = -1, cl = -1;
	char *status;

	luaL_checktype(L, 1, LUA_TTABLE);
	if (c->recorded)
		return luaL_error(L, "audit.result: a result was already recorded; an audit has one");
	status = dup_field(L, 1, "status", 1);
	for (int i = 0; statuses[i]; i++)
		st = !strcmp(status, statuses[i]) ? i : st;
	free(status);
	if (st < 0)
		return luaL_error(L, "audit.result: status must be pass, fail or skip");
	r->class_ = dup_field(L, 1, "class", 0);
	if (!r->class_ && !(r->class_ = strdup(st == TD_AUDIT_FAIL ? "SILENT" : "-")))
		return luaL_error(L, "out of memory");
	for (int i = 0; classes[i]; i++)
		cl = !strcmp(r->class_, classes[i]) ? i : cl;
	if (cl < 0)
		return luaL_error(L, "audit.result: class must be LOUD, COUNTED, SILENT or -");
	r->summary = dup_field(L, 1, "summary", 1);
	r->reason = dup_field(L, 1, "reason", 0);
	if (st != TD_AUDIT_PASS && !r->reason)
		return luaL_error(L, "audit.result: a %s needs a reason", statuses[st]);
	if (lua_getfield(L, 1, "evidence") == LUA_TTABLE) {
		for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
			lua_rawgeti(L, -1, i);
			note(L, &r->evidence, luaL_tolstring(L, -1, NULL));
			lua_pop(L, 2);
		}
	}
	lua_pop(L, 1);
	r->status = (enum td_audit_status)st;
	c->recorded = 1;
	return 0;
}

static void register_api(lua_State *L, actx *c)
{
	static const luaL_Reg fns[] = {{"run", l_run},         {"hash", l_hash},
				       {"jsonl", l_jsonl},     {"overlap", l_overlap},
				       {"trainer", l_trainer},
				       {"result", l_result},   {NULL, NULL}};

	lua_newtable(L);
	for (const luaL_Reg *f = fns; f->name; f++) {
		lua_pushlightuserdata(L, c);
		lua_pushcclosure(L, f->func, 1);
		lua_setfield(L, -2, f->name);
	}
	lua_newtable(L); /* audit.null: JSON's null, a value unlike any other */
	lua_setfield(L, -2, "null");
	lua_setglobal(L, "audit");
}

/* ---- one audit ---------------------------------------------------------------------------- */

/* Copies the trainer's config file into the scratch directory; its name goes to c->config. */
static int copy_config(actx *c)
{
	const td_tfield *f = tfield(c, "config");
	char src[PATH_MAX * 2], dst[PATH_MAX * 2], name[256], *text = NULL;
	const char *b;
	size_t len;
	int err;

	if (!f)
		return 0;
	b = strrchr(f->str, '/');
	snprintf(name, sizeof name, "%s", b ? b + 1 : f->str);
	snprintf(src, sizeof src, "%s/%s", c->tree, f->str);
	snprintf(dst, sizeof dst, "%s/%s", c->scratch, name);
	err = td_file_read(src, &text, &len);
	if (err)
		return TD_FAIL(TD_EIO, "%s: trainer.config %s cannot be read", c->p->trainer.where,
			       f->str);
	err = td_file_write_atomic(dst, text, len, 0644);
	free(text);
	snprintf(c->config, sizeof c->config, "%s", name);
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int td_audit_run_one(td_audit_result *out, const td_project *p, const char *tree,
		     const char *name, const char *script)
{
	actx c;
	td_lua *lua = NULL;
	char runs[PATH_MAX * 2];
	double t0 = now();
	int err;

	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	c.p = p, c.res = out;
	if (!realpath(tree, c.tree))
		return TD_FAIL(TD_EIO, "tree %s: %s", tree, strerror(errno));
	if ((err = td_testrun_state_dir(c.scratch, sizeof c.scratch - 300, c.tree)))
		return err;
	snprintf(c.scratch + strlen(c.scratch), 300, "/audit/%s", name);
	if (!(out->name = strdup(name)) || !(out->script = strdup(script)))
		return TD_FAIL(TD_ENOMEM, "out of memory");
	snprintf(runs, sizeof runs, "%s/.run", c.scratch);
	if ((err = fresh_dir(c.scratch)) || (err = td_mkdirs(runs)))
		return err;
	err = copy_config(&c);
	if (!err)
		err = td_lua_new(&lua, c.tree, NULL);
	if (!err) {
		register_api(td_lua_state(lua), &c);
		err = td_lua_run_file(lua, script);
	}
	if (err || !c.recorded) {
		free(out->reason), free(out->summary), free(out->class_);
		out->status = TD_AUDIT_ERROR;
		out->reason = strdup(err ? td_error_last() : "the script ended without audit.result");
		out->summary = strdup("the audit could not run to a result");
		out->class_ = strdup("-");
		td_error_clear();
	}
	td_lua_free(lua);
	out->seconds = now() - t0;
	return 0;
}
