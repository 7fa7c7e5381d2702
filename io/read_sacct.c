/* read_sacct.c - Slurm accounting records, as `sacct` prints them with
 * --parsable2 (-P; fields separated by '|', no quoting) or --parsable (-p,
 * a trailing '|'), header line first.  The documented command:
 *
 *   sacct --allusers --parsable2 --starttime ... --endtime ... \
 *     --format=JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,Partition,Account,State,NNodes
 *
 * Columns are found by their header names (any order, any case); JobID,
 * Submit, Start, State and AllocTRES or ReqTRES are required, and End or
 * Elapsed.  One job per row:
 *   id      JobID: a job "1234" is 1234; an array task "1234_7" is 1234 x
 *           2^32 + 7; a heterogeneous job's component "1234+1" is 1234 x
 *           2^32 + 2^31 + 1 (each component is a job of its own: fleetsim
 *           does not start components together)
 *   submit  Submit, from the earliest Submit of the jobs kept
 *   gpus    gres/gpu=N of AllocTRES (of ReqTRES when AllocTRES is empty);
 *           gres/gpu:TYPE=N names the type, mapped to a catalog type by the
 *           mapping file (reader_options.gpu_map: CSV with the header
 *           slurm_type,catalog_type, '#' comment lines; Slurm names match
 *           in any case) or, without an entry, by the catalog's own name
 *   work    the run time (End - Start, else Elapsed) x GPUs, on the mapped
 *           type (allowed: that type only), or on the reference type
 *           (default a100-sxm-80) when the row names no type; measured
 *           (job.h): no multi-GPU scaling is applied again
 *   limit   Timelimit ([D-]HH:MM:SS, MM:SS; UNLIMITED: none), a hard limit:
 *           Slurm ends a job at it (state TIMEOUT), and so does the engine
 *   team    Account, else Partition, else reader_options.team or "sacct"
 *   kind    batch (sacct says nothing of what a job does)
 * NNodes, when present, must be a positive integer; placement follows
 * fleetsim's own rule (sched.h).  A job that ran counts whatever its end
 * state (COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
 * PREEMPTED ...): it held its GPUs for its run time.
 * Dropped and counted, by reason: job steps ("1234.batch", "1234.0"), jobs
 * that never started (PENDING, cancelled while pending: no Start), jobs
 * still running (RUNNING, no End), REQUEUED records (the job's later record
 * counts), jobs that ran 0 s, jobs with GPUs of two types, and jobs
 * without GPUs unless reader_options.keep_cpu (then CPU-only jobs, work =
 * run time).  Anything malformed is an error "FILE:LINE: column NAME: ...".
 */
#include "readers_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { C_ID, C_SUBMIT, C_START, C_END, C_ELAPSED, C_LIMIT, C_ALLOC, C_REQ, C_PART, C_ACCOUNT,
       C_STATE, C_NNODES, NCOLS };
static const char *const cols[NCOLS] = {"JobID", "Submit", "Start", "End", "Elapsed",
                                        "Timelimit", "AllocTRES", "ReqTRES", "Partition",
                                        "Account", "State", "NNodes"};
#define MAX_FIELDS 64
#define MAP_MAX 256

/* The mapping file, and where each column is in a row. */
struct sacct {
    int pos[NCOLS];          /* -1 when absent */
    int nfields;
    int nmap;
    char slurm[MAP_MAX][GPU_NAME_MAX];
    int32_t type[MAP_MAX];
};

/* ---- the mapping file ----------------------------------------------------- */

