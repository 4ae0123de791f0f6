/*
 * html.h - the HTML reports' shared parts (html.c): text and JSON
 * escaping, and the page's head (the Content-Security-Policy, the error
 * recorder that fills data-errors, the style and the embedded uPlot).
 * Used by aiw_sim_write_html and by the sweep's report.
 */
#ifndef AIW_EXPORT_HTML_H
#define AIW_EXPORT_HTML_H

#include <stdio.h>

/* Text for an element or an attribute value: < > & " escaped. */
void aiwi_html_text(FILE *f, const char *s);
/* A JSON string inside <script> (< > & escaped too). */
void aiwi_html_js_str(FILE *f, const char *s);
/* A number in a table cell: %.6g, "n/a" when not finite. */
void aiwi_html_num(FILE *f, double x);
/* A JSON number, "null" when not finite. */
void aiwi_html_js_num(FILE *f, double x);
/* <!DOCTYPE html> up to and including <body>, titled title (plain text). */
void aiwi_html_head(FILE *f, const char *title);
/* The uPlot version embedded, as text. */
int aiwi_html_uplot_version_len(void);
const char *aiwi_html_uplot_version(void);

#endif
