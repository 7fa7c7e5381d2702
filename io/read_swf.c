/* read_swf.c - the Standard Workload Format of the Parallel Workloads
 * Archive (Chapin et al. 1999; www.cs.huji.ac.il/labs/parallel/workload/
 * swf.html): one job per line, 18 whitespace-separated numeric fields, -1
 * for unknown; lines starting with ';' are header comments ("; MaxProcs:
 * 240").
 *
 * One job per line:
 *   id      field 1, the job number
 *   submit  field 2, seconds from the log's start
 *   gpus    processors: field 5 (allocated), else field 8 (requested) -
 *           a CPU log imported as a GPU workload, one GPU per processor
 *   work    run time (field 4) x processors, on the reference type (default
 *           a100-sxm-80, the throughput model's reference GPU: a CPU log
 *           names no GPU)
 *   team    "user<field 12>", else "group<field 13>", else
 *           reader_options.team or "swf"
 *   kind    batch
 *           (measured: the log's run time already holds the job's
 *           communication, so no multi-GPU scaling is applied again)
 *   limit   requested time (field 9) when > 0: the estimate backfilling
 *           plans with; not a hard limit (an SWF log records what ran, and
 *           some jobs ran past their request)
 * Dropped and counted: a job whose submit time, run time or processors is
 * unknown (-1) or <= 0 (run time, processors), and a job asking more
 * processors than the header's "; MaxProcs: N" (the log's own machine size;
 * such a job could not have run there).  Every field must be a number
 * (fields 1, 5, 8, 11-18 integers); a line of another field count, a
 * malformed number or a bad MaxProcs value is an error.
 */
#include "readers_int.h"

#include <stdlib.h>
#include <string.h>

enum { F_JOB, F_SUBMIT, F_WAIT, F_RUN, F_PROCS, F_CPU, F_MEM, F_REQ_PROCS, F_REQ_TIME,
       F_REQ_MEM, F_STATUS, F_USER, F_GROUP, F_APP, F_QUEUE, F_PART, F_PREV, F_THINK, NFIELDS };
static const char *const fields[NFIELDS] = {
    "job (field 1)", "submit (field 2)", "wait (field 3)", "run_time (field 4)",
    "processors (field 5)", "cpu_time (field 6)", "memory (field 7)",
    "requested_processors (field 8)", "requested_time (field 9)",
    "requested_memory (field 10)", "status (field 11)", "user (field 12)",
    "group (field 13)", "executable (field 14)", "queue (field 15)",
    "partition (field 16)", "preceding_job (field 17)", "think_time (field 18)",
};
/* Fields that must be integers. */
static const unsigned int_fields = 1u << F_JOB | 1u << F_PROCS | 1u << F_REQ_PROCS |
                                   1u << F_STATUS | 1u << F_USER | 1u << F_GROUP |
                                   1u << F_APP | 1u << F_QUEUE | 1u << F_PART | 1u << F_PREV |
                                   1u << F_THINK;

/* A header comment: "; MaxProcs: N" sets *max_procs. */
static int parse_comment(const struct rd_row *r, const char *s, int64_t *max_procs)
{
    s += strspn(s, " \t;");
    static const char key[] = "MaxProcs:";
    if (strncmp(s, key, sizeof key - 1) != 0)
        return 0;
    char buf[64];
    s += sizeof key - 1;
    s += strspn(s, " \t");
    size_t n = strcspn(s, " \t");
    if (n >= sizeof buf || !rd_blank(s + n))
        return rd_fail(r, "MaxProcs", "expected one integer after \"; MaxProcs:\"");
    memcpy(buf, s, n);
    buf[n] = '\0';
    int64_t v;
    int rc = rd_int(r, "MaxProcs", buf, -1, RD_GPUS_LIMIT, &v);
    if (rc == 0 && v != -1 && v < 1)
        return rd_fail(r, "MaxProcs", "must be >= 1 (or -1, unknown), got %s", buf);
    if (rc == 0)
        *max_procs = v;
    return rc;
}

