/*
 * junit.h - tdaudit ledger export --format junit: the latest mutation run
 * and the latest audit run as JUnit XML, as CI systems (GitHub, GitLab,
 * Jenkins) read it.
 *
 *   <testsuites name="tdaudit" tests= failures= errors=>
 *     <testsuite name="tdaudit.mutate" tests= failures= errors= skipped= time=>
 *       <testcase classname="FILE" name="MUTANT-ID" time=>  one per mutant
 *     <testsuite name="tdaudit.audit" ...>
 *       <testcase classname="tdaudit.audit" name="AUDIT" time=>  one per audit result
 *
 * A survived, stale or killed-elsewhere mutant, and a catalogue entry that
 * does not build, is a <failure type="OUTCOME">; an equivalent mutant and a
 * generated one that does not build (it judged nothing) are <skipped>. A
 * failed audit is a <failure type="CLASS">, one that errored an <error>, a
 * skipped one <skipped> (its reason as text, as the Jenkins XSD has it). A suite is left out when the ledger holds no run
 * of its kind. Text is XML-escaped (td_xml_put_text): the output is valid
 * UTF-8 XML whatever the ledger holds; it validates against the Jenkins
 * JUnit XSD (tests/schemas/jenkins-junit.xsd).
 */
#ifndef TD_JUNIT_H
#define TD_JUNIT_H

#include <stdio.h>

#include "../ledger/ledger.h"

/* Writes lg's latest mutation and audit runs to f as JUnit XML. Errors as the ledger reads. */
int td_junit_write(FILE *f, td_ledger *lg);

#endif
