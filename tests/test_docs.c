/*
 * test_docs.c - the manual's option lists and the programs' --help agree.
 *
 * Each command's page in docs/ has a section headed exactly "## Options"
 * with one line per option, the option first in backticks:
 *
 *     - `--only PATTERN`: ...          or     | `--only PATTERN` | ... |
 *
 * For every command, this runs `PROG CMD --help` (the built programs of
 * this build), takes every --option token from what it prints, and checks
 * both ways: each token the help prints is documented in the Options
 * section of the command's page, and each option the section documents is
 * printed by the help of at least one command on that page (a page may
 * serve several: tdtrain's train, eval and hash; ledger's subcommands).
 * Only `--[a-z][a-z0-9-]*` tokens are compared, so the layout of the help
 * text does not matter; short options (-j, -o) are not compared, and
 * --help itself, which every command has, is left out.
 *
 * Both stdout and stderr are read: a command that answers --help with its
 * usage on stderr (tdtrain train --help today) still lists its options. A
 * ledger subcommand's help counts only when it exits 0, since it has no
 * help of its own until it does (its usage error names no options).
 *
 * Edits that break it (seen failing): deleting the `--cold` line from
 * docs/mutate.md's Options section -> "tdaudit mutate --help prints
 * --cold"; adding "- `--frobnicate`: ..." to docs/bisect.md's -> "documents
 * --frobnicate".
 *
 * The config key table of docs/tdtrain.md is checked against tdtrain's
 * own (core/config.c): seen failing with lr's default changed, clip's row
 * deleted, a row for a key that does not exist, and steps marked as not
 * changing the weights.
 *
 * It also reads docs/bad-input.md's table: every row has a message in
 * backticks, a numeric exit status and at least one test, and each test it
 * names is one `tdtest --list` prints. Seen failing: a row naming
 * `test_a_truncated_checkpoint_is_refused` (no such test), and a row whose
 * exit cell was emptied.
 */
#include "tdtest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/config.h"
#include "fixture.h"

#define MAX_OPTS 128
#define OPT_LEN 64

typedef struct {
	char v[MAX_OPTS][OPT_LEN];
	int n;
} opt_set;

/* One help call: the page that documents it, the program, its arguments. */
typedef struct {
	const char *page;
	const char *prog;
	const char *args[4]; /* NULL-terminated; the last is "--help" */
	int own_help_only;   /* count its output only when it exits 0 */
} help_call;

static const help_call calls[] = {
    {"docs/mutate.md", "tdaudit", {"mutate", "--help", NULL}, 0},
    {"docs/reproduce.md", "tdaudit", {"reproduce", "--help", NULL}, 0},
    {"docs/bisect.md", "tdaudit", {"bisect", "--help", NULL}, 0},
    {"docs/audit.md", "tdaudit", {"audit", "--help", NULL}, 0},
    {"docs/overlap.md", "tdaudit", {"overlap", "--help", NULL}, 0},
    {"docs/gates.md", "tdaudit", {"gates", "--help", NULL}, 0},
    {"docs/report.md", "tdaudit", {"report", "--help", NULL}, 0},
    {"docs/ledger.md", "tdaudit", {"ledger", "--help", NULL}, 0},
    {"docs/ledger.md", "tdaudit", {"ledger", "check", "--help", NULL}, 1},
    {"docs/ledger.md", "tdaudit", {"ledger", "export", "--help", NULL}, 1},
    {"docs/ledger.md", "tdaudit", {"ledger", "merge", "--help", NULL}, 1},
    {"docs/tdtrain.md", "tdtrain", {"train", "--help", NULL}, 0},
    {"docs/tdtrain.md", "tdtrain", {"eval", "--help", NULL}, 0},
    {"docs/tdtrain.md", "tdtrain", {"hash", "--help", NULL}, 0},
    {"docs/weekly.md", "/ci/weekly", {"--help", NULL}, 0},
};
#define N_CALLS (sizeof calls / sizeof calls[0])

static int has(const opt_set *s, const char *opt)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], opt))
			return 1;
	return 0;
}

static void add(opt_set *s, const char *opt)
{
	if (!has(s, opt) && s->n < MAX_OPTS)
		snprintf(s->v[s->n++], OPT_LEN, "%s", opt);
}

/*
 * Adds to s every --option token of text[0, len): "--" not preceded by a
 * letter, digit or '-', then a lower-case letter, then letters, digits and
 * '-'. A trailing '-' is not part of the token; --help is left out.
 */
