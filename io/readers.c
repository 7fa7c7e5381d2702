/* readers.c - the trace reader registry and what the readers share (see
 * readers_int.h): lines, fields, numbers, date-times, drops, and handing a
 * finished read over to the caller's workload. */
#include "readers_int.h"
#include "../base/signals.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/csv.h"

/* ---- registry ----------------------------------------------------------- */

static int native_read(const char *path, const struct reader_options *opt,
                       const struct gpu_catalog *cat, struct workload *w,
                       struct reader_stats *st, struct fs_err *err)
{
    (void)opt; /* a native trace names its reference type on every row */
    size_t n0 = w->n;
    int rc = workload_read_native(path, cat, w, err);
    if (st) {
        memset(st, 0, sizeof *st);
        st->rows = st->jobs = rc ? 0 : (long long)(w->n - n0);
    }
    return rc;
}

static const struct trace_reader native_reader = {
    .name = "native",
    .summary = "fleetsim's job CSV (id,submit_s,kind,team,gpus,...)",
    .default_ref = NULL,
    .read = native_read,
};
static const struct trace_reader openb_reader = {
    .name = "openb",
    .summary = "Alibaba GPU cluster trace v2023 pod list (openb_pod_list_*.csv)",
    .default_ref = OPENB_REF_DEFAULT,
    .read = openb_read_pods,
};
static const struct trace_reader philly_reader = {
    .name = "philly",
    .summary = "Microsoft Philly jobs (timestamp,duration,num_gpus,gpu_time,cluster)",
    .default_ref = PHILLY_REF_DEFAULT,
    .read = philly_read,
};
static const struct trace_reader swf_reader = {
    .name = "swf",
    .summary = "Standard Workload Format log (Parallel Workloads Archive)",
    .default_ref = SWF_REF_DEFAULT,
    .read = swf_read,
};

static const struct trace_reader gavel_reader = {
    .name = "gavel",
    .summary = "Gavel's simulator job list (tab-separated, work in steps of the job type)",
    .default_ref = GAVEL_REF_DEFAULT,
    .steps = true,
    .read = gavel_read,
};

const struct trace_reader *const trace_readers[] = {
    &native_reader, &openb_reader, &philly_reader, &swf_reader, &gavel_reader, NULL,
};

const struct trace_reader *trace_reader_find(const char *name)
{
    for (size_t i = 0; name && trace_readers[i]; i++)
        if (strcmp(trace_readers[i]->name, name) == 0)
            return trace_readers[i];
    return NULL;
}

const char *trace_reader_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; trace_readers[i] && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                trace_readers[i]->name);
    return buf;
}

/* ---- lines -------------------------------------------------------------- */

#define RD_BUF (4 * RD_LINE_LIMIT)

int rd_open(struct rd_lines *in, const char *path, struct fs_err *err)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    int rc = fs_open_input(path, &in->f, err);
    if (rc)
        return rc;
    in->buf = xmalloc(RD_BUF + 1); /* + 1: room to end a last line without '\n' */
    return 0;
}

void rd_close(struct rd_lines *in)
{
    if (in->f)
        fclose(in->f);
    free(in->buf);
    free(in->rec);
    in->f = NULL;
    in->buf = NULL;
    in->rec = NULL;
    in->rec_cap = 0;
}

/* Fill the buffer until it holds a '\n' after pos.  RET: the '\n' (for a
 * last line without one, a '\n' put in the spare byte after the data); NULL
 * at the end of the file, or with *too_long set when the line will not fit,
 * or with *read_err set on a read error. */
static char *fill_to_newline(struct rd_lines *in, int *too_long, int *read_err)
{
    char *nl;
    while (!(nl = memchr(in->buf + in->pos, '\n', in->end - in->pos))) {
        if (in->end - in->pos > RD_LINE_LIMIT + 1) { /* + 1: a CR may end it */
            *too_long = 1;
            return NULL;
        }
        if (in->eof) {
            if (in->pos == in->end)
                return NULL;
            in->buf[in->end] = '\n'; /* the spare byte */
            return in->buf + in->end++;
        }
        memmove(in->buf, in->buf + in->pos, in->end - in->pos);
        in->end -= in->pos;
        in->pos = 0;
        size_t got = fread(in->buf + in->end, 1, RD_BUF - in->end, in->f);
        if (got == 0) {
            if (ferror(in->f)) {
                *read_err = 1;
                return NULL;
            }
            in->eof = 1;
        }
        in->end += got;
    }
    return nl;
}

