/*
 * html.h - tdaudit report --html: the findings ledger as one self-contained
 * HTML page, for people.
 *
 * The page holds, from the ledger: the latest mutation run (its score as
 * report.h's td_report_score defines it, the count of each outcome, every
 * survivor with file, line, edit and why), the mutation score of every
 * mutation run as an inline SVG chart, the findings with each guard's
 * latest reproduction verdict, the gates (gates.h), the latest audit run's
 * results with their evidence, the kill matrix (sorted and filtered by a
 * small inline script), and, from a tdtrain log.jsonl when given, the
 * training and evaluation loss as inline SVG.
 *
 * It never reaches the network: styles, script and charts are inline.
 * Every text from the ledger, the catalogues or the log is HTML-escaped
 * (base/json.h's td_xml_put_text), so the page is valid UTF-8 whatever
 * they hold. It writes nothing to the ledger (td_ledger_open migrates an
 * older one forward, as for every reader; the reads of our own are made
 * on a read-only connection).
 *
 * Stable hooks for machines (tests read them from the rendered DOM):
 *   id="score" data-score="P" (P with one decimal, "n/a" when undefined)
 *   id="counts" data-count-<outcome>="N" for every outcome
 *   tr.survivor data-mutant="ID" data-file="F" data-line="L", one per survivor
 *   id="findings" data-findings="N"
 *   html data-script="ok" once the inline script ran to its end
 *   id="empty" when the ledger holds nothing yet
 */
#ifndef TD_HTML_H
#define TD_HTML_H

/* What the page is made from. Plain data. */
typedef struct {
	const char *ledger; /* the ledger's path (must exist) */
	const char *root;   /* the repository, for the survivors' edits from its catalogues;
			       NULL: the edits are not shown (the page says why) */
	const char *log;    /* a tdtrain log.jsonl, or NULL */
} td_html_opts;

/*
 * Builds the page. TD_EIO when the ledger or the log cannot be read,
 * as td_ledger_open refuses a file that is not a ledger. A ledger with no
 * runs gives a page saying there is nothing yet. Caller frees *out with
 * free().
 */
int td_html_report(char **out, const td_html_opts *o);

#endif