static int read_map(const char *path, const struct gpu_catalog *cat, struct sacct *sa,
                    struct fs_err *err)
{
    struct rd_lines in;
    char *f[3];
    int nf, rc = rd_open(&in, path, err);
    in.comment = '#';
    if (rc == 0)
        rc = rd_header(&in, "slurm_type,catalog_type", err);
    while (rc == 0 && (rc = rd_csv_next(&in, f, 3, &nf, err)) > 0) {
        struct rd_row r = {path, in.record, err};
        char show[48];
        rc = 0;
        if (nf != 2)
            rc = fs_fail(err, FS_EDATA, "%s:%lld: expected 2 columns (slurm_type,catalog_type), "
                         "found %d", path, in.record, nf);
        else if (!*f[0] || strlen(f[0]) >= GPU_NAME_MAX)
            rc = rd_fail(&r, "slurm_type", "want 1-%d characters", GPU_NAME_MAX - 1);
        else if (sa->nmap == MAP_MAX)
            rc = rd_fail(&r, "slurm_type", "more than %d entries", MAP_MAX);
        else if ((sa->type[sa->nmap] = gpu_catalog_find(cat, f[1])) < 0)
            rc = rd_fail(&r, "catalog_type", "unknown GPU type \"%s\"", rd_show(f[1], show));
        else
            snprintf(sa->slurm[sa->nmap++], GPU_NAME_MAX, "%s", f[0]);
    }
    rd_close(&in);
    return rc;
}

/* The catalog type of a Slurm GPU type name, or -1. */
static int32_t map_type(const struct sacct *sa, const struct gpu_catalog *cat, const char *name)
{
    for (int i = 0; i < sa->nmap; i++)
        if (strcasecmp(sa->slurm[i], name) == 0)
            return sa->type[i];
    return gpu_catalog_find(cat, name);
}

/* ---- fields --------------------------------------------------------------- */

/* The header: each known column's position. */
static int read_header(struct rd_lines *in, struct sacct *sa, struct fs_err *err)
{
    char *s, *f[MAX_FIELDS];
    int rc = rd_next(in, &s, err);
    if (rc == 0)
        return fs_fail(err, FS_EDATA, "%s:1: empty file; expected sacct --parsable2 output "
                       "with a header line", in->path);
    if (rc < 0)
        return rc;
    int nf = rd_split(s, '|', f, MAX_FIELDS);
    if (nf > MAX_FIELDS)
        return fs_fail(err, FS_EDATA, "%s:1: more than %d columns", in->path, MAX_FIELDS);
    if (nf > 1 && !*f[nf - 1])
        nf--; /* --parsable: a trailing '|' */
    sa->nfields = nf;
    for (int c = 0; c < NCOLS; c++) {
        sa->pos[c] = -1;
        for (int k = 0; k < nf; k++)
            if (strcasecmp(f[k], cols[c]) == 0)
                sa->pos[c] = k;
    }
    static const int need[] = {C_ID, C_SUBMIT, C_START, C_STATE};
    for (size_t i = 0; i < FS_ARRAY_LEN(need); i++)
        if (sa->pos[need[i]] < 0)
            return fs_fail(err, FS_EDATA, "%s:1: no column %s; run sacct --parsable2 --format="
                           "JobID,Submit,Start,End,Elapsed,Timelimit,AllocTRES,ReqTRES,Partition,"
                           "Account,State,NNodes", in->path, cols[need[i]]);
    if (sa->pos[C_ALLOC] < 0 && sa->pos[C_REQ] < 0)
        return fs_fail(err, FS_EDATA, "%s:1: no column AllocTRES or ReqTRES (the GPUs)", in->path);
    if (sa->pos[C_END] < 0 && sa->pos[C_ELAPSED] < 0)
        return fs_fail(err, FS_EDATA, "%s:1: no column End or Elapsed (the run time)", in->path);
    return 0;
}

/* Slurm's "unknown" times. */
static bool unknown(const char *s)
{
    return !*s || strcasecmp(s, "Unknown") == 0 || strcasecmp(s, "None") == 0;
}

/* A duration [D-]HH:MM:SS, HH:MM:SS or MM:SS (an optional .fraction is
 * ignored, as sacct prints none).  OUT *s: seconds. */
