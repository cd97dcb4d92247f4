/*
 * html.c - the ledger as one HTML page (see html.h): the reads the ledger's
 * API does not offer (read-only SQL of our own), then one function per
 * section of the page, then the page itself.
 *
 * Never: put text on the page without td_xml_put_text; reach the network;
 * write to the ledger (it is opened read-only after td_ledger_open has
 * checked and migrated it).
 */
#define _GNU_SOURCE
#include "html.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/json.h"
#include "../ledger/ledger.h"
#include "catalogue.h"
#include "gates.h"
#include "html_page.h"
#include "mutate.h"
#include "project.h"
#include "report.h"

typedef td_json_buf buf;

/* --- writing ----------------------------------------------------------------- */

static void raw(buf *b, const char *s)
{
	td_json_put_raw(b, s);
}

/* Text or an attribute value, escaped; NULL writes nothing. */
static void esc(buf *b, const char *s)
{
	td_xml_put_text(b, s);
}

/* Formatted markup: never pass ledger text through here (esc() it). */
static void __attribute__((format(printf, 2, 3))) fmt(buf *b, const char *f, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, f);
	n = vasprintf(&text, f, ap);
	va_end(ap);
	if (n < 0) {
		b->err = TD_ENOMEM; /* sticky, as the buffer's own failures: reported at the end */
		return;
	}
	raw(b, text);
	free(text);
}

/* <tag class="cls">text</tag>, text escaped. */
static void el(buf *b, const char *tag, const char *cls, const char *text)
{
	fmt(b, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	esc(b, text);
	fmt(b, "</%s>", tag);
}

/* The first 10 characters of a commit id, escaped ("-" when none). */
static void short_commit(buf *b, const char *c)
{
	char s[11];

	if (!c || !*c) {
		raw(b, "-");
		return;
	}
	snprintf(s, sizeof s, "%s", c);
	raw(b, "<code title=\"");
	esc(b, c);
	raw(b, "\">");
	esc(b, s);
	raw(b, "</code>");
}

/* --- reads of our own (read-only SQL) ---------------------------------------- */

/* Column i as text, "" for NULL. Borrowed: valid until the next step. */
static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static int prepare(sqlite3_stmt **st, sqlite3 *db, const char *sql)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return TD_FAIL(TD_EIO, "cannot read the ledger: %s", sqlite3_errmsg(db));
	return 0;
}

