/* read_points.c - a calibration table "x,watts" (read_points.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "read_points.h"

/* Input beyond this is refused, not read: 512 points need a few kB. */
#define CAL_MAX_BYTES (1L << 20)

/* A number at s, then only blanks up to the end or to a comma.  OUT *end:
 * where it stopped.  RET: 0, or -1 when there is no finite number. */
static int parse_field(const char *s, double *out, const char **end)
{
    char *e;
    errno = 0;
    *out = strtod(s, &e);
    if (e == s || errno == ERANGE || !isfinite(*out))
        return -1;
    *end = e + strspn(e, " \t\r");
    return **end && **end != ',' ? -1 : 0;
}

/* "x,watts": two numbers and nothing else.  RET: 0 or -1. */
static int parse_row(const char *s, double *x, double *w)
{
    const char *end;
    if (parse_field(s, x, &end) || *end != ',' || parse_field(end + 1, w, &end))
        return -1;
    return *end ? -1 : 0;
}

int read_points(const char *path, bool log2x, double *x, double *y, size_t max, size_t *n, struct fs_err *err)
{
    FILE *f;
    int rc = fs_open_input(path, &f, err);
    if (rc)
        return rc;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size > CAL_MAX_BYTES) {
        fclose(f);
        return fs_fail(err, FS_EDATA, "%s: %lld bytes, more than the %ld a calibration input may hold (%zu points)",
                       path, (long long)st.st_size, CAL_MAX_BYTES, max);
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    bool seen = false; /* a data or header line was read */
    *n = 0;
    long bytes = 0;
    for (ssize_t len; !rc && (len = getline(&line, &cap, f)) != -1;) {
        lineno++;
        if ((bytes += len) > CAL_MAX_BYTES) {
            rc = fs_fail(err, FS_EDATA, "%s:%ld: input larger than %ld bytes (at most %zu points)", path,
                         lineno, CAL_MAX_BYTES, max);
            break;
        }
        line[strcspn(line, "#\n")] = '\0';
        char *s = line + strspn(line, " \t\r");
        if (!*s)
            continue;
        double a, b;
        const char *end;
        bool ok = parse_row(s, &a, &b) == 0;
        if (!ok && !seen && parse_field(s, &a, &end)) {
            seen = true; /* a header: the first line, whose first field is no number */
            continue;
        }
        seen = true;
        if (!ok)
            rc = fs_fail(err, FS_EDATA, "%s:%ld: expected two numbers \"x,watts\", got \"%s\"",
                         path, lineno, s);
        else if (!(b > 0))
            rc = fs_fail(err, FS_EDATA, "%s:%ld: watts must be > 0, got %g", path, lineno, b);
        else if (log2x && !(a > 0))
            rc = fs_fail(err, FS_EDATA, "%s:%ld: x must be > 0 with --log2, got %g", path,
                         lineno, a);
        else if (*n == max)
            rc = fs_fail(err, FS_EDATA, "%s:%ld: more than %zu points", path, lineno,
                         max);
        else {
            x[*n] = log2x ? log2(a) : a;
            y[(*n)++] = b;
        }
    }
    if (!rc && ferror(f))
        rc = fs_fail(err, FS_ENOINPUT, "%s: cannot read: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return rc;
}