static void scan_options(opt_set *s, const char *text, size_t len)
{
	for (size_t i = 0; i + 2 < len; i++) {
		char opt[OPT_LEN];
		size_t j = i + 2, k = 0;

		if (text[i] != '-' || text[i + 1] != '-' || !islower((unsigned char)text[j]))
			continue;
		if (i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '-'))
			continue;
		while (j < len && (islower((unsigned char)text[j]) || isdigit((unsigned char)text[j]) ||
				   text[j] == '-'))
			j++;
		while (j > i + 3 && text[j - 1] == '-')
			j--;
		for (size_t c = i; c < j && k + 1 < sizeof opt; c++)
			opt[k++] = text[c];
		opt[k] = '\0';
		if (strcmp(opt, "--help"))
			add(s, opt);
		i = j - 1;
	}
}

/*
 * The options the "## Options" section of page documents: on each line of
 * the section that starts with "- `" or "| `", the tokens before the
 * description (before the first "`:" of a list line, within the first
 * cell of a table row). Returns 0 when the page has no such section.
 */
static int page_options(opt_set *s, const char *page)
{
	char path[4096], *text;
	const char *p, *end;
	int found = 0;

	snprintf(path, sizeof path, "%s/%s", TD_SOURCE_DIR, page);
	text = strdup(fx_slurp(path));
	assert_non_null(text);
	for (p = text; *p; p = *end ? end + 1 : end) {
		const char *head_end;

		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (!found) {
			found = (size_t)(end - p) == strlen("## Options") && !strncmp(p, "## Options", 10);
			continue;
		}
		if (!strncmp(p, "## ", 3) || !strncmp(p, "# ", 2))
			break;
		if (strncmp(p, "- `", 3) && strncmp(p, "| `", 3))
			continue;
		head_end = p[0] == '-' ? strstr(p, "`:") : strchr(p + 1, '|');
		if (!head_end || head_end > end)
			head_end = end;
		scan_options(s, p, (size_t)(head_end - p));
	}
	free(text);
	return found;
}

/*
 * Runs call c's program and adds the options its output names to s.
 * Returns 0 when the output counts (see own_help_only), -1 when not.
 */
static int help_options(opt_set *s, const help_call *c)
{
	const char *argv[8] = {NULL};
	char prog[4096];
	const char *out;
	int n = 0, status;

	if (c->prog[0] == '/') /* a script of the source tree */
		snprintf(prog, sizeof prog, "%s%s", TD_SOURCE_DIR, c->prog);
	else
		snprintf(prog, sizeof prog, "%s/%s", TD_BUILD_DIR, c->prog);
	argv[n++] = prog;
	for (int i = 0; c->args[i]; i++)
		argv[n++] = c->args[i];
	/* fx_run writes the log beside the directory it runs in: run/../ is the
	 * test's own scratch directory, not the shared one above it */
	mkdir("run", 0755);
	status = fx_run("run", "docs-help.log", argv);
	if (c->own_help_only && status != 0)
		return -1;
	out = fx_slurp("docs-help.log");
	scan_options(s, out, strlen(out));
	return 0;
}

/* "tdaudit mutate --help" for messages. */
static const char *call_name(char *buf, size_t size, const help_call *c)
{
	size_t len = (size_t)snprintf(buf, size, "%s", c->prog);

	for (int i = 0; c->args[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, " %s", c->args[i]);
	return buf;
}

static void test_every_option_a_help_prints_is_documented_on_its_page(void **state)
{
	char msg[8192] = "", name[256];
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < N_CALLS; i++) {
		opt_set help = {.n = 0}, doc = {.n = 0};
		int counts = help_options(&help, &calls[i]);

		if (!page_options(&doc, calls[i].page))
			fail_msg("%s has no section headed exactly \"## Options\"", calls[i].page);
		if (counts == 0 && help.n == 0)
			len += (size_t)snprintf(msg + len, sizeof msg - len,
						"`%s` prints no --option at all (is it built?)\n",
						call_name(name, sizeof name, &calls[i]));
		for (int k = 0; k < help.n && len < sizeof msg; k++)
			if (!has(&doc, help.v[k]))
				len += (size_t)snprintf(
				    msg + len, sizeof msg - len,
				    "`%s` prints %s, but the ## Options section of %s does not "
				    "document it\n",
				    call_name(name, sizeof name, &calls[i]), help.v[k], calls[i].page);
	}
	if (len)
		fail_msg("%s", msg);
}

