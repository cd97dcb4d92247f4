/*
 * sarif.h - tdaudit ledger export --format sarif: what the ledger holds
 * that needs a person, as a SARIF 2.1.0 log for code scanning (GitHub's
 * included).
 *
 * One result per survivor, stale catalogue entry and killed-elsewhere
 * mutant of the latest mutation run, per guard whose role is unverified,
 * and per audit of the latest audit run that failed or errored. Each has a
 * rule of TD_SARIF_RULES, a level, a message saying what it means and what
 * to do, a location relative to the repository root (uriBaseId SRCROOT)
 * and partialFingerprints["tdaudit/v1"]: 16 hex digits of FNV-1a over the
 * rule id and the finding's stable key (the mutant's id; the finding's
 * number and the guard's test; the audit's name), never a line number, so
 * code scanning follows one finding across runs and edits.
 *
 * Never: write anything but valid UTF-8 JSON; put a line number or a run id
 * in a fingerprint.
 */
#ifndef TD_SARIF_H
#define TD_SARIF_H

#include <stdio.h>

#include "../ledger/ledger.h"

/* The rules, in tool.driver.rules order (a result's ruleIndex). */
enum td_sarif_rule {
	TD_SARIF_SURVIVED,         /* tdaudit/survived-mutant */
	TD_SARIF_STALE,            /* tdaudit/stale-catalogue-entry */
	TD_SARIF_KILLED_ELSEWHERE, /* tdaudit/killed-elsewhere */
	TD_SARIF_UNVERIFIED_GUARD, /* tdaudit/unverified-guard */
	TD_SARIF_FAILED_AUDIT,     /* tdaudit/failed-audit */
	TD_SARIF_NOT_REBUILT,      /* tdaudit/not-rebuilt-mutant */
	TD_SARIF_NO_COVERAGE,      /* tdaudit/uncovered-mutant */
	TD_SARIF_RULES
};

/* The rule's id ("tdaudit/survived-mutant" ...). */
const char *td_sarif_rule_id(enum td_sarif_rule r);

typedef struct {
	char *const *audit_names;   /* the audits' stems (td_audit_list); NULL: none known */
	char *const *audit_scripts; /* their scripts relative to the root, in step with names */
	const char *tool_version;   /* tool.driver.version */
} td_sarif_opts;

/*
 * Writes the SARIF log of lg to f. A failed audit is located at its
 * script when o names it, else at tdaudit.lua (the trainer block's line
 * when the run recorded one); an unverified guard at the file the
 * finding's Where cell starts with (`path` or `path:LINE`), else at
 * DEBUG.md. Errors as the ledger reads (td_ledger_outcomes_load ...).
 */
int td_sarif_write(FILE *f, td_ledger *lg, const td_sarif_opts *o);

#endif
