/* read_philly.c - Microsoft Philly jobs as flattened by the Pollux artifact
 * (petuum/adaptdl benchmark/traces/philly.csv, from msr-fiddle/philly-traces):
 *
 *   timestamp,duration,num_gpus,gpu_time,cluster
 *
 * One job per row:
 *   id      the row's number among the data rows (1 for the first)
 *   submit  timestamp ("2017-10-09 07:01:55") minus the earliest timestamp
 *           in the file (the rows are not in time order).  The file carries
 *           no zone and is read as UTC; Philly's own logs are US Pacific
 *           time, so an offset spanning the end of daylight time
 *           (2017-11-05) is an hour off
 *   gpus    num_gpus
 *   work    duration (seconds) x num_gpus, on the reference type: by
 *           default p100, since Philly's servers list 12 GB and 24 GB GPUs
 *           (cluster_machine_list in msr-fiddle/philly-traces), Pascal
 *           P100- and P40-class cards, and the catalog's p100 stands in for
 *           both
 *   team    "vc" + cluster (the virtual cluster id); reader_options.team or
 *           "philly" when the column is empty
 *   kind    train
 * gpu_time must be a number and is otherwise unused (it is duration x
 * num_gpus in the shipped file).  A row with duration 0 or num_gpus 0 is
 * dropped and counted; negative values are errors.
 */
#include "readers_int.h"

#include <stdlib.h>
#include <string.h>

static const char header[] = "timestamp,duration,num_gpus,gpu_time,cluster";
enum { C_TIME, C_DUR, C_GPUS, C_GPUTIME, C_CLUSTER, NCOLS };
static const char *const cols[NCOLS] = {"timestamp", "duration", "num_gpus", "gpu_time",
                                        "cluster"};

/* One row as a job whose submit is the absolute time in microseconds.
 * RET: 0, 1 when the row is dropped, or FS_EDATA. */
static int parse_row(const struct rd_row *r, char **f, const struct reader_options *opt,
                     struct workload *w, struct reader_stats *st, struct job *j)
{
    int64_t ns, gpus;
    double dur, gpu_time;
    int rc;
    if ((rc = rd_datetime(r, cols[C_TIME], f[C_TIME], &ns)) ||
        (rc = rd_num(r, cols[C_DUR], f[C_DUR], 0, 9e12, &dur)) ||
        (rc = rd_int(r, cols[C_GPUS], f[C_GPUS], 0, RD_GPUS_LIMIT, &gpus)) ||
        (rc = rd_num(r, cols[C_GPUTIME], f[C_GPUTIME], 0, 1e18, &gpu_time)))
        return rc;
    if (dur == 0 || gpus == 0) {
        rd_drop(st, r->line, dur == 0 ? "duration 0" : "num_gpus 0");
        return 1;
    }
    char team[WORKLOAD_TEAM_MAX + 8];
    if (*f[C_CLUSTER])
        snprintf(team, sizeof team, "vc%.*s", WORKLOAD_TEAM_MAX, f[C_CLUSTER]);
    else
        snprintf(team, sizeof team, "%.*s", WORKLOAD_TEAM_MAX,
                 opt && opt->team ? opt->team : "philly");
    int t = rd_team(r, cols[C_CLUSTER], team, w);
    if (t < 0)
        return t;
    j->submit = ns / 1000; /* absolute for now; made relative once all are read */
    j->kind = JOB_TRAIN;
    j->team = (uint16_t)t;
    j->gpus = (int32_t)gpus;
    j->work = dur * (double)gpus;
    return 0;
}

static int read_each(struct rd_lines *in, const struct reader_options *opt, int ref,
                     struct workload *tmp, long long **lines, struct reader_stats *st,
                     struct fs_err *err)
{
    char *f[NCOLS];
    size_t cap = 0;
    int nf, rc = rd_header(in, header, err);
    if (rc < 0)
        return rc;
    while ((rc = rd_csv_next(in, f, NCOLS, &nf, err)) > 0) {
        struct rd_row r = {in->path, in->record, err};
        struct job j = {0};
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        if (nf != NCOLS)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d columns (%s), found %d", in->path,
                           r.line, NCOLS, header, nf);
        if ((rc = parse_row(&r, f, opt, tmp, st, &j)) < 0)
            break;
        if (rc == 1)
            continue;
        j.id = in->rows;
        j.ref_type = (int16_t)ref;
        xgrow(lines, &cap, tmp->n + 1, sizeof **lines);
        (*lines)[tmp->n] = r.line;
        workload_add(tmp, &j);
        rc = 1;
    }
    if (st)
        st->rows = in->rows;
    return rc;
}

/* Every row, then submit times measured from the earliest. */
static int read_rows(struct rd_lines *in, const struct reader_options *opt,
                     const struct gpu_catalog *cat, int ref, struct workload *tmp,
                     long long **lines, struct reader_stats *st, struct fs_err *err)
{
    (void)cat;
    int rc = read_each(in, opt, ref, tmp, lines, st, err);
    if (rc == 0 && tmp->n) {
        fs_time first = tmp->jobs[0].submit;
        for (size_t i = 1; i < tmp->n; i++)
            if (tmp->jobs[i].submit < first)
                first = tmp->jobs[i].submit;
        for (size_t i = 0; i < tmp->n; i++)
            tmp->jobs[i].submit -= first;
    }
    return rc;
}

int philly_read(const char *path, const struct reader_options *opt,
                const struct gpu_catalog *cat, struct workload *w,
                struct reader_stats *st, struct fs_err *err)
{
    return rd_read_jobs(path, opt, cat, PHILLY_REF_DEFAULT, "philly", read_rows, w, st, err);
}