/* How many rows a table holds (a constant name from this file). */
static long count_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long n = 0;

	if (prepare(&st, db, sql) == 0 && sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int outcome_index(const char *name)
{
	for (int i = 0; i < TD_N_OUTCOMES; i++)
		if (!strcmp(td_outcome_name((enum td_outcome)i), name))
			return i;
	return -1;
}

/* --- the header and the key figures ------------------------------------------- */

/* The score as the page shows it: "66.7", or "n/a" when no mutant was judged. */
static void score_text(char *out, size_t size, const size_t count[TD_N_OUTCOMES])
{
	double s;

	if (td_report_score(&s, count))
		snprintf(out, size, "n/a");
	else
		snprintf(out, size, "%.1f", s);
}

/* The score card, the outcome counts and a bar of them. */
static void key_figures(buf *b, const td_gates *g, size_t n_findings, long audits_failed)
{
	char score[32];
	size_t holes = g->count[TD_SURVIVED] + g->count[TD_NO_COVERAGE];

	score_text(score, sizeof score, g->count);
	raw(b, "<section class=\"cards\">");
	fmt(b, "<div class=\"card big %s\"><div class=\"label\">mutation score</div>"
	       "<div id=\"score\" class=\"figure\" data-score=\"%s\">%s%s</div>"
	       "<div class=\"sub\">%zu killed of %zu judged</div></div>",
	    holes ? "warn" : "good", score, score, strcmp(score, "n/a") ? "%" : "",
	    g->count[TD_KILLED], td_report_judged(g->count));
	fmt(b, "<div class=\"card %s\"><div class=\"label\">survived</div>"
	       "<div class=\"figure\">%zu</div><div class=\"sub\"><a href=\"#survivors\">"
	       "holes in the suite</a>%s</div></div>",
	    holes ? "bad" : "good", holes,
	    g->count[TD_NO_COVERAGE] ? ", no-coverage included" : "");
	fmt(b, "<div class=\"card\"><div class=\"label\">mutants</div><div class=\"figure\">%zu"
	       "</div><div class=\"sub\">%zu tests listed</div></div>",
	    g->n_mutants, g->n_tests);
	fmt(b, "<div class=\"card\"><div class=\"label\">findings</div><div class=\"figure\">%zu"
	       "</div><div class=\"sub\"><a href=\"#findings-section\">guards</a></div></div>",
	    n_findings);
	if (audits_failed >= 0)
		fmt(b, "<div class=\"card %s\"><div class=\"label\">audits failed</div>"
		       "<div class=\"figure\">%ld</div><div class=\"sub\"><a href=\"#audits\">"
		       "latest audit run</a></div></div>",
		    audits_failed ? "bad" : "good", audits_failed);
	raw(b, "</section>");

	raw(b, "<section><h2>Outcomes</h2><div id=\"counts\"");
	for (int i = 0; i < TD_N_OUTCOMES; i++)
		fmt(b, " data-count-%s=\"%zu\"", td_outcome_name((enum td_outcome)i), g->count[i]);
	raw(b, "><div class=\"bar\">");
	for (int i = 0; i < TD_N_OUTCOMES; i++)
		if (g->count[i] && g->n_mutants)
			fmt(b, "<span class=\"o-%s\" style=\"flex-grow:%zu\" title=\"%s: %zu\"></span>",
			    td_outcome_name((enum td_outcome)i), g->count[i],
			    td_outcome_name((enum td_outcome)i), g->count[i]);
	raw(b, "</div><ul class=\"legend\">");
	for (int i = 0; i < TD_N_OUTCOMES; i++)
		fmt(b, "<li><span class=\"dot o-%s\"></span>%s <b>%zu</b></li>",
		    td_outcome_name((enum td_outcome)i), td_outcome_name((enum td_outcome)i),
		    g->count[i]);
	raw(b, "</ul></div>");
	fmt(b, "<p class=\"note\">The score is killed / (killed + killed-elsewhere + survived "
	       "+ no-coverage + timeout); build-failed, stale and equivalent mutants judged "
	       "nothing. Kill matrix: %s.</p></section>",
	    g->run.full ? "full (every failing test recorded)"
			: "first-kill (the first failing test of each mutant)");
}

/* --- survivors ------------------------------------------------------------------ */

/* The catalogue entries of the repository at root, for the survivors' edits. */
typedef struct {
	td_mutants m;
	int loaded;
	char why[512]; /* why there are no edits, when !loaded */
} edits;

static void edits_load(edits *e, const char *root)
{
	td_project *p = NULL;

	memset(e, 0, sizeof *e);
	if (!root) {
		snprintf(e->why, sizeof e->why,
			 "the edits come from the repository's catalogues: give --root DIR");
		return;
	}
	if (td_project_load(&p, root) != 0 ||
	    td_catalogue_load(&e->m, root, p->catalogues) != 0) {
		snprintf(e->why, sizeof e->why, "the catalogues of %s did not load: %s", root,
			 td_error_last());
		td_project_free(p);
		return;
	}
	td_project_free(p);
	e->loaded = 1;
}

static const td_mutant *edits_find(const edits *e, const char *id)
{
	for (size_t i = 0; e->loaded && i < e->m.n; i++)
		if (!strcmp(e->m.v[i].id, id))
			return &e->m.v[i];
	return NULL;
}

/* One side of an edit as diff lines: prefix before each line of s. */
static void diff_side(buf *b, const char *cls, char prefix, const char *s)
{
	const char *p = s;

	while (*p || p == s) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, len);

		fmt(b, "<span class=\"%s\">%c ", cls, prefix);
		esc(b, line ? line : "");
		raw(b, "</span>"); /* a block: no newline between the lines */
		free(line);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* One survivor's row: id, file:line, edit and why (from the mutants table). */
static void survivor_row(buf *b, sqlite3_stmt *st, const td_ledger_matrix_mutant *mm,
			 const edits *e)
{
	const td_mutant *c = edits_find(e, mm->id);
	int line = 0;
	char *why = NULL;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, mm->id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		line = sqlite3_column_int(st, 0);
		why = strdup(col(st, 1));
	}
	raw(b, "<tr class=\"survivor\" data-mutant=\"");
	esc(b, mm->id);
	raw(b, "\" data-file=\"");
	esc(b, mm->file);
	fmt(b, "\" data-line=\"%d\"><td><code class=\"id\">", line);
	esc(b, mm->id);
	raw(b, "</code>");
	if (mm->function) {
		raw(b, "<div class=\"sub\">in ");
		esc(b, mm->function);
		raw(b, "()</div>");
	}
	if (!strcmp(mm->outcome, "no-coverage"))
		raw(b, "<div class=\"sub\">no-coverage: no test reaches it</div>");
	raw(b, "</td><td><code>");
	esc(b, mm->file);
	fmt(b, ":%d</code></td><td>", line);
	if (c && c->find && c->replace) {
		raw(b, "<pre class=\"diff\">");
		diff_side(b, "del", '-', c->find);
		diff_side(b, "add", '+', c->replace);
		raw(b, "</pre>");
	} else {
		el(b, "span", "muted", e->loaded ? "not in the catalogues now" : "not shown");
	}
	raw(b, "</td><td>");
	esc(b, why ? why : "");
	raw(b, "</td></tr>");
	free(why);
}

static int survivors(buf *b, sqlite3 *db, const td_ledger_matrix *m, const edits *e,
		     size_t n_survived)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(&st, db, "SELECT line, why FROM mutants WHERE id = ?1");

	if (err)
		return err;
	fmt(b, "<section id=\"survivors\"><h2>Survivors <span class=\"pill %s\">%zu</span></h2>",
	    n_survived ? "bad" : "good", n_survived);
	if (!n_survived) {
		raw(b, "<p>Every judged mutant was caught.</p></section>");
		sqlite3_finalize(st);
		return 0;
	}
	raw(b, "<p class=\"note\">Each survivor is an edit that every test passed, or that no "
	       "test reached (no-coverage): a place where the suite would not notice the bug.");
	if (!e->loaded) {
		raw(b, " Edits not shown: ");
		esc(b, e->why);
		raw(b, ".");
	}
	raw(b, "</p><table class=\"survivors\"><thead><tr><th>mutant</th><th>where</th>"
	       "<th>edit</th><th>why it matters</th></tr></thead><tbody>");
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].outcome, "survived") || !strcmp(m->v[i].outcome, "no-coverage"))
			survivor_row(b, st, &m->v[i], e);
	raw(b, "</tbody></table></section>");
	sqlite3_finalize(st);
	return 0;
}

