/* doc.h - one document written as Markdown or as self-contained HTML from
 * the same calls: headings, paragraphs, tables and images (embedded in the
 * HTML as base64 data: URIs, linked from the Markdown).  Text is escaped
 * for the target; a newline in text becomes a space. */
#ifndef FS_REPORTS_DOC_H
#define FS_REPORTS_DOC_H

#include <stdbool.h>
#include <stdio.h>

struct doc {
    FILE *f;
    bool html;
};

/* The HTML head (title, style) and tail; nothing for Markdown. */
void doc_begin(const struct doc *d, const char *title);
void doc_end(const struct doc *d);

void doc_esc(const struct doc *d, const char *s);
void doc_heading(const struct doc *d, int level, const char *text);
void doc_para(const struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A table row of n cells; a header row starts the table. */
void doc_row(const struct doc *d, bool header, int n, char cells[][64]);
void doc_table_end(const struct doc *d);

/* A row: key, then the cells of the formatted text split at " | ". */
void doc_kv(const struct doc *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* v as "12,345" (whole units, thousands separated; "n/a" when not
 * finite): money in tables and sentences. */
const char *doc_usd(char buf[32], double v);

/* A section with an id (HTML <section id="...">; nothing in Markdown):
 * "summary" holds what a reader needs in one screen. */
void doc_section(const struct doc *d, const char *id);
void doc_section_end(const struct doc *d);

/* The image png (a path), titled; Markdown links NAME.png. */
void doc_image(const struct doc *d, const char *title, const char *name, const char *png);

#endif
