/*
 * html_page.h - the fixed parts of tdaudit report's page (html.c): its
 * inline style sheet and its inline script. Both are constant text with
 * nothing from the ledger in them.
 */
#ifndef TD_HTML_PAGE_H
#define TD_HTML_PAGE_H

extern const char td_html_css[]; /* the <style> body */

/*
 * The <script> body, run at the end of <body>: sorting and filtering of
 * the kill matrix (preset from the page's query: ?q=TEXT&outcome=O&sort=KEY
 * &dir=desc, KEY one of id, file, outcome, kills); nav links to sections the page lacks hidden. Its last
 * statement sets data-script="ok" on <html>, so
 * a page whose script threw is told apart from one whose script ran; an
 * uncaught error later (a click handler's) sets data-script-error to its
 * message.
 */
extern const char td_html_js[];

#endif
