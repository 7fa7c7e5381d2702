/* read_gavel.c - the job list of Gavel's simulator (stanford-futuredata/
 * gavel, scheduler/ --trace_file and --output_trace_file_name), one job a
 * line, ten tab-separated columns and no header:
 *
 *   job_type command working_directory num_steps_arg needs_data_dir
 *   total_steps scale_factor priority_weight SLO arrival_time
 *
 * One job per line:
 *   id      the line's number among the data lines, from 0 - Gavel's own
 *           job ids when it replays the list
 *   submit  arrival_time, seconds
 *   kind    train
 *   team    the job type, as io/job_types.h names it ("ResNet-18 bs64"):
 *           it selects the job's row of the throughput matrix
 *           ($.workload.job_types)
 *   gpus    scale_factor
 *   work    total_steps, in steps (the reader's steps flag): the scenario
 *           loader divides them by the type's measured steps per second
 *           on the reference type (default v100m16) to get reference
 *           GPU-seconds
 * command, working_directory and num_steps_arg must be present and are
 * unused; needs_data_dir is 0 or 1; priority_weight > 0 and SLO (-1 for
 * none) must be numbers and are unused: Gavel's LAS runs weigh every job 1.
 */
#include "readers_int.h"

#include <stdlib.h>
#include <string.h>

#include "job_types.h"

enum { C_TYPE, C_CMD, C_DIR, C_STEPS_ARG, C_DATA, C_STEPS, C_SCALE, C_WEIGHT, C_SLO, C_ARRIVAL, NCOLS };
static const char *const cols[NCOLS] = {"job_type", "command", "working_directory", "num_steps_arg",
                                        "needs_data_dir", "total_steps", "scale_factor",
                                        "priority_weight", "SLO", "arrival_time"};

static int parse_row(const struct rd_row *r, char **f, struct workload *w, struct job *j)
{
    int64_t steps, scale, data;
    double weight, slo, arrival;
    char name[JOB_TYPE_NAME_MAX];
    int rc;
    if ((rc = rd_int(r, cols[C_DATA], f[C_DATA], 0, 1, &data)) ||
        (rc = rd_int(r, cols[C_STEPS], f[C_STEPS], 1, (int64_t)1 << 50, &steps)) ||
        (rc = rd_int(r, cols[C_SCALE], f[C_SCALE], 1, RD_GPUS_LIMIT, &scale)) ||
        (rc = rd_num(r, cols[C_WEIGHT], f[C_WEIGHT], 1e-9, 1e9, &weight)) ||
        (rc = rd_num(r, cols[C_SLO], f[C_SLO], -1, 1e12, &slo)) ||
        (rc = rd_num(r, cols[C_ARRIVAL], f[C_ARRIVAL], 0, 3.1e9, &arrival)))
        return rc;
    if (!*f[C_TYPE] || job_type_name(f[C_TYPE], name))
        return rd_fail(r, cols[C_TYPE], "want a job type name of 1-%d characters", JOB_TYPE_NAME_MAX - 1);
    int t = rd_team(r, cols[C_TYPE], name, w);
    if (t < 0)
        return t;
    j->submit = fs_from_seconds(arrival);
    j->kind = JOB_TRAIN;
    j->team = (uint16_t)t;
    j->gpus = (int32_t)scale;
    j->work = (double)steps;
    return 0;
}

static int read_rows(struct rd_lines *in, const struct reader_options *opt,
                     const struct gpu_catalog *cat, int ref, struct workload *tmp,
                     long long **lines, struct reader_stats *st, struct fs_err *err)
{
    (void)opt;
    (void)cat;
    char *s, *f[NCOLS];
    size_t cap = 0;
    int rc;
    while ((rc = rd_next(in, &s, err)) > 0) {
        struct rd_row r = {in->path, in->lineno, err};
        struct job j = {0};
        if (rd_blank(s))
            continue;
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        int nf = rd_split(s, '\t', f, NCOLS);
        if (nf != NCOLS)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d tab-separated columns (%s ... %s), "
                           "found %d", in->path, r.line, NCOLS, cols[0], cols[NCOLS - 1], nf);
        if ((rc = parse_row(&r, f, tmp, &j)) < 0)
            break;
        j.id = in->rows - 1;
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

int gavel_read(const char *path, const struct reader_options *opt, const struct gpu_catalog *cat,
               struct workload *w, struct reader_stats *st, struct fs_err *err)
{
    return rd_read_jobs(path, opt, cat, GAVEL_REF_DEFAULT, "gavel", read_rows, w, st, err);
}
