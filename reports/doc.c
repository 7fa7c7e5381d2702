/* doc.c - one document written as Markdown or as HTML (see doc.h). */
#include "doc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/version.h"

void doc_esc(const struct doc *d, const char *s)
{
    for (; *s; s++) {
        if (d->html && *s == '<')
            fputs("&lt;", d->f);
        else if (d->html && *s == '>')
            fputs("&gt;", d->f);
        else if (d->html && *s == '&')
            fputs("&amp;", d->f);
        else if (!d->html && (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '\\'))
            fprintf(d->f, "\\%c", *s);
        else if (*s == '\n')
            fputc(' ', d->f);
        else
            fputc(*s, d->f);
    }
}

void doc_heading(const struct doc *d, int level, const char *text)
{
    if (d->html) {
        fprintf(d->f, "<h%d>", level);
        doc_esc(d, text);
        fprintf(d->f, "</h%d>\n", level);
    } else {
        fprintf(d->f, "\n%.*s ", level, "######");
        doc_esc(d, text);
        fputs("\n\n", d->f);
    }
}

void doc_para(const struct doc *d, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs(d->html ? "<p>" : "", d->f);
    doc_esc(d, buf);
    fputs(d->html ? "</p>\n" : "\n\n", d->f);
}

/* A table row of n cells; header rows start the table (and in Markdown get
 * the rule under them). */
void doc_row(const struct doc *d, bool header, int n, char cells[][64])
{
    if (d->html) {
        fputs(header ? "<table>\n<tr>" : "<tr>", d->f);
        for (int i = 0; i < n; i++) {
            fputs(header ? "<th>" : "<td>", d->f);
            doc_esc(d, cells[i]);
            fputs(header ? "</th>" : "</td>", d->f);
        }
        fputs("</tr>\n", d->f);
        return;
    }
    for (int i = 0; i < n; i++) {
        fputs("| ", d->f);
        doc_esc(d, cells[i]);
        fputc(' ', d->f);
    }
    fputs("|\n", d->f);
    if (header) {
        for (int i = 0; i < n; i++)
            fputs(i ? "|---:" : "|---", d->f);
        fputs("|\n", d->f);
    }
}

void doc_table_end(const struct doc *d)
{
    fputs(d->html ? "</table>\n" : "\n", d->f);
}

/* A row: a key, then the cells of the formatted text, split at " | ". */
void doc_kv(const struct doc *d, const char *key, const char *fmt, ...)
{
    char cells[12][64], buf[768];
    va_list ap;
    snprintf(cells[0], sizeof cells[0], "%s", key);
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int n = 1;
    for (char *p = buf; n < 12;) {
        char *bar = strstr(p, " | ");
        if (bar)
            *bar = '\0';
        snprintf(cells[n++], sizeof cells[0], "%.63s", p);
        if (!bar)
            break;
        p = bar + 3;
    }
    doc_row(d, false, n, cells);
}

static void base64(FILE *out, FILE *in)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char b[3];
    size_t n;
    while ((n = fread(b, 1, 3, in)) > 0) {
        unsigned v = (unsigned)b[0] << 16 | (n > 1 ? (unsigned)b[1] << 8 : 0) | (n > 2 ? b[2] : 0);
        fputc(tab[v >> 18 & 63], out);
        fputc(tab[v >> 12 & 63], out);
        fputc(n > 1 ? tab[v >> 6 & 63] : '=', out);
        fputc(n > 2 ? tab[v & 63] : '=', out);
    }
}

static const char css[] =
    "body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em}"
    "td{text-align:right}td:first-child{text-align:left}figure{margin:1em 0}img{max-width:100%}"
    "#summary p{margin:.5em 0}#summary figure{margin:.5em 0}";

void doc_begin(const struct doc *d, const char *title)
{
    if (!d->html)
        return;
    fprintf(d->f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    doc_esc(d, title);
    fprintf(d->f, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

void doc_end(const struct doc *d)
{
    doc_para(d, "Written by fleetsim %s, commit %s.", FLEETSIM_VERSION, fleetsim_commit);
    if (d->html)
        fputs("</body>\n</html>\n", d->f);
}

void doc_section(const struct doc *d, const char *id)
{
    if (d->html)
        fprintf(d->f, "<section id=\"%s\">\n", id);
}

void doc_section_end(const struct doc *d)
{
    if (d->html)
        fputs("</section>\n", d->f);
}

void doc_image(const struct doc *d, const char *title, const char *name, const char *png)
{
    if (!d->html) {
        fprintf(d->f, "![%s](%s.png)\n\n", title, name);
        return;
    }
    FILE *in = fopen(png, "rb");
    if (!in)
        return;
    fprintf(d->f, "<figure><img alt=\"%s\" src=\"data:image/png;base64,", title);
    base64(d->f, in);
    fclose(in);
    fprintf(d->f, "\"><figcaption>%s</figcaption></figure>\n", title);
}

const char *doc_usd(char buf[32], double v)
{
    if (!isfinite(v))
        return strcpy(buf, "n/a");
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t n = strlen(digits), o = 0;
    if (v < 0 && strcmp(digits, "0") != 0)
        buf[o++] = '-';
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
