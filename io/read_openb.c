/* read_openb.c - the Alibaba GPU cluster trace v2023 ("openb"): pod lists
 * and node lists (github.com/alibaba/clusterdata, cluster-trace-gpu-v2023).
 *
 * Pod list, the full form (11 columns):
 *   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
 *   creation_time,deletion_time,scheduled_time
 * and the short form of the multigpuNN files (the first 5 columns).
 *
 * One job per pod:
 *   id        the number ending the pod name ("openb-pod-0042" -> 42), the
 *             pod's row number in the shipped files; a name without one
 *             takes the row number (0 for the first pod)
 *   submit    creation_time (seconds from the trace start); 0 in the short
 *             form, which has no times
 *   gpus      num_gpu (0 = a CPU-only pod)
 *   milli     gpu_milli for a single-GPU pod (1..1000), else whole GPUs
 *   cpu_milli, mem_mib   the pod's requests
 *   allowed   gpu_spec: '|'-separated openb models (openb_gpu_type), empty
 *             = any
 *   team      qos (LS, BE, Burstable, Guaranteed); the short form, and an
 *             empty qos, use reader_options.team or "openb"
 *   kind      batch
 *   work      run time x max(num_gpu, 1) GPU-seconds on the reference type
 *             (default g2, the type of most of the trace's GPUs): the run
 *             time is deletion_time - scheduled_time, or for a pod never
 *             scheduled (Pending, scheduled_time empty) deletion_time -
 *             creation_time, the time it stayed in the trace; at least 1 s,
 *             since work must be positive.  The short form has no times:
 *             every pod runs OPENB_DEFAULT_RUN_S.  The FGD fill experiment
 *             ignores run times altogether.
 * pod_phase is not used (a Pending pod is still a pod that asked for GPUs).
 */
#include "readers_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Run time of a pod in the short form, which has no times. */
#define OPENB_DEFAULT_RUN_S 3600