/* --- charts ---------------------------------------------------------------------- */

typedef struct {
	const char *name, *color;
	const double *x, *y;
	size_t n;
} series;

/* A value axis: lo..hi, widened when flat. */
static void range_of(double *lo, double *hi, const series *s, size_t ns, int use_y)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			double v = use_y ? s[k].y[i] : s[k].x[i];

			if (isfinite(v)) {
				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			}
		}
	if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi - *lo < 1e-12) {
		*lo -= 0.5;
		*hi += 0.5;
	}
}

#define CW 640.0 /* chart width and height, in SVG units */
#define CH 220.0
#define PL 52.0 /* plot margins: left, right, top, bottom */
#define PR 12.0
#define PT 12.0
#define PB 28.0

/* What a chart shows besides its series. Plain data; zero: the defaults. */
typedef struct {
	double y_lo, y_hi;   /* the value axis, when y_lo < y_hi; else the data's range */
	char *const *labels; /* a tooltip per point of the first series, or NULL */
	const char *x_first, *x_last; /* the x axis' end labels (escaped), or NULL: numbers */
} chart_opts;

/* A line chart of ns series, each point marked, with its range on each axis. */
static void chart(buf *b, const char *id, const series *s, size_t ns, const chart_opts *co)
{
	double y_lo = co->y_lo, y_hi = co->y_hi;
	char *const *labels = co->labels;
	double x0, x1, y0, y1;

	range_of(&x0, &x1, s, ns, 0);
	if (y_lo < y_hi)
		y0 = y_lo, y1 = y_hi;
	else
		range_of(&y0, &y1, s, ns, 1);
#define SX(v) (PL + ((v) - x0) / (x1 - x0) * (CW - PL - PR))
#define SY(v) (PT + (1 - ((v) - y0) / (y1 - y0)) * (CH - PT - PB))
	fmt(b, "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">", id, CW, CH);
	for (int t = 0; t <= 4; t++) {
		double v = y0 + (y1 - y0) * t / 4;

		fmt(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>",
		    PL, CW - PR, SY(v), SY(v), PL - 6, SY(v) + 4, v);
	}
	if (co->x_first) {
		fmt(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", PL, CH - 8);
		esc(b, co->x_first);
		fmt(b, "</text><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		    CW - PR, CH - 8);
		esc(b, co->x_last);
		raw(b, "</text>");
	} else {
		fmt(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%.6g</text>"
		       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g"
		       "</text>",
		    PL, CH - 8, x0, CW - PR, CH - 8, x1);
	}
	for (size_t k = 0; k < ns; k++) {
		fmt(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s[k].color);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].y[i]))
				fmt(b, "%.1f,%.1f ", SX(s[k].x[i]), SY(s[k].y[i]));
		raw(b, "\"/>");
		for (size_t i = 0; i < s[k].n && s[k].n <= 200; i++) {
			if (!isfinite(s[k].y[i]))
				continue;
			fmt(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
			    SX(s[k].x[i]), SY(s[k].y[i]), s[k].color);
			if (labels && k == 0)
				esc(b, labels[i]);
			else
				fmt(b, "%s: %.6g at %.6g", s[k].name, s[k].y[i], s[k].x[i]);
			raw(b, "</title></circle>");
		}
	}
#undef SX
#undef SY
	raw(b, "</svg><ul class=\"legend\">");
	for (size_t k = 0; k < ns; k++)
		fmt(b, "<li><span class=\"dot\" style=\"background:%s\"></span>%s</li>", s[k].color,
		    s[k].name);
	raw(b, "</ul>");
}

/* --- the score over the ledger's mutation runs ------------------------------------ */

/* The scores of the ledger's mutation runs, oldest first. */
typedef struct {
	double *x, *y;            /* the run's number (1-based), its score in percent */
	char **labels;            /* each point's tooltip (NULL where it could not be made) */
	size_t n, cap;
	size_t undefined;         /* runs with no judged mutant: counted, not plotted */
	char first[40], last[40]; /* the x axis' end labels */
} scores;

static void scores_free(scores *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		free(sc->labels[i]);
	free(sc->labels);
	free(sc->x);
	free(sc->y);
}

/* Adds one run's point (or counts it as undefined); label: its date and commit. */
static int scores_add(scores *sc, const size_t count[TD_N_OUTCOMES], const char *run,
		      const char *label, const char *started)
{
	double s;

	if (td_report_score(&s, count))
		return sc->undefined++, 0;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? 2 * sc->cap : 16;
		double *x = realloc(sc->x, cap * sizeof *x), *y;
		char **l;

		if (x)
			sc->x = x;
		y = x ? realloc(sc->y, cap * sizeof *y) : NULL;
		if (y)
			sc->y = y;
		l = y ? realloc(sc->labels, cap * sizeof *l) : NULL;
		if (!l)
			return TD_FAIL(TD_ENOMEM, "out of memory");
		sc->labels = l;
		sc->cap = cap;
	}
	sc->x[sc->n] = (double)(sc->n + 1);
	sc->y[sc->n] = s;
	snprintf(sc->n ? sc->last : sc->first, sizeof sc->first, "run %zu, %s", sc->n + 1, started);
	if (asprintf(&sc->labels[sc->n], "%.1f%% on %s (%s)", s, label, run) < 0)
		sc->labels[sc->n] = NULL;
	sc->n++;
	return 0;
}

