/*
 * sarif.c - the ledger as a SARIF 2.1.0 log (see sarif.h for what it holds).
 *
 * Reads the ledger through ledger.h's loaders only, and writes JSON with
 * base/json.h's escaping, so every string is valid UTF-8 whatever the
 * ledger holds. Must never put a line number or a run id in a fingerprint.
 */
#include "sarif.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/hash.h"
#include "../base/json.h"
#include "../base/strv.h"

/*
 * One rule: its id, name, level, descriptions and its page of tdaudit's
 * manual, which the help text names. No helpUri: SARIF wants an absolute
 * URI there, and tdaudit's docs are not in the repository being audited.
 */
typedef struct {
	const char *id, *name, *level, *brief, *full, *page;
} rule;

static const rule rules[TD_SARIF_RULES] = {
	{"tdaudit/survived-mutant", "SurvivedMutant", "error",
	 "A mutant survived: every test passed with the bug put back.",
	 "tdaudit mutate put a bug into this line (a catalogue entry or a generated mutant) and every "
	 "test still passed, so the suite cannot see that bug. Add or strengthen a test that fails on "
	 "the mutant, then run tdaudit mutate again.",
	 "docs/mutate.md#outcomes"},
	{"tdaudit/stale-catalogue-entry", "StaleCatalogueEntry", "error",
	 "A catalogue entry is stale: the text it edits is no longer in the file.",
	 "The mutation catalogue entry's find text no longer matches the file, so the bug it stands "
	 "for is not being tested any more. Update the entry to the current code (or remove it when "
	 "the code it guarded is gone), then run tdaudit mutate again.",
	 "docs/catalogues.md#mutant--"},
	{"tdaudit/killed-elsewhere", "KilledElsewhere", "warning",
	 "A mutant was killed only by a test its catalogue entry does not name as its guard.",
	 "No guard named by the catalogue entry failed on this mutant; another test did. The "
	 "catalogue names the wrong guard: name the test that caught it, or make the named guard "
	 "catch it.",
	 "docs/mutate.md#outcomes"},
	{"tdaudit/unverified-guard", "UnverifiedGuard", "warning",
	 "A finding's guard test has no verified evidence.",
	 "DEBUG.md names this test as the guard of a finding, but no reproduction showed it failing "
	 "before the fix and passing after, and no mutant naming the finding was killed by it. Run "
	 "tdaudit reproduce on the fix commit, or for a fix that changed only tests add a catalogue "
	 "entry with finding = N that the guard kills.",
	 "docs/ledger.md#tdaudit-ledger-check"},
	{"tdaudit/failed-audit", "FailedAudit", "error",
	 "An audit of the trainer failed or could not complete.",
	 "tdaudit audit checked one property of the trainer's runs (seed, config, eval, resume, "
	 "counters, absent cells, overlap) and it did not hold, or the audit could not run to its "
	 "end. Read the reason and the evidence in the ledger, fix the trainer, and run tdaudit "
	 "audit NAME again.",
	 "docs/audit.md#the-audits"},
	{"tdaudit/not-rebuilt-mutant", "NotRebuiltMutant", "error",
	 "A mutant was never compiled: the build wrote no file after it changed the source.",
	 "tdaudit mutate put a bug into this file but the build rebuilt nothing, so the tests ran "
	 "the unmutated code and judged nothing. The build's dependencies miss this file (a header "
	 "no rule names): fix them, or make the build a clean one, then run tdaudit mutate again.",
	 "docs/mutate.md#outcomes"},
	{"tdaudit/uncovered-mutant", "UncoveredMutant", "error",
	 "No test runs the code a mutant changed.",
	 "tdaudit mutate --schemata recorded which tests reach each mutation point with no mutant "
	 "on, and none reached this one, so no test can notice a bug there: it counts as a "
	 "survivor. Write a test that runs this code, then run tdaudit mutate again.",
	 "docs/mutate.md#outcomes"},
};

const char *td_sarif_rule_id(enum td_sarif_rule r)
{
	return r < TD_SARIF_RULES ? rules[r].id : "";
}