static int parse_duration(const struct rd_row *r, const char *col, const char *text, int64_t *s)
{
    char show[48], buf[64];
    int64_t days = 0, part[3];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    buf[strcspn(buf, ".")] = '\0';
    char *p = buf, *dash = strchr(buf, '-');
    if (dash) {
        *dash = '\0';
        if (rd_int(r, col, buf, 0, 1000000, &days))
            return rd_fail(r, col, "expected [D-]HH:MM:SS, got \"%s\"", rd_show(text, show));
        p = dash + 1;
    }
    for (char *c; n < 3; p = c + 1) {
        if ((c = strchr(p, ':')))
            *c = '\0';
        if (!*p || p[strspn(p, "0123456789")] || strlen(p) > 6)
            return rd_fail(r, col, "expected [D-]HH:MM:SS, got \"%s\"", rd_show(text, show));
        part[n++] = strtoll(p, NULL, 10);
        if (!c)
            break;
    }
    if (n < 2 || strchr(p, ':') || (dash && n != 3))
        return rd_fail(r, col, "expected [D-]HH:MM:SS, got \"%s\"", rd_show(text, show));
    int64_t h = n == 3 ? part[0] : 0, m = part[n - 2], sec = part[n - 1];
    if (m > 59 || sec > 59 || (dash && h > 23))
        return rd_fail(r, col, "no such duration \"%s\"", rd_show(text, show));
    *s = days * 86400 + h * 3600 + m * 60 + sec;
    return 0;
}

/* GPUs and their Slurm type from a TRES list ("cpu=8,gres/gpu:a100=2,
 * gres/gpu=2,mem=64G,node=1").  OUT *gpus, type (empty when none named),
 * *two (two GPU types named). */
static int parse_tres(const struct rd_row *r, const char *col, char *s, int64_t *gpus,
                      char type[GPU_NAME_MAX], bool *two)
{
    char show[48];
    int64_t typed = -1;
    *gpus = 0;
    type[0] = '\0';
    *two = false;
    if (!*s)
        return 0;
    for (char *item = s, *comma; item; item = comma ? comma + 1 : NULL) {
        if ((comma = strchr(item, ',')))
            *comma = '\0';
        char *eq = strchr(item, '=');
        if (!eq || eq == item)
            return rd_fail(r, col, "expected NAME=VALUE items, got \"%s\"", rd_show(item, show));
        *eq = '\0';
        int64_t v;
        if (strcmp(item, "gres/gpu") == 0) {
            if (rd_int(r, col, eq + 1, 0, RD_GPUS_LIMIT, gpus))
                return FS_EDATA;
        } else if (strncmp(item, "gres/gpu:", 9) == 0) {
            if (rd_int(r, col, eq + 1, 0, RD_GPUS_LIMIT, &v))
                return FS_EDATA;
            const char *name = item + 9;
            if (!*name || strlen(name) >= GPU_NAME_MAX)
                return rd_fail(r, col, "GPU type name \"%s\" of 1-%d characters expected",
                               rd_show(name, show), GPU_NAME_MAX - 1);
            if (type[0] && strcmp(type, name) != 0)
                *two = true;
            snprintf(type, GPU_NAME_MAX, "%s", name);
            typed = typed < 0 ? v : typed + v;
        }
    }
    if (*gpus == 0 && typed > 0)
        *gpus = typed; /* only the typed count given */
    return 0;
}

/* JobID as an id.  OUT *id; *step set for a job step ("1234.batch") and
 * *pending_array for an unexpanded array ("1234_[1-5]").  RET: 0 or
 * FS_EDATA. */
static int parse_id(const struct rd_row *r, const char *s, int64_t *id, bool *step,
                    bool *pending_array)
{
    char show[48], buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    *step = strchr(buf, '.') != NULL;
    *pending_array = strchr(buf, '[') != NULL;
    buf[strcspn(buf, ".[")] = '\0';
    size_t at = strcspn(buf, "_+");
    char sep = buf[at];
    buf[at] = '\0';
    int64_t job, sub = 0;
    if (!*buf || buf[strspn(buf, "0123456789")] || strlen(buf) > 10 ||
        (job = strtoll(buf, NULL, 10)) >= (int64_t)1 << 31 << 1)
        return rd_fail(r, cols[C_ID], "expected a job id (1234, 1234_7, 1234+1, 1234.batch), "
                       "got \"%s\"", rd_show(s, show));
    if (sep && !*pending_array) {
        const char *t = buf + at + 1;
        if (!*t || t[strspn(t, "0123456789")] || strlen(t) > 9 ||
            (sub = strtoll(t, NULL, 10)) >= (int64_t)1 << 31)
            return rd_fail(r, cols[C_ID], "expected a job id (1234, 1234_7, 1234+1, "
                           "1234.batch), got \"%s\"", rd_show(s, show));
    }
    *id = sep == '_' ? job * ((int64_t)1 << 32) + sub
        : sep == '+' ? job * ((int64_t)1 << 32) + ((int64_t)1 << 31) + sub
                     : job;
    return 0;
}