/*
 * Reads every mutation run's outcome counts, one run after another. The
 * shards of one sharded run (the same commit, catalogue and N) are one
 * run: the latest run of each shard, counted together, dated by the first.
 */
static int scores_read(scores *sc, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	size_t count[TD_N_OUTCOMES] = {0};
	char run[300] = "", label[256] = "", started[20] = "";
	int err = prepare(&st, db,
			  "WITH x AS (SELECT CASE WHEN r.shard_n IS NULL THEN r.id"
			  "   ELSE r.shard_n || ' shards of ' || COALESCE(r.head_commit, '') || '/'"
			  "   || COALESCE(r.catalogue, '') END AS k,"
			  "   r.started, COALESCE(r.head_commit, '') AS head, o.outcome"
			  "  FROM runs r JOIN mutant_outcomes o ON o.run = r.id"
			  "  WHERE r.shard_n IS NULL OR NOT EXISTS (SELECT 1 FROM runs l"
			  "   WHERE l.shard_n = r.shard_n AND l.shard_k = r.shard_k"
			  "   AND l.catalogue IS r.catalogue AND l.head_commit IS r.head_commit"
			  "   AND (l.started > r.started OR (l.started = r.started AND l.id > r.id)))),"
			  " g AS (SELECT k, MIN(started) AS s FROM x GROUP BY k)"
			  " SELECT x.k, g.s, MAX(x.head), x.outcome, COUNT(*) FROM x JOIN g USING (k)"
			  " GROUP BY x.k, x.outcome ORDER BY g.s, x.k");
	int rc;

	if (err)
		return err;
	do {
		rc = sqlite3_step(st);
		if (*run && (rc != SQLITE_ROW || strcmp(run, col(st, 0)))) { /* a run ends */
			if ((err = scores_add(sc, count, run, label, started)))
				break;
			memset(count, 0, sizeof count);
		}
		if (rc == SQLITE_ROW) {
			int i = outcome_index(col(st, 3));

			snprintf(run, sizeof run, "%s", col(st, 0));
			snprintf(label, sizeof label, "%.19s, commit %.10s", col(st, 1), col(st, 2));
			snprintf(started, sizeof started, "%.10s", col(st, 1));
			if (i >= 0)
				count[i] += (size_t)sqlite3_column_int64(st, 4);
		}
	} while (rc == SQLITE_ROW);
	sqlite3_finalize(st);
	return err;
}

/* The score of every mutation run with a judged mutant, as a chart. */
static int score_history(buf *b, sqlite3 *db)
{
	scores sc = {0};
	int err = scores_read(&sc, db);

	if (!err) {
		series s = {"mutation score (%)", "#2563eb", sc.x, sc.y, sc.n};
		chart_opts co = {0, 100, sc.labels, sc.first, sc.last};

		fmt(b, "<section id=\"history\"><h2>Mutation score over runs</h2>"
		       "<p class=\"note\" data-runs=\"%zu\">%zu mutation run%s with judged mutants, "
		       "oldest first (the shards of a sharded run are one point)",
		    sc.n, sc.n, sc.n == 1 ? "" : "s");
		if (sc.undefined)
			fmt(b, "; %zu without a judged mutant left out", sc.undefined);
		raw(b, ".</p>");
		chart(b, "score-chart", &s, 1, &co);
		raw(b, "</section>");
	}
	scores_free(&sc);
	return err;
}

/* --- findings -------------------------------------------------------------------- */

/* The latest run's reproductions of test against fix (any commit when fix is NULL), one per
 * build variant, in one cell; a variant other than the default is named. */
static void guard_verdict(buf *b, sqlite3_stmt *st, td_ledger *lg, const td_ledger_finding_row *f,
			  const char *test)
{
	sqlite3_int64 run = -1;
	int killed = 0;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, test, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (f->fix_commit && !td_ledger_commits_match(col(st, 0), f->fix_commit))
			continue;
		if (run >= 0 && sqlite3_column_int64(st, 5) != run)
			break;
		if (run >= 0)
			raw(b, "<br>");
		run = sqlite3_column_int64(st, 5);
		fmt(b, "<span class=\"verdict v-%s\">", strcmp(col(st, 1), "guard") ? "bad" : "good");
		esc(b, col(st, 1));
		raw(b, "</span> <span class=\"sub\">");
		if (strcmp(col(st, 6), "default")) {
			raw(b, "under ");
			esc(b, col(st, 6));
			raw(b, ", ");
		}
		fmt(b, "%d/%d runs, %s</span> ", sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
		    *col(st, 4) ? "at HEAD" : "at the fix");
		short_commit(b, col(st, 0));
	}
	if (run >= 0)
		return;
	if (td_ledger_guard_killed(&killed, lg, f->number, test) == 0 && killed)
		raw(b, "<span class=\"verdict v-good\">kills its mutant</span>");
	else
		raw(b, "<span class=\"verdict v-none\">not reproduced</span>");
}