static const char hdr_full[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                               "pod_phase,creation_time,deletion_time,scheduled_time";
static const char hdr_short[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";
static const char hdr_nodes[] = "sn,cpu_milli,memory_mib,gpu,model";

enum { P_NAME, P_CPU, P_MEM, P_GPUS, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE,
       P_SCHED, P_NCOLS, P_NCOLS_SHORT = P_SPEC };
static const char *const pod_cols[P_NCOLS] = {
    "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
    "pod_phase", "creation_time", "deletion_time", "scheduled_time",
};

/* openb's model names and the catalog types they stand for (models/data/
 * gpus.json; G1-G3 are undisclosed and their entries are assumptions). */
static const struct {
    const char *model, *type;
} openb_models[] = {
    {"T4", "t4"}, {"P100", "p100"}, {"V100M16", "v100m16"}, {"V100M32", "v100m32"},
    {"A10", "a10"}, {"G1", "g1"}, {"G2", "g2"}, {"G3", "g3"},
};

int openb_gpu_type(const struct gpu_catalog *cat, const char *model)
{
    for (size_t i = 0; i < FS_ARRAY_LEN(openb_models); i++)
        if (strcasecmp(model, openb_models[i].model) == 0)
            return gpu_catalog_find(cat, openb_models[i].type);
    return -1;
}

/* A model name of column col as a catalog type. */
static int model_type(const struct rd_row *r, const char *col, const char *model,
                      const struct gpu_catalog *cat, int *out)
{
    char show[48], list[128];
    if (!*model)
        return rd_fail(r, col, "empty GPU model name");
    if ((*out = openb_gpu_type(cat, model)) >= 0)
        return 0;
    size_t len = 0;
    for (size_t i = 0; i < FS_ARRAY_LEN(openb_models); i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                openb_models[i].model);
    for (size_t i = 0; i < FS_ARRAY_LEN(openb_models); i++)
        if (strcasecmp(model, openb_models[i].model) == 0)
            return rd_fail(r, col, "GPU model %s needs catalog type \"%s\", which the catalog "
                           "lacks", openb_models[i].model, openb_models[i].type);
    return rd_fail(r, col, "unknown GPU model \"%s\" (openb models: %s)", rd_show(model, show),
                   list);
}

static int parse_spec(const struct rd_row *r, char *s, const struct gpu_catalog *cat,
                      uint64_t *allowed)
{
    *allowed = 0;
    if (!*s)
        return 0;
    for (char *tok = s, *bar; tok; tok = bar ? bar + 1 : NULL) {
        int t = -1, rc;
        if ((bar = strchr(tok, '|')))
            *bar = '\0';
        if ((rc = model_type(r, pod_cols[P_SPEC], tok, cat, &t)) < 0)
            return rc;
        *allowed |= 1ULL << t;
    }
    return 0;
}

/* The number a pod name ends with, or -1. */
static int64_t name_number(const char *name)
{
    size_t len = strlen(name), d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || len - d > 15)
        return -1;
    return strtoll(name + d, NULL, 10);
}

/* The times of a full-form row: submit and run time in seconds. */
static int parse_times(const struct rd_row *r, char **f, int64_t *submit, int64_t *run)
{
    const int64_t max = 9000000000000LL; /* ~285,000 years, what fs_time holds */
    int64_t create, del, sched = -1;
    int rc;
    if ((rc = rd_int(r, pod_cols[P_CREATE], f[P_CREATE], 0, max, &create)) ||
        (rc = rd_int(r, pod_cols[P_DELETE], f[P_DELETE], 0, max, &del)) ||
        (*f[P_SCHED] && (rc = rd_int(r, pod_cols[P_SCHED], f[P_SCHED], 0, max, &sched))))
        return rc;
    if (sched >= 0 && sched < create)
        return rd_fail(r, pod_cols[P_SCHED], "%lld is before creation_time %lld",
                       (long long)sched, (long long)create);
    int64_t start = sched >= 0 ? sched : create;
    if (del < start)
        return rd_fail(r, pod_cols[P_DELETE], "%lld is before %s %lld", (long long)del,
                       sched >= 0 ? "scheduled_time" : "creation_time", (long long)start);
    *submit = create;
    *run = del - start > 0 ? del - start : 1;
    return 0;
}

/* One pod row (split into f) as a job. */
static int parse_pod(const struct rd_row *r, char **f, int ncols, int64_t row,
                     const struct reader_options *opt, const struct gpu_catalog *cat,
                     struct workload *w, struct job *j)
{
    int64_t cpu, mem, gpus, milli, submit = 0, run = OPENB_DEFAULT_RUN_S;
    int rc;
    if (!*f[P_NAME])
        return rd_fail(r, pod_cols[P_NAME], "empty pod name");
    if ((rc = rd_int(r, pod_cols[P_CPU], f[P_CPU], 0, INT32_MAX, &cpu)) ||
        (rc = rd_int(r, pod_cols[P_MEM], f[P_MEM], 0, INT32_MAX, &mem)) ||
        (rc = rd_int(r, pod_cols[P_GPUS], f[P_GPUS], 0, RD_GPUS_LIMIT, &gpus)) ||
        (rc = rd_int(r, pod_cols[P_MILLI], f[P_MILLI], 0, 1000, &milli)))
        return rc;
    if (gpus == 1 && milli == 0)
        return rd_fail(r, pod_cols[P_MILLI], "a pod of one GPU needs a share of 1..1000, got 0");
    const char *team = opt && opt->team ? opt->team : "openb";
    if (ncols == P_NCOLS) {
        if ((rc = parse_spec(r, f[P_SPEC], cat, &j->allowed)) ||
            (rc = parse_times(r, f, &submit, &run)))
            return rc;
        if (*f[P_QOS])
            team = f[P_QOS];
    }
    int t = rd_team(r, pod_cols[P_QOS], team, w);
    if (t < 0)
        return t;
    int64_t id = name_number(f[P_NAME]);
    j->id = id >= 0 ? id : row;
    j->submit = submit * FS_USEC;
    j->kind = JOB_BATCH;
    j->team = (uint16_t)t;
    j->gpus = (int32_t)gpus;
    j->milli = gpus == 1 ? (int16_t)milli : 1000;
    j->cpu_milli = (int32_t)cpu;
    j->mem_mib = (int32_t)mem;
    j->work = (double)run * (double)(gpus > 1 ? gpus : 1);
    return 0;
}

static int read_header(struct rd_lines *in, const char *want1, const char *want2,
                       int *which, struct fs_err *err)
{
    char s[1024];
    int rc = rd_csv_header(in, s, sizeof s, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return fs_fail(err, FS_EDATA, "%s:1: empty file; expected the header \"%s\"", in->path,
                       want1);
    *which = strcmp(s, want1) == 0 ? 1 : want2 && strcmp(s, want2) == 0 ? 2 : 0;
    if (!*which)
        return fs_fail(err, FS_EDATA, "%s:1: bad header; expected \"%s\"%s%s%s", in->path, want1,
                       want2 ? " or \"" : "", want2 ? want2 : "", want2 ? "\"" : "");
    return 0;
}

static int read_pods(struct rd_lines *in, const struct reader_options *opt,
                     const struct gpu_catalog *cat, int ref, struct workload *tmp,
                     long long **lines, struct reader_stats *st, struct fs_err *err)
{
    int which, rc;
    if ((rc = read_header(in, hdr_full, hdr_short, &which, err)) < 0)
        return rc;
    int ncols = which == 1 ? P_NCOLS : P_NCOLS_SHORT;
    size_t cap = 0;
    char *f[P_NCOLS];
    int nf;
    while ((rc = rd_csv_next(in, f, P_NCOLS, &nf, err)) > 0) {
        struct rd_row r = {in->path, in->record, err};
        if ((rc = rd_count_row(in, err)) < 0)
            return rc;
        if (nf != ncols)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d columns (%s), found %d", in->path,
                           r.line, ncols, ncols == P_NCOLS ? hdr_full : hdr_short, nf);
        struct job j = {0};
        if ((rc = parse_pod(&r, f, ncols, in->rows - 1, opt, cat, tmp, &j)) < 0)
            return rc;
        j.ref_type = (int16_t)ref;
        xgrow(lines, &cap, tmp->n + 1, sizeof **lines);
        (*lines)[tmp->n] = r.line;
        workload_add(tmp, &j);
    }
    if (st)
        st->rows = in->rows;
    return rc;
}

int openb_read_pods(const char *path, const struct reader_options *opt,
                    const struct gpu_catalog *cat, struct workload *w,
                    struct reader_stats *st, struct fs_err *err)
{
    return rd_read_jobs(path, opt, cat, OPENB_REF_DEFAULT, "openb", read_pods, w, st, err);
}

/* ---- node lists ----------------------------------------------------------- */

enum { N_SN, N_CPU, N_MEM, N_GPUS, N_MODEL, N_NCOLS };
static const char *const node_cols[N_NCOLS] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

/* One node row as a group of one node; *skip set for a node without GPUs. */
static int parse_node(const struct rd_row *r, char **f, const struct gpu_catalog *cat,
                      struct fleet_group *g, int *skip)
{
    int64_t cpu, mem, gpus;
    int rc, t = -1;
    if (!*f[N_SN])
        return rd_fail(r, node_cols[N_SN], "empty node name");
    if ((rc = rd_int(r, node_cols[N_CPU], f[N_CPU], 0, INT32_MAX, &cpu)) ||
        (rc = rd_int(r, node_cols[N_MEM], f[N_MEM], 0, INT32_MAX, &mem)) ||
        (rc = rd_int(r, node_cols[N_GPUS], f[N_GPUS], 0, CLUSTER_MAX_NODE_GPUS, &gpus)))
        return rc;
    *skip = gpus == 0;
    if (gpus == 0)
        return 0;
    if ((rc = model_type(r, node_cols[N_MODEL], f[N_MODEL], cat, &t)) < 0)
        return rc;
    *g = (struct fleet_group){.type = t, .nodes = 1, .gpus_per_node = (int32_t)gpus,
                              .cpu_milli = (int32_t)cpu, .mem_mib = (int32_t)mem};
    return 0;
}

static int read_nodes(struct rd_lines *in, const struct gpu_catalog *cat,
                      struct fleet_group **groups, int *n, int *skipped, struct fs_err *err)
{
    size_t cap = 0;
    long long nodes = 0;
    char *f[N_NCOLS];
    int nf, which, rc = read_header(in, hdr_nodes, NULL, &which, err);
    while (rc == 0 && (rc = rd_csv_next(in, f, N_NCOLS, &nf, err)) > 0) {
        struct rd_row r = {in->path, in->record, err};
        struct fleet_group g;
        int skip = 0;
        rc = 0;
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        if (nf != N_NCOLS)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d columns (%s), found %d", in->path,
                           r.line, N_NCOLS, hdr_nodes, nf);
        if ((rc = parse_node(&r, f, cat, &g, &skip)) < 0)
            break;
        *skipped += skip;
        if (skip)
            continue;
        if (++nodes > 1000000)
            return fs_fail(err, FS_EDATA, "%s:%lld: more than 1000000 GPU nodes", in->path, r.line);
        struct fleet_group *last = *n ? &(*groups)[*n - 1] : NULL;
        if (last && last->type == g.type && last->gpus_per_node == g.gpus_per_node &&
            last->cpu_milli == g.cpu_milli && last->mem_mib == g.mem_mib) {
            last->nodes++;
            continue;
        }
        xgrow(groups, &cap, (size_t)*n + 1, sizeof **groups);
        (*groups)[(*n)++] = g;
    }
    if (rc == 0 && *n == 0)
        rc = fs_fail(err, FS_EDATA, "%s: no GPU nodes", in->path);
    return rc;
}

int openb_read_nodes(const char *path, const struct gpu_catalog *cat,
                     struct fleet_group **groups, int *n, int *skipped, struct fs_err *err)
{
    struct rd_lines in;
    int skip_count = 0;
    *groups = NULL;
    *n = 0;
    int rc = rd_open(&in, path, err);
    if (rc == 0)
        rc = read_nodes(&in, cat, groups, n, &skip_count, err);
    rd_close(&in);
    if (rc) {
        free(*groups);
        *groups = NULL;
        *n = 0;
    }
    if (skipped)
        *skipped = rc ? 0 : skip_count;
    return rc;
}
