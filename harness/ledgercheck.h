/*
 * ledgercheck.h - tdaudit ledger check, what CI runs on every push.
 *
 * Reads DEBUG.md at the repository root and fails, naming the DEBUG.md
 * line, when: a line does not parse; a finding has no ledger row or the
 * reverse; statuses or fix commits disagree; a cited test is not in the
 * runners' --list; a cited commit does not resolve (in a shallow clone this
 * is printed as skipped, never passed); a test cited as a guard has no
 * reproduction with verdict "guard"; a catalogue entry names a finding
 * DEBUG.md does not have. Returns the exit status: 0 clean, 1 problems, 2
 * could not check (no tdaudit.lua, no DEBUG.md, the build failed ...).
 */
#ifndef TD_LEDGERCHECK_H
#define TD_LEDGERCHECK_H

int td_ledger_check(const char *root);

#endif