static int findings(buf *b, sqlite3 *db, td_ledger *lg, const td_ledger_findings *fs)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(&st, db,
			  "SELECT p.fix_commit, p.verdict, p.stable_k, p.stable_n,"
			  " COALESCE(p.at_head, ''), p.run, p.variant FROM reproductions p"
			  " JOIN runs r ON r.id = p.run"
			  " WHERE p.test = ?1 ORDER BY r.started DESC, p.run DESC, p.variant");

	if (err)
		return err;
	fmt(b, "<section id=\"findings-section\"><h2>Findings and their guards</h2>"
	       "<table id=\"findings\" data-findings=\"%zu\"><thead><tr><th>#</th><th>finding</th>"
	       "<th>severity</th><th>status</th><th>guards: latest reproduction</th></tr>"
	       "</thead><tbody>",
	    fs->n);
	if (!fs->n)
		raw(b, "<tr><td colspan=\"5\" class=\"muted\">No findings in the ledger.</td></tr>");
	for (size_t i = 0; i < fs->n; i++) {
		const td_ledger_finding_row *f = &fs->v[i];

		fmt(b, "<tr data-finding=\"%d\"><td>%d</td><td><b>", f->number, f->number);
		esc(b, f->title);
		raw(b, "</b><div class=\"sub\">");
		esc(b, f->where);
		raw(b, "</div></td><td>");
		esc(b, f->severity);
		raw(b, "</td><td>");
		esc(b, f->status);
		raw(b, " ");
		short_commit(b, f->fix_commit);
		raw(b, "</td><td><ul class=\"guards\">");
		for (size_t k = 0; k < f->n_guards; k++) {
			raw(b, "<li><code>");
			esc(b, f->guards[k].test);
			raw(b, "</code> <span class=\"sub\">(");
			esc(b, f->guards[k].role);
			raw(b, ")</span> ");
			guard_verdict(b, st, lg, f, f->guards[k].test);
			raw(b, "</li>");
		}
		raw(b, "</ul></td></tr>");
	}
	raw(b, "</tbody></table></section>");
	sqlite3_finalize(st);
	return 0;
}

/* --- gates ------------------------------------------------------------------------ */

static void gate_tests(buf *b, const char *title, const char *what, const td_gates_test *t,
		       size_t n)
{
	fmt(b, "<div class=\"gate\"><h3>%s <span class=\"pill\">%zu</span></h3><p class=\"note\">"
	       "%s</p><ul>",
	    title, n, what);
	if (!n)
		raw(b, "<li class=\"muted\">none</li>");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		raw(b, "<li><code>");
		esc(b, t[i].test);
		raw(b, "</code> <span class=\"sub\">");
		for (; t[i].mutants && t[i].mutants[k]; k++) {
			if (k)
				raw(b, ", ");
			esc(b, t[i].mutants[k]);
		}
		raw(b, "</span></li>");
	}
	raw(b, "</ul></div>");
}

#define LONG_LIST 12 /* a list longer than this is folded */

static void gates(buf *b, const td_gates *g)
{
	size_t n_dead = 0;

	raw(b, "<section id=\"gates\"><h2>Gates</h2><div class=\"gates\">");
	gate_tests(b, "Load-bearing", "the only recorded killer of some mutant", g->load_bearing,
		   g->n_load_bearing);
	gate_tests(b, "Redundant", "every mutant they kill has another killer", g->redundant,
		   g->n_redundant);
	while (g->killed_nothing && g->killed_nothing[n_dead])
		n_dead++;
	fmt(b, "<div class=\"gate\"><h3>Killed nothing <span class=\"pill\">%zu</span></h3>"
	       "<p class=\"note\">tests no recorded kill names</p>%s<ul>",
	    n_dead, n_dead > LONG_LIST ? "<details><summary>show them</summary>" : "");
	if (!g->tests_known)
		raw(b, "<li class=\"muted\">not known: the run did not record its tests</li>");
	else if (!g->killed_nothing)
		raw(b, "<li class=\"muted\">none</li>");
	for (size_t i = 0; g->killed_nothing && g->killed_nothing[i]; i++) {
		raw(b, "<li><code>");
		esc(b, g->killed_nothing[i]);
		raw(b, "</code></li>");
	}
	fmt(b, "</ul>%s</div><div class=\"gate\"><h3>No gate</h3><p class=\"note\">code whose "
	       "judged mutants all survived</p><ul>",
	    n_dead > LONG_LIST ? "</details>" : "");
	if (!g->n_no_gate)
		raw(b, "<li class=\"muted\">none</li>");
	for (size_t i = 0; i < g->n_no_gate; i++) {
		raw(b, "<li><code>");
		esc(b, g->no_gate[i].file);
		if (g->no_gate[i].function) {
			raw(b, " ");
			esc(b, g->no_gate[i].function);
			raw(b, "()");
		}
		fmt(b, "</code> <span class=\"sub\">%zu mutant%s</span></li>", g->no_gate[i].mutants,
		    g->no_gate[i].mutants == 1 ? "" : "s");
	}
	raw(b, "</ul></div></div></section>");
}

/* --- the score by file ------------------------------------------------------------- */