/* One result's fields; props are name/value pairs ending at a NULL name. */
typedef struct {
	enum td_sarif_rule rule;
	const char *key;   /* the stable key the fingerprint is made of */
	const char *uri;   /* relative to the repository root */
	int line;          /* >= 1 */
	const char *text;  /* the message */
	const char *const *props;
} result;

/* "tdaudit/v1" fingerprint: FNV-1a 64 over rule id, a NUL, and the key. */
static void fingerprint(char out[17], enum td_sarif_rule r, const char *key)
{
	uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, rules[r].id, strlen(rules[r].id) + 1);

	h = td_fnv1a64(h, key, strlen(key));
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static void put_result(FILE *f, int *n, const result *x)
{
	char fp[17];

	fingerprint(fp, x->rule, x->key);
	fputs(*n ? ",\n" : "\n", f);
	fprintf(f, "        {\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"%s\",\n", rules[x->rule].id,
		(int)x->rule, rules[x->rule].level);
	fputs("         \"message\": {\"text\": ", f), td_json_fput_string(f, x->text), fputs("},\n", f);
	fputs("         \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", f);
	td_json_fput_string(f, x->uri);
	fprintf(f, ", \"uriBaseId\": \"SRCROOT\"}, \"region\": {\"startLine\": %d}}}],\n",
		x->line > 0 ? x->line : 1);
	fprintf(f, "         \"partialFingerprints\": {\"tdaudit/v1\": \"%s\"}", fp);
	if (x->props && x->props[0]) {
		fputs(",\n         \"properties\": {", f);
		for (size_t i = 0; x->props[i]; i += 2) {
			fputs(i ? ", " : "", f), td_json_fput_string(f, x->props[i]);
			fputs(": ", f), td_json_fput_string(f, x->props[i + 1] ? x->props[i + 1] : "");
		}
		fputc('}', f);
	}
	fputc('}', f);
	++*n;
}

/* What mutant x re-introduces, for messages: "finding #N" or its bug class. */
static const char *against(char *buf, size_t size, const td_ledger_outcome_row *x)
{
	if (x->finding > 0)
		snprintf(buf, size, "finding #%d", x->finding);
	else
		snprintf(buf, size, "%s", x->designed_against ? x->designed_against : "a bug");
	return buf;
}

/*
 * The message for a survivor, stale entry, killed-elsewhere, not-rebuilt or
 * no-coverage mutant into buf.
 */
static enum td_sarif_rule mutant_message(char *buf, size_t size, const td_ledger_outcome_row *x)
{
	char what[256];
	const char *entry = x->function ? "generated mutant" : "catalogue entry";

	against(what, sizeof what, x);
	if (!strcmp(x->outcome, "stale")) {
		snprintf(buf, size, "Stale %s '%s' (%s, mutant %s): the text it edits is no longer in %s, "
				    "so %s is no longer tested. Update the entry to the current code or "
				    "remove it, then run tdaudit mutate.",
			 entry, x->name, x->catalogue, x->id, x->file, what);
		return TD_SARIF_STALE;
	}
	if (!strcmp(x->outcome, "not-rebuilt")) {
		snprintf(buf, size, "Mutant %s (%s '%s' of %s) was never compiled: the build wrote no "
				    "file after it changed %s, so %s was not tested. Fix the build's "
				    "dependencies, then run tdaudit mutate.",
			 x->id, entry, x->name, x->catalogue, x->file, what);
		return TD_SARIF_NOT_REBUILT;
	}
	if (!strcmp(x->outcome, "no-coverage")) {
		snprintf(buf, size, "Mutant %s (%s '%s' of %s) was reached by no test: no test runs "
				    "the code it changes in %s, so %s would go unnoticed there. Write a "
				    "test that runs it, then run tdaudit mutate.",
			 x->id, entry, x->name, x->catalogue, x->file, what);
		return TD_SARIF_NO_COVERAGE;
	}
	if (!strcmp(x->outcome, "killed-elsewhere")) {
		snprintf(buf, size, "Mutant %s (%s '%s' of %s) was killed only by %s, which the entry "
				    "does not name as its guard: the catalogue names the wrong guard. Name "
				    "%s as its guard, or make the named guard catch it. Why: %s",
			 x->id, entry, x->name, x->catalogue, x->killing_test ? x->killing_test : "another test",
			 x->killing_test ? x->killing_test : "that test", x->why);
		return TD_SARIF_KILLED_ELSEWHERE;
	}
	snprintf(buf, size, "Mutant %s (%s '%s' of %s) survived: with this line changed to "
			    "re-introduce %s, every test passed. Add or strengthen a test that fails "
			    "on it, then run tdaudit mutate. Why: %s",
		 x->id, entry, x->name, x->catalogue, what, x->why);
	return TD_SARIF_SURVIVED;
}