static void test_every_option_a_page_documents_is_in_its_help(void **state)
{
	char msg[8192] = "", names[1024], name[256];
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < N_CALLS; i++) {
		opt_set help = {.n = 0}, doc = {.n = 0};
		size_t nlen = 0;
		int first = 1;

		if (i > 0 && !strcmp(calls[i - 1].page, calls[i].page))
			continue; /* this page was checked with its first call */
		names[0] = '\0';
		for (size_t j = i; j < N_CALLS && !strcmp(calls[j].page, calls[i].page); j++) {
			if (help_options(&help, &calls[j]) != 0)
				continue;
			nlen += (size_t)snprintf(names + nlen, sizeof names - nlen, "%s`%s`",
						 first ? "" : " or ",
						 call_name(name, sizeof name, &calls[j]));
			first = 0;
		}
		if (!page_options(&doc, calls[i].page))
			fail_msg("%s has no section headed exactly \"## Options\"", calls[i].page);
		for (int k = 0; k < doc.n && len < sizeof msg; k++)
			if (!has(&help, doc.v[k]))
				len += (size_t)snprintf(msg + len, sizeof msg - len,
							"the ## Options section of %s documents %s, but "
							"%s does not print it\n",
							calls[i].page, doc.v[k], names);
	}
	if (len)
		fail_msg("%s", msg);
}

/*
 * The CI configurations in ci/ and .github/ are YAML that parses (PyYAML,
 * Debian's python3-yaml), each runs ci/weekly or tdaudit-weekly, and the
 * GitHub ones list as many matrix shards as their SHARDS says. Breaks it:
 * a tab for indentation in ci/gitlab-weekly.yml; matrix [1, 2, 3] with
 * SHARDS: 4.
 */
static void test_the_ci_configurations_parse_and_agree_on_their_shards(void **state)
{
	static const char check[] =
		"import sys, yaml\n"
		"for path in sys.argv[1:]:\n"
		"    doc = yaml.safe_load(open(path))\n"
		"    text = open(path).read()\n"
		"    assert 'weekly --shard' in text and 'weekly --merge' in text, path + ': runs no weekly'\n"
		"    if 'jobs' in doc:\n"
		"        n = int(doc['env']['SHARDS'])\n"
		"        m = doc['jobs']['shard']['strategy']['matrix']['shard']\n"
		"        assert m == list(range(1, n + 1)), '%s: matrix %s for SHARDS %d' % (path, m, n)\n"
		"print('ok')\n";
	const char *argv[] = {"/usr/bin/python3", "-c", check,
			      TD_SOURCE_DIR "/ci/github-weekly.yml", TD_SOURCE_DIR "/ci/gitlab-weekly.yml",
			      TD_SOURCE_DIR "/.github/workflows/tdaudit-weekly.yml", NULL};
	const char *probe[] = {"/usr/bin/python3", "-c", "import yaml", NULL};

	(void)state;
	mkdir("run", 0755);
	if (fx_run("run", "yaml.log", probe) != 0)
		TD_SKIP("no /usr/bin/python3 with PyYAML (Debian's python3-yaml; ci/deps installs it)");
	if (fx_run("run", "yaml.log", argv) != 0)
		fail_msg("%s", fx_slurp("yaml.log"));
}

/* ---- docs/bad-input.md ------------------------------------------------------ */

/* Whether name is a whole line of list (the output of tdtest --list). */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Checks one row's cells (5, trimmed); appends what is wrong to msg. */
static size_t check_row(char *msg, size_t size, int line, char cells[][1024], const char *list)
{
	size_t len = 0;
	char *end;
	long status = strtol(cells[3], &end, 10);
	int tests = 0;

	if (!strchr(cells[2], '`'))
		len += (size_t)snprintf(msg + len, size - len, "line %d: no message in backticks\n", line);
	if (end == cells[3] || *end || status < 0 || status > 255)
		len += (size_t)snprintf(msg + len, size - len, "line %d: exit status '%s' is no number\n",
					line, cells[3]);
	for (char *p = strchr(cells[4], '`'); p && len < size; p = strchr(p + 1, '`')) {
		char name[256];

		if (sscanf(p + 1, "%255[a-z0-9_]`", name) != 1 || strncmp(name, "test_", 5))
			continue;
		p = strchr(p + 1, '`');
		tests++;
		if (!listed(list, name))
			len += (size_t)snprintf(msg + len, size - len,
						"line %d: no test named %s (tdtest --list)\n", line, name);
		if (!p)
			break;
	}
	if (tests == 0 && len < size)
		len += (size_t)snprintf(msg + len, size - len, "line %d: names no test\n", line);
	return len;
}

/*
 * Every row of the table of bad inputs has a message, an exit status and
 * tests that exist, so the table cannot rot as tests are renamed.
 */