/* Each file's score, worst first, from the matrix's outcomes. */
static int scores_by_file(buf *b, const td_ledger_matrix *m)
{
	const char **files = calloc(m->n + 1, sizeof *files);
	int *outcomes = calloc(m->n + 1, sizeof *outcomes);
	td_report_file *v = NULL;
	size_t n = 0, nv = 0;
	int err = 0;

	if (!files || !outcomes)
		err = TD_FAIL(TD_ENOMEM, "out of memory for the scores by file");
	for (size_t i = 0; !err && i < m->n; i++) {
		int o = outcome_index(m->v[i].outcome);

		if (o >= 0) { /* an outcome this version does not know is in no count */
			files[n] = m->v[i].file;
			outcomes[n++] = o;
		}
	}
	if (!err)
		err = td_report_by_file(&v, &nv, files, outcomes, n);
	if (!err) {
		fmt(b, "<section id=\"by-file\"><h2>Score by file <span class=\"pill\">%zu</span></h2>"
		       "%s<table class=\"by-file\"><thead><tr><th>file</th><th>killed</th><th>judged</th>"
		       "<th>score</th></tr></thead><tbody>",
		    nv, nv > LONG_LIST ? "<details><summary>show them</summary>" : "");
		for (size_t i = 0; i < nv; i++) {
			char score[32];

			score_text(score, sizeof score, v[i].count);
			raw(b, "<tr><td><code>");
			esc(b, v[i].file);
			fmt(b, "</code></td><td>%zu</td><td>%zu</td><td>%s%s</td></tr>", v[i].count[TD_KILLED],
			    td_report_judged(v[i].count), score, strcmp(score, "n/a") ? "%" : "");
		}
		fmt(b, "</tbody></table>%s</section>", nv > LONG_LIST ? "</details>" : "");
	}
	free(v);
	free(files);
	free(outcomes);
	return err;
}

/* --- the kill matrix --------------------------------------------------------------- */

static int has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void kill_matrix(buf *b, const td_ledger_matrix *m)
{
	size_t nt = 0;

	while (m->tests && m->tests[nt])
		nt++;
	raw(b, "<section id=\"matrix\"><h2>Kill matrix</h2><div class=\"controls\">"
	       "<input id=\"km-filter\" type=\"search\" placeholder=\"filter mutants or files\">"
	       "<select id=\"km-outcome\"><option value=\"\">every outcome</option>");
	for (int i = 0; i < TD_N_OUTCOMES; i++)
		fmt(b, "<option>%s</option>", td_outcome_name((enum td_outcome)i));
	fmt(b, "</select><label><input id=\"km-hide\" type=\"checkbox\"> hide tests that killed "
	       "none shown</label><span id=\"km-shown\" class=\"sub\"></span></div>"
	       "<div class=\"scroll\"><table id=\"kill-matrix\" data-tests=\"%zu\" "
	       "data-mutants=\"%zu\"><thead><tr><th data-sort=\"id\">mutant</th>"
	       "<th data-sort=\"file\">file</th><th data-sort=\"outcome\">outcome</th>"
	       "<th data-sort=\"kills\" data-num=\"1\">kills</th>",
	    nt, m->n);
	for (size_t t = 0; t < nt; t++) {
		fmt(b, "<th class=\"test\" data-col=\"%zu\"><span>", t);
		esc(b, m->tests[t]);
		raw(b, "</span></th>");
	}
	raw(b, "</tr></thead><tbody>");
	for (size_t i = 0; i < m->n; i++) {
		const td_ledger_matrix_mutant *x = &m->v[i];
		size_t nk = 0;

		while (x->killers && x->killers[nk])
			nk++;
		raw(b, "<tr data-id=\"");
		esc(b, x->id);
		raw(b, "\" data-file=\"");
		esc(b, x->file);
		raw(b, "\" data-outcome=\"");
		esc(b, x->outcome);
		fmt(b, "\" data-kills=\"%zu\"><td><code>", nk);
		esc(b, x->id);
		raw(b, "</code></td><td><code>");
		esc(b, x->file);
		raw(b, "</code></td><td><span class=\"dot o-");
		esc(b, x->outcome);
		raw(b, "\"></span>");
		esc(b, x->outcome);
		fmt(b, "</td><td>%zu</td>", nk);
		for (size_t t = 0; t < nt; t++)
			raw(b, has(x->killers, m->tests[t]) ? "<td class=\"k\">&#9679;</td>" : "<td></td>");
		raw(b, "</tr>");
	}
	raw(b, "</tbody></table></div>");
	if (!nt)
		raw(b, "<p class=\"note\">The run did not record the tests it listed: only the "
		       "kill counts are shown.</p>");
	raw(b, "</section>");
}

/* --- audits ------------------------------------------------------------------------- */

/*
 * The strings of a JSON array of strings (the evidence column), one <li>
 * each; anything else is shown as it is.
 */
static void evidence(buf *b, const char *json)
{
	const char *p = json;
	buf s = TD_JSON_BUF_INIT;

	raw(b, "<ul class=\"evidence\">");
	while (*p && *p != '"')
		p++;
	while (*p == '"') {
		td_json_buf_clear(&s);
		for (p++; *p && *p != '"'; p++) {
			char c[2] = {*p, 0};

			if (*p == '\\' && p[1]) {
				p++;
				c[0] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
				if (*p == 'u' && strlen(p) >= 5) { /* \uXXXX: shown as U+XXXX */
					char u[8];

					snprintf(u, sizeof u, "U+%.4s", p + 1);
					raw(&s, u);
					p += 4;
					continue;
				}
			}
			raw(&s, c);
		}
		raw(b, "<li><code>");
		esc(b, s.s ? s.s : "");
		raw(b, "</code></li>");
		if (*p)
			p++;
		while (*p && *p != '"')
			p++;
	}
	raw(b, "</ul>");
	td_json_buf_free(&s);
}