static void mutant_results(FILE *f, int *n, const td_ledger_outcomes *o)
{
	for (size_t i = 0; i < o->n; i++) {
		const td_ledger_outcome_row *x = &o->v[i];
		const char *props[] = {"mutant", x->id, "catalogue", x->catalogue, "entry", x->name,
				       "outcome", x->outcome, "run", o->run.run, NULL};
		char text[2048];
		result r = {.key = x->id, .uri = x->file, .line = x->line, .text = text, .props = props};

		if (strcmp(x->outcome, "survived") && strcmp(x->outcome, "stale") &&
		    strcmp(x->outcome, "killed-elsewhere") && strcmp(x->outcome, "not-rebuilt") &&
		    strcmp(x->outcome, "no-coverage"))
			continue;
		r.rule = mutant_message(text, sizeof text, x);
		put_result(f, n, &r);
	}
}

/*
 * The file a Where cell starts with: "`core/plan.c` — ..." or
 * "`core/plan.c:42` ..." gives core/plan.c (and 42 in *line); anything
 * else gives DEBUG.md, line 1.
 */
static void where_file(char *buf, size_t size, int *line, const char *where)
{
	const char *end = where[0] == '`' ? strchr(where + 1, '`') : NULL;
	size_t len = end ? (size_t)(end - where - 1) : 0;
	const char *colon;

	*line = 1;
	if (!len || len >= size || memchr(where + 1, ' ', len) || where[1] == '/' ||
	    (!memchr(where + 1, '.', len) && !memchr(where + 1, '/', len))) {
		snprintf(buf, size, "DEBUG.md");
		return;
	}
	memcpy(buf, where + 1, len);
	buf[len] = '\0';
	if ((colon = strchr(buf, ':')) && colon[1] >= '1' && colon[1] <= '9') {
		*line = atoi(colon + 1);
		buf[colon - buf] = '\0';
	}
}

static void guard_results(FILE *f, int *n, const td_ledger_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		const td_ledger_finding_row *x = &fs->v[i];

		for (size_t g = 0; g < x->n_guards; g++) {
			char key[1024], uri[1024], num[16], text[2048];
			const char *test = x->guards[g].test;
			const char *props[] = {"finding", num, "test", test, NULL};
			result r = {.rule = TD_SARIF_UNVERIFIED_GUARD, .key = key, .uri = uri,
				    .text = text, .props = props};

			if (strcmp(x->guards[g].role, "unverified"))
				continue;
			snprintf(num, sizeof num, "%d", x->number);
			snprintf(key, sizeof key, "%d %s", x->number, test);
			where_file(uri, sizeof uri, &r.line, x->where);
			snprintf(text, sizeof text,
				 "Guard %s of finding #%d (%s) is unverified: no reproduction shows it "
				 "failing before the fix and passing after. Run tdaudit reproduce %s, or "
				 "for a fix that changed only tests add a catalogue entry with finding = %d "
				 "that %s kills.",
				 test, x->number, x->title, x->fix_commit ? x->fix_commit : "on the fix commit",
				 x->number, test);
			put_result(f, n, &r);
		}
	}
}