/* ---- rows ----------------------------------------------------------------- */

/* The field of column c, or "" when the file lacks it. */
static char *field(const struct sacct *sa, char **f, int c)
{
    static char empty[] = "";
    return sa->pos[c] >= 0 ? f[sa->pos[c]] : empty;
}

/* One row.  OUT *submit_ns (absolute).  RET: 0, 1 when dropped, FS_EDATA. */
static int parse_row(const struct rd_row *r, char **f, const struct sacct *sa,
                     const struct reader_options *opt, const struct gpu_catalog *cat, int ref,
                     struct workload *w, struct reader_stats *st, struct job *j,
                     int64_t *submit_ns)
{
    bool step, pending_array, two;
    int64_t start, end, run = 0, nnodes, gpus, limit = 0, alloc_gpus;
    char state[32], type[GPU_NAME_MAX], show[48];
    int rc;
    if ((rc = parse_id(r, field(sa, f, C_ID), &j->id, &step, &pending_array)))
        return rc;
    const char *st_text = field(sa, f, C_STATE);
    if (!*st_text)
        return rd_fail(r, cols[C_STATE], "empty job state");
    snprintf(state, sizeof state, "%.*s", (int)strcspn(st_text, " "), st_text);
    if (step) {
        rd_drop(st, r->line, "job step (its job's own row counts)");
        return 1;
    }
    if ((rc = rd_datetime(r, cols[C_SUBMIT], field(sa, f, C_SUBMIT), submit_ns)))
        return rc;
    if (sa->pos[C_NNODES] >= 0 && (rc = rd_int(r, cols[C_NNODES], field(sa, f, C_NNODES), 0, 1000000, &nnodes)))
        return rc;
    char *lim = field(sa, f, C_LIMIT);
    if (*lim && strcasecmp(lim, "UNLIMITED") && strcasecmp(lim, "Partition_Limit") &&
        (rc = parse_duration(r, cols[C_LIMIT], lim, &limit)))
        return rc;
    char *alloc = field(sa, f, C_ALLOC), *req = field(sa, f, C_REQ);
    bool use_alloc = sa->pos[C_ALLOC] >= 0 && *alloc;
    if ((rc = parse_tres(r, use_alloc ? cols[C_ALLOC] : cols[C_REQ], use_alloc ? alloc : req,
                         &gpus, type, &two)))
        return rc;
    alloc_gpus = gpus;
    if (strcasecmp(state, "REQUEUED") == 0) {
        rd_drop(st, r->line, "REQUEUED (the job's later record counts)");
        return 1;
    }
    const char *start_s = field(sa, f, C_START), *end_s = field(sa, f, C_END);
    if (pending_array || unknown(start_s) || strcasecmp(state, "PENDING") == 0) {
        rd_drop(st, r->line, "never started (%s)", state);
        return 1;
    }
    if ((rc = rd_datetime(r, cols[C_START], start_s, &start)))
        return rc;
    if (strcasecmp(state, "RUNNING") == 0 || (sa->pos[C_END] >= 0 && unknown(end_s) &&
                                              sa->pos[C_ELAPSED] < 0)) {
        rd_drop(st, r->line, "still running (no end time)");
        return 1;
    }
    if (sa->pos[C_END] >= 0 && !unknown(end_s)) {
        if ((rc = rd_datetime(r, cols[C_END], end_s, &end)))
            return rc;
        if (end < start)
            return rd_fail(r, cols[C_END], "%s is before Start %s", rd_show(end_s, show), start_s);
        run = (end - start) / 1000000000;
    } else if ((rc = parse_duration(r, cols[C_ELAPSED], field(sa, f, C_ELAPSED), &run))) {
        return rc;
    }
    if (start < *submit_ns)
        return rd_fail(r, cols[C_START], "%s is before Submit %s", start_s, field(sa, f, C_SUBMIT));
    if (run <= 0) {
        rd_drop(st, r->line, "ran 0 s");
        return 1;
    }
    if (two) {
        rd_drop(st, r->line, "GPUs of more than one type");
        return 1;
    }
    if (alloc_gpus == 0 && !(opt && opt->keep_cpu)) {
        rd_drop(st, r->line, "no GPUs (kept with keep_cpu_jobs / --keep-cpu-jobs)");
        return 1;
    }
    int32_t t = ref;
    if (type[0] && (t = map_type(sa, cat, type)) < 0)
        return rd_fail(r, use_alloc ? cols[C_ALLOC] : cols[C_REQ], "GPU type \"%s\" is not in "
                       "the catalog; map it to one in a GPU mapping file (slurm_type,catalog_type"
                       "; --gpu-map, $.workload.gpu_map)", rd_show(type, show));
    const char *team = *field(sa, f, C_ACCOUNT) ? field(sa, f, C_ACCOUNT)
                     : *field(sa, f, C_PART) ? field(sa, f, C_PART)
                     : opt && opt->team ? opt->team : "sacct";
    int tm = rd_team(r, *field(sa, f, C_ACCOUNT) ? cols[C_ACCOUNT] : cols[C_PART], team, w);
    if (tm < 0)
        return tm;
    j->kind = JOB_BATCH;
    j->team = (uint16_t)tm;
    j->gpus = (int32_t)gpus;
    j->ref_type = (int16_t)t;
    j->allowed = type[0] ? 1ULL << t : 0;
    j->work = (double)run * (double)(gpus > 0 ? gpus : 1);
    j->measured = 1;
    j->limit = limit * FS_USEC;
    j->kill_at_limit = limit > 0;
    return 0;
}