/* The latest audit run's results; *failed = its failures (-1: no audit run). */
static int audits(buf *b, sqlite3 *db, long *failed)
{
	sqlite3_stmt *st = NULL, *rs = NULL;
	int err = prepare(&st, db,
			  "SELECT a.run, r.started, COALESCE(a.trainer, ''), COALESCE(a.config, ''),"
			  " a.audits, a.passed, a.failed, a.skipped FROM audit_runs a"
			  " JOIN runs r ON r.id = a.run ORDER BY r.started DESC, a.run DESC LIMIT 1");

	*failed = -1;
	if (err)
		return err;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return 0;
	}
	*failed = sqlite3_column_int(st, 6);
	raw(b, "<section id=\"audits\"><h2>Audits</h2><p class=\"note\">The latest audit run, ");
	esc(b, col(st, 1));
	if (*col(st, 2)) {
		raw(b, ", trainer ");
		esc(b, col(st, 2));
	}
	fmt(b, ": %d audits, %d passed, %d failed, %d skipped.</p>", sqlite3_column_int(st, 4),
	    sqlite3_column_int(st, 5), sqlite3_column_int(st, 6), sqlite3_column_int(st, 7));
	err = prepare(&rs, db,
		      "SELECT audit, status, class, summary, COALESCE(reason, ''), evidence,"
		      " duration_ms FROM audit_results WHERE run = ?1 ORDER BY audit");
	if (!err) {
		sqlite3_bind_text(rs, 1, col(st, 0), -1, SQLITE_TRANSIENT);
		raw(b, "<table class=\"audits\"><thead><tr><th>audit</th><th>result</th><th>class"
		       "</th><th>summary and evidence</th></tr></thead><tbody>");
		while (sqlite3_step(rs) == SQLITE_ROW) {
			raw(b, "<tr><td><code>");
			esc(b, col(rs, 0));
			raw(b, "</code></td><td><span class=\"verdict v-");
			raw(b, !strcmp(col(rs, 1), "pass") ? "good" : !strcmp(col(rs, 1), "skip") ? "none" : "bad");
			raw(b, "\">");
			esc(b, col(rs, 1));
			raw(b, "</span></td><td>");
			esc(b, col(rs, 2));
			raw(b, "</td><td>");
			esc(b, col(rs, 3));
			if (*col(rs, 4)) {
				raw(b, "<div class=\"reason\">");
				esc(b, col(rs, 4));
				raw(b, "</div>");
			}
			raw(b, "<details><summary>evidence</summary>");
			evidence(b, col(rs, 5));
			raw(b, "</details></td></tr>");
		}
		raw(b, "</tbody></table>");
	}
	raw(b, "</section>");
	sqlite3_finalize(rs);
	sqlite3_finalize(st);
	return err;
}

/* --- the training log --------------------------------------------------------------- */

/* The number after "key": in line (NAN when absent or null). */
static double field(const char *line, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof k, "\"%s\"", key);
	for (p = strstr(line, k); p; p = strstr(p, k)) { /* a key, not a value: ':' follows */
		p += strlen(k);
		while (*p == ' ')
			p++;
		if (*p == ':')
			break;
	}
	if (!p)
		return NAN;
	for (p++; *p == ' ';)
		p++;
	return (*p == '-' || (*p >= '0' && *p <= '9')) ? strtod(p, NULL) : NAN;
}

/* Appends (x, y) to a growing pair of arrays. */
static int push(double **x, double **y, size_t *n, double xv, double yv)
{
	double *nx = realloc(*x, (*n + 1) * sizeof *nx), *ny;

	if (!nx)
		return TD_FAIL(TD_ENOMEM, "out of memory");
	*x = nx;
	if (!(ny = realloc(*y, (*n + 1) * sizeof *ny)))
		return TD_FAIL(TD_ENOMEM, "out of memory");
	*y = ny;
	(*x)[*n] = xv;
	(*y)[*n] = yv;
	(*n)++;
	return 0;
}

static int training(buf *b, const char *path)
{
	char *text = NULL, *save = NULL;
	double *sx = NULL, *sy = NULL, *ex = NULL, *ey = NULL, *ax = NULL, *ay = NULL;
	size_t ns = 0, ne = 0, na = 0, other = 0;
	int err = td_file_read(path, &text, NULL);

	if (err)
		return err;
	for (char *line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		double step = field(line, "step");
		int is_step = strstr(line, "\"kind\":\"step\"") || strstr(line, "\"kind\": \"step\"");
		int is_eval = strstr(line, "\"kind\":\"eval\"") || strstr(line, "\"kind\": \"eval\"");

		if (isnan(step) || (!is_step && !is_eval)) {
			other++;
			continue;
		}
		err = push(is_step ? &sx : &ex, is_step ? &sy : &ey, is_step ? &ns : &ne, step,
			   field(line, "loss"));
		if (!err && is_eval && !isnan(field(line, "accuracy")))
			err = push(&ax, &ay, &na, step, field(line, "accuracy"));
	}
	if (!err) {
		series loss[2] = {{"training loss", "#2563eb", sx, sy, ns},
				  {"evaluation loss", "#dc2626", ex, ey, ne}};
		series acc = {"evaluation accuracy", "#059669", ax, ay, na};

		raw(b, "<section id=\"training\"><h2>Training</h2><p class=\"note\">From ");
		esc(b, path);
		fmt(b, ": <span id=\"log-steps\" data-steps=\"%zu\" data-evals=\"%zu\">%zu step "
		       "records, %zu evaluations</span>",
		    ns, ne, ns, ne);
		if (other)
			fmt(b, "; %zu other line%s (checkpoints, hashes) not plotted", other,
			    other == 1 ? "" : "s");
		raw(b, ".</p><div class=\"charts\"><div><h3>Loss</h3>");
		chart(b, "loss-chart", loss, 2, &(chart_opts){0});
		raw(b, "</div>");
		if (na) {
			raw(b, "<div><h3>Evaluation accuracy</h3>");
			chart(b, "accuracy-chart", &acc, 1, &(chart_opts){0});
			raw(b, "</div>");
		}
		raw(b, "</div></section>");
	}
	free(sx), free(sy), free(ex), free(ey), free(ax), free(ay);
	free(text);
	return err;
}