/* Where audit name is located: its script, else tdaudit.lua at the trainer block. */
static const char *audit_uri(int *line, const char *name, const td_ledger_audits *a,
			     const td_sarif_opts *o)
{
	long i = o->audit_names ? td_strv_find(o->audit_names, name) : -1;
	const char *colon = strrchr(a->trainer, ':');

	*line = 1;
	if (i >= 0 && o->audit_scripts)
		return o->audit_scripts[i];
	if (colon && !strncmp(a->trainer, "tdaudit.lua:", 12))
		*line = atoi(colon + 1);
	return "tdaudit.lua";
}

static void audit_results(FILE *f, int *n, const td_ledger_audits *a, const td_sarif_opts *o)
{
	for (size_t i = 0; i < a->n; i++) {
		const td_ledger_audit_row *x = &a->v[i];
		const char *props[] = {"audit", x->audit, "status", x->status, "class", x->class_,
				       "run", a->run, NULL};
		char text[2048];
		result r = {.rule = TD_SARIF_FAILED_AUDIT, .key = x->audit, .text = text, .props = props};

		if (strcmp(x->status, "fail") && strcmp(x->status, "error"))
			continue;
		r.uri = audit_uri(&r.line, x->audit, a, o);
		char why[1024] = "", cls[64] = "";

		if (x->reason)
			snprintf(why, sizeof why, " (%s)", x->reason);
		if (strcmp(x->class_, "-"))
			snprintf(cls, sizeof cls, " (%s)", x->class_);
		snprintf(text, sizeof text,
			 !strcmp(x->status, "fail")
				 ? "Audit %s failed%s: %s%s. Fix the trainer and run tdaudit audit %s again."
				 : "Audit %s could not complete%s: %s%s. Fix what stopped it and run "
				   "tdaudit audit %s again.",
			 x->audit, cls, x->summary, why, x->audit);
		put_result(f, n, &r);
	}
}

static void put_rules(FILE *f)
{
	for (int i = 0; i < TD_SARIF_RULES; i++) {
		const rule *r = &rules[i];
		char help[1024];

		fprintf(f, "%s\n          {\"id\": \"%s\", \"name\": \"%s\",\n", i ? "," : "", r->id, r->name);
		fputs("           \"shortDescription\": {\"text\": ", f), td_json_fput_string(f, r->brief);
		fputs("},\n           \"fullDescription\": {\"text\": ", f), td_json_fput_string(f, r->full);
		snprintf(help, sizeof help, "%s (tdaudit's manual: %s)", r->full, r->page);
		fputs("},\n           \"help\": {\"text\": ", f), td_json_fput_string(f, help);
		fputs("},\n", f);
		fprintf(f, "           \"defaultConfiguration\": {\"level\": \"%s\"}}", r->level);
	}
}

int td_sarif_write(FILE *f, td_ledger *lg, const td_sarif_opts *o)
{
	td_ledger_outcomes *mo = NULL;
	td_ledger_findings *fs = NULL;
	td_ledger_audits *au = NULL;
	int n = 0, err = td_ledger_outcomes_load(&mo, lg);

	if (!err)
		err = td_ledger_findings_load(&fs, lg);
	if (!err)
		err = td_ledger_audits_load(&au, lg);
	if (err)
		goto done;
	fputs("{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\",\n"
	      " \"runs\": [\n  {\"tool\": {\"driver\": {\"name\": \"tdaudit\", \"version\": ", f);
	td_json_fput_string(f, o->tool_version ? o->tool_version : "unknown");
	fputs(",\n     \"rules\": [", f);
	put_rules(f);
	fputs("]}},\n   \"originalUriBaseIds\": {\"SRCROOT\": {\"description\": {\"text\": "
	      "\"The repository root: every artifact location is relative to it.\"}}},\n", f);
	fputs("   \"results\": [", f);
	mutant_results(f, &n, mo);
	guard_results(f, &n, fs);
	audit_results(f, &n, au, o);
	fputs("]}\n ]}\n", f);
	if (ferror(f))
		err = TD_FAIL(TD_EIO, "writing the SARIF log failed");
done:
	td_ledger_audits_free(au);
	td_ledger_findings_free(fs);
	td_ledger_outcomes_free(mo);
	return err;
}