int rd_next(struct rd_lines *in, char **s, struct fs_err *err)
{
    int too_long = 0, read_err = 0;
    char *nl = fill_to_newline(in, &too_long, &read_err);
    if (read_err)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot read: %s", in->path, strerror(errno));
    if (too_long)
        return fs_fail(err, FS_EDATA, "%s:%lld: line longer than %d bytes", in->path,
                       in->lineno + 1, RD_LINE_LIMIT);
    if (!nl)
        return 0;
    if (fs_poll((uint64_t)++in->lineno))
        return fs_fail_interrupted(err);
    *nl = '\0';
    char *line = in->buf + in->pos;
    size_t len = (size_t)(nl - line);
    in->pos = (size_t)(nl + 1 - in->buf);
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len > RD_LINE_LIMIT)
        return fs_fail(err, FS_EDATA, "%s:%lld: line longer than %d bytes", in->path,
                       in->lineno, RD_LINE_LIMIT);
    if (strlen(line) != len)
        return fs_fail(err, FS_EDATA, "%s:%lld: NUL byte in line (a binary file?)", in->path,
                       in->lineno);
    if (in->lineno == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
        line += 3;
    *s = line;
    return 1;
}

/* Append line to the record buffer, after a line end when it holds text
 * already.  RET: 0, or FS_EDATA past RD_LINE_LIMIT bytes. */
static int rec_append(struct rd_lines *in, size_t *len, const char *line, struct fs_err *err)
{
    size_t n = strlen(line), sep = *len ? 1 : 0;
    if (*len + sep + n > RD_LINE_LIMIT)
        return fs_fail(err, FS_EDATA, "%s:%lld: a record longer than %d bytes (an unclosed "
                       "quote?)", in->path, in->record, RD_LINE_LIMIT);
    xgrow(&in->rec, &in->rec_cap, *len + sep + n + 1, 1);
    if (sep)
        in->rec[(*len)++] = '\n';
    memcpy(in->rec + *len, line, n + 1);
    *len += n;
    return 0;
}

int rd_csv_next(struct rd_lines *in, char **f, int max, int *nf, struct fs_err *err)
{
    char *s;
    int rc;
    do {
        if ((rc = rd_next(in, &s, err)) <= 0)
            return rc;
    } while ((in->comment && s[0] == in->comment) || rd_blank(s));
    in->record = in->lineno;
    if (csv_open_quote(s)) {
        size_t len = 0;
        if ((rc = rec_append(in, &len, s, err)) < 0)
            return rc;
        while (csv_open_quote(in->rec)) {
            if ((rc = rd_next(in, &s, err)) < 0)
                return rc;
            if (rc == 0)
                return fs_fail(err, FS_EDATA, "%s:%lld: %s by the end of the file", in->path,
                               in->record, csv_error_text(CSV_OPEN_QUOTE));
            if ((rc = rec_append(in, &len, s, err)) < 0)
                return rc;
        }
        s = in->rec;
    }
    int bad;
    enum csv_error e = csv_split(s, f, max, nf, &bad);
    if (e)
        return fs_fail(err, FS_EDATA, "%s:%lld: field %d: %s", in->path, in->record, bad,
                       csv_error_text(e));
    return 1;
}

int rd_csv_header(struct rd_lines *in, char *buf, size_t size, struct fs_err *err)
{
    enum { MAX_COLS = 64 };
    char *f[MAX_COLS];
    int nf, rc = rd_csv_next(in, f, MAX_COLS, &nf, err);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; rc == 1 && i < nf && i < MAX_COLS && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", f[i]);
    return rc;
}

int rd_header(struct rd_lines *in, const char *header, struct fs_err *err)
{
    char got[1024];
    int rc = rd_csv_header(in, got, sizeof got, err);
    if (rc == 0)
        return fs_fail(err, FS_EDATA, "%s:1: empty file; expected the header \"%s\"", in->path,
                       header);
    if (rc < 0)
        return rc;
    if (strcmp(got, header) != 0)
        return fs_fail(err, FS_EDATA, "%s:%lld: bad header; expected \"%s\"", in->path,
                       in->record, header);
    return 0;
}

int rd_count_row(struct rd_lines *in, struct fs_err *err)
{
    if (++in->rows > RD_MAX_ROWS)
        return fs_fail(err, FS_EDATA, "%s:%lld: more than %lld data rows; fleetsim reads at "
                       "most %lld rows of a trace", in->path, in->lineno, RD_MAX_ROWS,
                       RD_MAX_ROWS);
    return 0;
}