/* --- the page ------------------------------------------------------------------------- */

static void page_head(buf *b, const char *ledger, const td_ledger_mutation_run *run)
{
	raw(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	       "<title>tdaudit report</title><style>");
	raw(b, td_html_css);
	raw(b, "</style></head><body><header><h1>tdaudit report</h1><div class=\"meta\">ledger "
	       "<code>");
	esc(b, ledger);
	raw(b, "</code>");
	if (run && run->found) {
		raw(b, " &middot; latest mutation run <code>");
		esc(b, run->run);
		raw(b, "</code> at commit ");
		short_commit(b, run->head_commit);
		if (run->shard_n)
			fmt(b, " &middot; %d shards", run->shard_n);
	}
	raw(b, "</div><nav><a href=\"#survivors\">survivors</a><a href=\"#history\">history</a>"
	       "<a href=\"#findings-section\">findings</a><a href=\"#gates\">gates</a>"
	       "<a href=\"#audits\">audits</a><a href=\"#training\">training</a>"
	       "<a href=\"#matrix\">kill matrix</a></nav></header><main>");
}

static void page_end(buf *b)
{
	raw(b, "</main><footer>Written by tdaudit report from the findings ledger; the page "
	       "needs no network.</footer><script>");
	raw(b, td_html_js);
	raw(b, "</script></body></html>\n");
}

/* The sections of a ledger that holds a mutation run. */
static int mutation_sections(buf *b, sqlite3 *db, td_ledger *lg, const td_html_opts *o,
			     const td_ledger_findings *fs)
{
	td_ledger_matrix *m = NULL;
	td_gates *g = NULL;
	edits e;
	buf tail = TD_JSON_BUF_INIT; /* audits come after the key figures that count them */
	long failed = -1;
	int err = td_ledger_matrix_load(&m, lg);

	edits_load(&e, o->root);
	if (!err)
		err = td_gates_from_matrix(&g, m);
	if (!err)
		err = audits(&tail, db, &failed);
	if (!err) {
		page_head(b, o->ledger, &m->run);
		key_figures(b, g, fs->n, failed);
		err = survivors(b, db, m, &e, g->count[TD_SURVIVED] + g->count[TD_NO_COVERAGE]);
	}
	if (!err)
		err = score_history(b, db);
	if (!err)
		err = findings(b, db, lg, fs);
	if (!err) {
		gates(b, g);
		raw(b, tail.s ? tail.s : "");
	}
	if (!err)
		err = scores_by_file(b, m);
	if (!err && o->log)
		err = training(b, o->log);
	if (!err)
		kill_matrix(b, m);
	td_json_buf_free(&tail);
	td_mutants_free(&e.m);
	td_gates_free(g);
	td_ledger_matrix_free(m);
	return err;
}

/* A ledger without a mutation run: what it does hold, or that it holds nothing yet. */
static int other_sections(buf *b, sqlite3 *db, td_ledger *lg, const td_html_opts *o,
			  const td_ledger_findings *fs)
{
	long failed = -1;
	int err = 0;

	page_head(b, o->ledger, NULL);
	if (count_rows(db, "SELECT COUNT(*) FROM runs") == 0 && !fs->n) {
		raw(b, "<section id=\"empty\" class=\"empty\"><h2>Nothing yet</h2><p>The ledger "
		       "holds no runs. <code>tdaudit mutate</code>, <code>tdaudit reproduce</code> "
		       "and <code>tdaudit audit</code> record theirs in it; run one and write the "
		       "report again.</p></section>");
	} else {
		raw(b, "<section id=\"no-mutation-run\"><p>The ledger holds no mutation run yet: "
		       "<code>tdaudit mutate</code> records one.</p></section>");
		err = findings(b, db, lg, fs);
		if (!err)
			err = audits(b, db, &failed);
	}
	if (!err && o->log)
		err = training(b, o->log);
	return err;
}

int td_html_report(char **out, const td_html_opts *o)
{
	td_ledger *lg = NULL;
	td_ledger_findings *fs = NULL;
	td_ledger_mutation_run run;
	sqlite3 *db = NULL;
	buf b = TD_JSON_BUF_INIT;
	int err = td_ledger_open(&lg, o->ledger, 0);

	*out = NULL;
	if (!err && sqlite3_open_v2(o->ledger, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		err = TD_FAIL(TD_EIO, "cannot open the ledger %s read-only: %s", o->ledger,
			      db ? sqlite3_errmsg(db) : "out of memory");
	if (!err)
		err = td_ledger_findings_load(&fs, lg);
	if (!err)
		err = td_ledger_latest_mutation_run(&run, lg);
	if (!err)
		err = run.found ? mutation_sections(&b, db, lg, o, fs) : other_sections(&b, db, lg, o, fs);
	if (!err) {
		page_end(&b);
		if (b.err)
			err = TD_FAIL(TD_ENOMEM, "out of memory writing the report");
	}
	if (!err) {
		*out = b.s;
		b.s = NULL;
	}
	td_json_buf_free(&b);
	td_ledger_findings_free(fs);
	sqlite3_close(db);
	td_ledger_free(lg);
	return err;
}