static void test_every_bad_input_row_has_a_message_a_status_and_tests_that_exist(void **state)
{
	const char *argv[] = {TD_BUILD_DIR "/tests/tdtest", "--list", NULL};
	char msg[8192] = "", *page, *list;
	size_t len = 0;
	int line = 0, rows = 0;

	(void)state;
	assert_int_equal(mkdir("w", 0755), 0);
	assert_int_equal(fx_run("w", "list.log", argv), 0);
	list = strdup(fx_slurp("list.log"));
	page = strdup(fx_slurp(TD_SOURCE_DIR "/docs/bad-input.md"));
	assert_non_null(list);
	assert_non_null(page);
	for (char *l = page, *nl; l && *l && len < sizeof msg; l = nl ? nl + 1 : NULL) {
		static char cells[8][1024];
		int n = 0;

		if ((nl = strchr(l, '\n')))
			*nl = '\0';
		line++;
		if (strncmp(l, "| ", 2) || !strncmp(l, "| bad input |", 13))
			continue;
		for (char *c = l + 1, *bar; (bar = strchr(c, '|')) && n < 8; c = bar + 1, n++) {
			size_t k = (size_t)(bar - c);

			while (k && c[k - 1] == ' ')
				k--;
			while (k && *c == ' ')
				c++, k--;
			snprintf(cells[n], sizeof cells[n], "%.*s", (int)k, c);
		}
		rows++;
		if (n != 5)
			len += (size_t)snprintf(msg + len, sizeof msg - len,
						"line %d: %d cells, not 5 (a '|' inside a cell?)\n", line, n);
		else
			len += check_row(msg + len, sizeof msg - len, line, cells, list);
	}
	free(page);
	free(list);
	if (rows < 40)
		len += (size_t)snprintf(msg + len, sizeof msg - len, "only %d rows\n", rows);
	if (len)
		fail_msg("docs/bad-input.md:\n%s", msg);
}

/* The row of docs/tdtrain.md's key table for key name: its start in text, or NULL. */
static const char *key_row(const char *text, const char *name)
{
	char head[128];
	const char *p;

	snprintf(head, sizeof head, "\n| `%s` |", name);
	p = strstr(text, head);
	return p ? p + 1 : NULL;
}

/*
 * docs/tdtrain.md's table of config keys is core/config.c's key table:
 * one row per declared key and no other, each with the key's type, its
 * default, its values (for a string key), whether it changes the weights,
 * and its one-line description, as `tdtrain` itself holds them.
 */
static void test_the_config_key_table_in_the_docs_is_the_trainer_s(void **state)
{
	static const char *const types[] = {"int", "float", "string", "bool"};
	char path[4096], want[1024], got[1024];
	const char *text, *row;
	size_t n, rows = 0;
	const td_config_key *k = td_config_keys(&n);

	(void)state;
	snprintf(path, sizeof path, "%s/docs/tdtrain.md", TD_SOURCE_DIR);
	text = fx_slurp(path);
	for (size_t i = 0; i < n; i++) {
		if (!(row = key_row(text, k[i].name)))
			fail_msg("docs/tdtrain.md has no row for the key %s", k[i].name);
		snprintf(got, sizeof got, "%.*s", (int)strcspn(row, "\n"), row);
		snprintf(want, sizeof want, "| `%s` | %s | `%s` |", k[i].name, types[k[i].type], k[i].def);
		if (strncmp(got, want, strlen(want)))
			fail_msg("docs/tdtrain.md's row for %s does not start '%s': %s", k[i].name, want, got);
		snprintf(want, sizeof want, " | %s | %s |", k[i].affects_weights ? "yes" : "no", k[i].doc);
		if (strlen(got) < strlen(want) || strcmp(got + strlen(got) - strlen(want), want))
			fail_msg("docs/tdtrain.md's row for %s does not end '%s': %s", k[i].name, want, got);
		if (k[i].allowed) {
			size_t w = 0;

			for (const char *c = k[i].allowed; *c && w + 3 < sizeof want; c++)
				w += (size_t)snprintf(want + w, sizeof want - w, *c == '|' ? ", " : "%c", *c);
			if (!strstr(got, want))
				fail_msg("docs/tdtrain.md's row for %s does not list its values %s: %s",
					 k[i].name, want, got);
		}
	}
	/* and every row of the table names a declared key: the table ends at its first non-row */
	row = strstr(text, "\n| key | type |");
	assert_non_null(row);
	for (row = strchr(row + 1, '\n'); row && row[1] == '|'; row = strchr(row + 1, '\n')) {
		char name[64];

		if (sscanf(row, "\n| `%63[a-z0-9_]`", name) != 1)
			continue; /* the header's rule */
		if (!td_config_key_find(name))
			fail_msg("docs/tdtrain.md documents a key tdtrain does not have: %s", name);
		rows++;
	}
	assert_int_equal(rows, n);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_option_a_help_prints_is_documented_on_its_page),
    cmocka_unit_test(test_every_option_a_page_documents_is_in_its_help),
    cmocka_unit_test(test_the_ci_configurations_parse_and_agree_on_their_shards),
    cmocka_unit_test(test_every_bad_input_row_has_a_message_a_status_and_tests_that_exist),
    cmocka_unit_test(test_the_config_key_table_in_the_docs_is_the_trainer_s),
};
TD_TEST_GROUP(docs, tests);
