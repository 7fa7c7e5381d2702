/* csv.c - RFC 4180 fields out, records in (csv.h). */
#include "csv.h"

#include <string.h>

#include "base.h"

bool csv_needs_quotes(const char *s)
{
    size_t len = strlen(s);
    return s[strcspn(s, ",\"\r\n")] != '\0' ||
           (len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t'));
}

int csv_put(FILE *f, const char *s)
{
    if (!csv_needs_quotes(s))
        return fputs(s, f) < 0 ? EOF : 0;
    int bad = fputc('"', f) == EOF;
    for (; *s && !bad; s++)
        bad = (*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF;
    return bad || fputc('"', f) == EOF ? EOF : 0;
}

char *csv_field(const char *s)
{
    size_t n = strlen(s);
    char *out = xmalloc(2 * n + 3), *p = out;
    if (!csv_needs_quotes(s))
        return memcpy(out, s, n + 1);
    *p++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *p++ = '"';
        *p++ = *s;
    }
    *p++ = '"';
    *p = '\0';
    return out;
}

const char *csv_error_text(enum csv_error e)
{
    switch (e) {
    case CSV_OPEN_QUOTE:
        return "a quoted field is not closed (a '\"' is missing)";
    case CSV_AFTER_QUOTE:
        return "text after a closing quote (a '\"' inside a quoted field must be doubled)";
    default:
        return "no error";
    }
}

bool csv_open_quote(const char *s)
{
    bool in = false, start = true; /* inside quotes; at the start of a field */
    for (; *s; s++) {
        if (in && *s == '"' && s[1] == '"')
            s++; /* a doubled quote: still inside */
        else if (in && *s == '"')
            in = false;
        else if (!in && start && *s == '"')
            in = true;
        start = !in && *s == ',';
    }
    return in;
}

enum csv_error csv_split(char *s, char **f, int max, int *nf, int *bad_field)
{
    int n = 0;
    enum csv_error e = CSV_OK;
    char *r = s, *w = s; /* read and write positions: unquoting shrinks */
    for (;;) {
        char *field = w;
        if (*r == '"') {
            for (r++;; r++) {
                if (!*r) {
                    e = CSV_OPEN_QUOTE;
                    break;
                }
                if (*r == '"' && r[1] != '"')
                    break;
                r += *r == '"'; /* a doubled quote stands for one */
                *w++ = *r;
            }
            if (!e && *++r && *r != ',')
                e = CSV_AFTER_QUOTE;
        } else {
            for (; *r && *r != ','; r++)
                *w++ = *r;
        }
        if (n < max)
            f[n] = field;
        n++;
        if (e) {
            *w = '\0';
            break;
        }
        char c = *r;
        *w++ = '\0';
        if (!c)
            break;
        r++; /* the comma */
    }
    *nf = n;
    if (bad_field)
        *bad_field = e ? n : 0;
    return e;
}