/* Every field of a job line as a number (v[]), integers where SWF has them. */
static int parse_fields(const struct rd_row *r, char **f, double *v)
{
    for (int i = 0; i < NFIELDS; i++) {
        int rc;
        if (int_fields >> i & 1) {
            int64_t x;
            rc = rd_int(r, fields[i], f[i], -1, (int64_t)1 << 53, &x);
            v[i] = (double)x;
        } else {
            rc = rd_num(r, fields[i], f[i], -1, 1e15, &v[i]);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Count the job as dropped when the format says it cannot run.  RET: 1
 * when dropped, else 0. */
static int dropped(const struct rd_row *r, const double *v, double procs, int64_t max_procs,
                   struct reader_stats *st)
{
    if (v[F_SUBMIT] < 0)
        rd_drop(st, r->line, "submit time unknown");
    else if (!(v[F_RUN] > 0))
        rd_drop(st, r->line, "run time <= 0 or unknown");
    else if (!(procs > 0))
        rd_drop(st, r->line, "processors <= 0 or unknown");
    else if (max_procs > 0 && procs > (double)max_procs)
        rd_drop(st, r->line, "more processors than the header's MaxProcs %lld",
                (long long)max_procs);
    else
        return 0;
    return 1;
}

/* One job line.  RET: 0, 1 when dropped, FS_EDATA. */
static int parse_job(const struct rd_row *r, char **f, int64_t max_procs,
                     const struct reader_options *opt, struct workload *w,
                     struct reader_stats *st, struct job *j)
{
    double v[NFIELDS];
    int rc = parse_fields(r, f, v);
    if (rc)
        return rc;
    if (v[F_JOB] < 0)
        return rd_fail(r, fields[F_JOB], "must be >= 0, got %s", f[F_JOB]);
    double procs = v[F_PROCS] > 0 ? v[F_PROCS] : v[F_REQ_PROCS];
    if (dropped(r, v, procs, max_procs, st))
        return 1;
    if (procs > RD_GPUS_LIMIT)
        return rd_fail(r, fields[v[F_PROCS] > 0 ? F_PROCS : F_REQ_PROCS],
                       "%.0f processors: more than %d", procs, RD_GPUS_LIMIT);
    if (!fs_seconds_ok(v[F_SUBMIT]))
        return rd_fail(r, fields[F_SUBMIT], "%s is too large (over ~285,000 years)", f[F_SUBMIT]);
    char team[WORKLOAD_TEAM_MAX];
    if (v[F_USER] >= 0)
        snprintf(team, sizeof team, "user%.0f", v[F_USER]);
    else if (v[F_GROUP] >= 0)
        snprintf(team, sizeof team, "group%.0f", v[F_GROUP]);
    else
        snprintf(team, sizeof team, "%s", opt && opt->team ? opt->team : "swf");
    int t = rd_team(r, v[F_USER] >= 0 ? fields[F_USER] : fields[F_GROUP], team, w);
    if (t < 0)
        return t;
    j->id = (int64_t)v[F_JOB];
    j->submit = fs_from_seconds(v[F_SUBMIT]);
    j->kind = JOB_BATCH;
    j->team = (uint16_t)t;
    j->gpus = (int32_t)procs;
    j->work = v[F_RUN] * procs;
    j->measured = 1;
    if (v[F_REQ_TIME] > 0 && fs_seconds_ok(v[F_REQ_TIME]))
        j->limit = fs_from_seconds(v[F_REQ_TIME]);
    return 0;
}

static int read_lines(struct rd_lines *in, const struct reader_options *opt,
                      const struct gpu_catalog *cat, int ref, struct workload *tmp,
                      long long **lines, struct reader_stats *st, struct fs_err *err)
{
    (void)cat;
    int64_t max_procs = -1;
    size_t cap = 0;
    char *s, *f[NFIELDS];
    int rc;
    while ((rc = rd_next(in, &s, err)) > 0) {
        struct rd_row r = {in->path, in->lineno, err};
        struct job j = {0};
        const char *p = s + strspn(s, " \t");
        if (*p == ';') {
            if ((rc = parse_comment(&r, p, &max_procs)) < 0)
                break;
            continue;
        }
        if (!*p)
            continue;
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        int nf = rd_split(s, ' ', f, NFIELDS);
        if (nf != NFIELDS)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d whitespace-separated fields, "
                           "found %d", in->path, r.line, NFIELDS, nf);
        if ((rc = parse_job(&r, f, max_procs, opt, tmp, st, &j)) < 0)
            break;
        if (rc == 1)
            continue;
        j.ref_type = (int16_t)ref;
        xgrow(lines, &cap, tmp->n + 1, sizeof **lines);
        (*lines)[tmp->n] = r.line;
        workload_add(tmp, &j);
    }
    if (rc == 0 && in->lineno == 0)
        rc = fs_fail(err, FS_EDATA, "%s:1: empty file; expected SWF job lines", in->path);
    if (st)
        st->rows = in->rows;
    return rc;
}

int swf_read(const char *path, const struct reader_options *opt,
             const struct gpu_catalog *cat, struct workload *w,
             struct reader_stats *st, struct fs_err *err)
{
    return rd_read_jobs(path, opt, cat, SWF_REF_DEFAULT, "swf", read_lines, w, st, err);
}