static int read_rows(struct rd_lines *in, const struct reader_options *opt,
                     const struct gpu_catalog *cat, int ref, struct workload *tmp,
                     long long **lines, struct reader_stats *st, struct fs_err *err)
{
    struct sacct *sa = xcalloc(1, sizeof *sa);
    char *s, *f[MAX_FIELDS];
    size_t cap = 0;
    int64_t first = INT64_MAX, *submit = NULL;
    size_t submit_cap = 0;
    int rc = opt && opt->gpu_map ? read_map(opt->gpu_map, cat, sa, err) : 0;
    if (rc == 0)
        rc = read_header(in, sa, err);
    while (rc == 0 && (rc = rd_next(in, &s, err)) > 0) {
        struct rd_row r = {in->path, in->lineno, err};
        struct job j = {0};
        int64_t sub_ns;
        rc = 0;
        if (rd_blank(s))
            continue;
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        int nf = rd_split(s, '|', f, MAX_FIELDS);
        if (nf == sa->nfields + 1 && !*f[nf - 1])
            nf--; /* --parsable */
        if (nf != sa->nfields) {
            rc = fs_fail(err, FS_EDATA, "%s:%lld: expected %d '|'-separated fields as in the "
                         "header, found %d", in->path, r.line, sa->nfields, nf);
            break;
        }
        if ((rc = parse_row(&r, f, sa, opt, cat, ref, tmp, st, &j, &sub_ns)) < 0)
            break;
        if (rc == 1) {
            rc = 0;
            continue;
        }
        xgrow(lines, &cap, tmp->n + 1, sizeof **lines);
        xgrow(&submit, &submit_cap, tmp->n + 1, sizeof *submit);
        (*lines)[tmp->n] = r.line;
        submit[tmp->n] = sub_ns;
        if (sub_ns < first)
            first = sub_ns;
        workload_add(tmp, &j);
    }
    for (size_t i = 0; rc == 0 && i < tmp->n; i++)
        tmp->jobs[i].submit = (submit[i] - first) / 1000;
    if (st)
        st->rows = in->rows;
    free(submit);
    free(sa);
    return rc;
}

int sacct_read(const char *path, const struct reader_options *opt, const struct gpu_catalog *cat,
               struct workload *w, struct reader_stats *st, struct fs_err *err)
{
    return rd_read_jobs(path, opt, cat, SACCT_REF_DEFAULT, "sacct", read_rows, w, st, err);
}