int rd_blank(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

int rd_split(char *s, char sep, char **f, int max)
{
    int n = 0;
    if (sep != ' ') {
        for (char *p = s, *c; p; p = c ? c + 1 : NULL, n++) {
            if ((c = strchr(p, sep)))
                *c = '\0';
            if (n < max)
                f[n] = p;
        }
        return n;
    }
    for (char *p = s;;) {
        p += strspn(p, " \t");
        if (!*p)
            return n;
        if (n < max)
            f[n] = p;
        n++;
        p += strcspn(p, " \t");
        if (*p)
            *p++ = '\0';
    }
}

/* ---- fields ------------------------------------------------------------- */

int rd_fail(const struct rd_row *r, const char *col, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fs_fail(r->err, FS_EDATA, "%s:%lld: column %s: %s", r->path, r->line, col, msg);
}

const char *rd_show(const char *s, char *buf)
{
    size_t i = 0;
    for (; s[i] && i < 40; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    strcpy(buf + i, s[i] ? "..." : "");
    return buf;
}

/* Only what a plain decimal number may contain. */
static int number_chars(const char *s, const char *allowed)
{
    return *s && s[strspn(s, allowed)] == '\0';
}

int rd_int(const struct rd_row *r, const char *col, const char *s, int64_t lo, int64_t hi,
           int64_t *out)
{
    char show[48], *end;
    if (!*s)
        return rd_fail(r, col, "empty; expected an integer");
    errno = 0;
    long long v = 0;
    if (number_chars(s, "0123456789+-"))
        v = strtoll(s, &end, 10);
    if (!number_chars(s, "0123456789+-") || *end || errno == ERANGE)
        return rd_fail(r, col, "expected an integer, got \"%s\"", rd_show(s, show));
    if (v < lo || v > hi)
        return rd_fail(r, col, "must be %" PRId64 "..%" PRId64 ", got %s", lo, hi,
                       rd_show(s, show));
    *out = v;
    return 0;
}

int rd_num(const struct rd_row *r, const char *col, const char *s, double lo, double hi,
           double *out)
{
    char show[48], *end = NULL;
    if (!*s)
        return rd_fail(r, col, "empty; expected a number");
    double v = 0;
    if (number_chars(s, "0123456789.eE+-"))
        v = strtod(s, &end);
    if (!end || *end || !isfinite(v))
        return rd_fail(r, col, "expected a finite number, got \"%s\"", rd_show(s, show));
    if (v < lo || v > hi)
        return rd_fail(r, col, "must be in [%g, %g], got %s", lo, hi, rd_show(s, show));
    *out = v;
    return 0;
}

/* n digits of s as a number, or -1 unless all are digits. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int rd_datetime(const struct rd_row *r, const char *col, const char *s, int64_t *ns)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    char show[48];
    int y = digits(s, 4), mo, d, h, mi, sec;
    size_t len = strlen(s);
    if (len < 19 || y < 0 || s[4] != '-' || (mo = digits(s + 5, 2)) < 0 || s[7] != '-' ||
        (d = digits(s + 8, 2)) < 0 || (s[10] != ' ' && s[10] != 'T') ||
        (h = digits(s + 11, 2)) < 0 || s[13] != ':' || (mi = digits(s + 14, 2)) < 0 ||
        s[16] != ':' || (sec = digits(s + 17, 2)) < 0 || (s[19] && s[19] != '.'))
        return rd_fail(r, col, "expected a date-time \"YYYY-MM-DD HH:MM:SS[.fraction]\", got \"%s\"",
                       rd_show(s, show));
    int64_t frac = 0;
    if (s[19] == '.') {
        int nd = (int)(len - 20);
        if (nd < 1 || nd > 9 || (frac = digits(s + 20, nd)) < 0)
            return rd_fail(r, col, "the fraction of a second must be 1 to 9 digits, got \"%s\"",
                           rd_show(s, show));
        for (; nd < 9; nd++)
            frac *= 10;
    }
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || sec > 59)
        return rd_fail(r, col, "no such date-time (years 1970-2200): \"%s\"", rd_show(s, show));
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *ns = secs * 1000000000 + frac;
    return 0;
}

int rd_team(const struct rd_row *r, const char *col, const char *name, struct workload *w)
{
    char show[48];
    size_t len = strlen(name);
    if (len == 0)
        return rd_fail(r, col, "empty team name");
    if (len >= WORKLOAD_TEAM_MAX)
        return rd_fail(r, col, "team name \"%s\" is longer than %d characters",
                       rd_show(name, show), WORKLOAD_TEAM_MAX - 1);
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return rd_fail(r, col, "team name \"%s\" holds a control character",
                           rd_show(name, show));
    int t = workload_team(w, name);
    if (t < 0)
        return rd_fail(r, col, "more than %d teams", WORKLOAD_MAX_TEAMS);
    return t;
}

/* ---- drops, reference type ---------------------------------------------- */

void rd_drop(struct reader_stats *st, long long line, const char *fmt, ...)
{
    if (!st)
        return;
    char why[READER_REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    st->dropped++;
    int i = 0;
    while (i < st->nreasons && strcmp(st->reasons[i].why, why) != 0)
        i++;
    if (i == st->nreasons) {
        if (i == READER_MAX_DROPS) {
            i = READER_MAX_DROPS - 1;
            snprintf(st->reasons[i].why, sizeof st->reasons[i].why, "other reasons");
        } else {
            st->nreasons++;
            snprintf(st->reasons[i].why, sizeof st->reasons[i].why, "%s", why);
            st->reasons[i].first_line = line;
        }
    }
    st->reasons[i].count++;
}

int rd_ref_type(const char *path, const struct reader_options *opt, const char *def,
                const char *format, const struct gpu_catalog *cat, struct fs_err *err)
{
    if (opt && opt->ref_type >= 0 && opt->ref_type < cat->n)
        return opt->ref_type;
    int t = gpu_catalog_find(cat, def);
    if (t < 0)
        return fs_fail(err, FS_EDATA, "%s: the catalog has no GPU type \"%s\", the %s format's "
                       "default reference type; name one (reference_gpu)", path, def, format);
    return t;
}

/* ---- commit ------------------------------------------------------------- */

struct id_line {
    int64_t id;
    long long line; /* -1 for a job of the workload read into */
};

static int id_line_cmp(const void *a, const void *b)
{
    const struct id_line *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Every id once among w's jobs and tmp's.  RET: 0 or FS_EDATA naming the
 * duplicate whose later line is earliest. */
static int check_ids(const struct workload *tmp, const long long *lines,
                     const struct workload *w, const char *path, struct fs_err *err)
{
    size_t i = 1;
    while (i < tmp->n && tmp->jobs[i].id > tmp->jobs[i - 1].id)
        i++;
    if (i >= tmp->n && w->n == 0)
        return 0; /* increasing ids, as traces usually have */
    size_t n = tmp->n + w->n;
    struct id_line *k = xmalloc(n * sizeof *k);
    for (i = 0; i < w->n; i++)
        k[i] = (struct id_line){w->jobs[i].id, -1};
    for (i = 0; i < tmp->n; i++)
        k[w->n + i] = (struct id_line){tmp->jobs[i].id, lines[i]};
    qsort(k, n, sizeof *k, id_line_cmp);
    size_t dup = SIZE_MAX;
    for (i = 1; i < n; i++)
        if (k[i].id == k[i - 1].id && (dup == SIZE_MAX || k[i].line < k[dup].line))
            dup = i;
    int rc = 0;
    if (dup != SIZE_MAX && k[dup - 1].line < 0)
        rc = fs_fail(err, FS_EDATA, "%s:%lld: duplicate job id %" PRId64
                     " (already in the workload)", path, k[dup].line, k[dup].id);
    else if (dup != SIZE_MAX)
        rc = fs_fail(err, FS_EDATA, "%s:%lld: duplicate job id %" PRId64 " (first on line %lld)",
                     path, k[dup].line, k[dup].id, k[dup - 1].line);
    free(k);
    return rc;
}

int rd_commit(struct workload *tmp, const long long *lines, struct workload *w,
              const char *path, const struct reader_stats *st, struct fs_err *err)
{
    int rc = 0;
    if (tmp->n == 0 && st && st->dropped)
        rc = fs_fail(err, FS_EDATA, "%s: no jobs: all %lld rows dropped (first: line %lld, %s)",
                     path, st->dropped, st->reasons[0].first_line, st->reasons[0].why);
    else if (tmp->n == 0)
        rc = fs_fail(err, FS_EDATA, "%s: no jobs", path);
    else if (w->nteams + tmp->nteams > WORKLOAD_MAX_TEAMS)
        rc = fs_fail(err, FS_EDATA, "%s: more than %d teams in the workload", path,
                     WORKLOAD_MAX_TEAMS);
    else
        rc = check_ids(tmp, lines, w, path, err);
    for (size_t i = 0; !rc && i < tmp->n; i++) {
        struct job j = tmp->jobs[i];
        j.team = (uint16_t)workload_team(w, tmp->teams[j.team]);
        workload_add(w, &j);
    }
    if (!rc)
        workload_sort(w);
    workload_free(tmp);
    return rc;
}

int rd_read_jobs(const char *path, const struct reader_options *opt, const struct gpu_catalog *cat,
                 const char *def, const char *format, rd_rows_fn rows, struct workload *w,
                 struct reader_stats *st, struct fs_err *err)
{
    struct rd_lines in = {0};
    struct workload tmp;
    long long *lines = NULL;
    workload_init(&tmp);
    if (st)
        memset(st, 0, sizeof *st);
    int ref = rd_ref_type(path, opt, def, format, cat, err);
    int rc = ref < 0 ? ref : rd_open(&in, path, err);
    if (rc == 0)
        rc = rows(&in, opt, cat, ref, &tmp, &lines, st, err);
    if (st)
        st->jobs = rc ? 0 : (long long)tmp.n;
    if (rc == 0)
        rc = rd_commit(&tmp, lines, w, path, st, err);
    if (rc && st)
        st->jobs = 0;
    workload_free(&tmp);
    free(lines);
    rd_close(&in);
    return rc;
}
