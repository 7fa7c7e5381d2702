/* job_types.h - throughputs measured per job type and GPU type, read into
 * the throughput model as workloads with "measured" figures
 * (models/perf.h), so that a job of a named type runs at its measured rate
 * on each GPU type and the round-based policies see the whole matrix.
 *
 * The format is Gavel's simulation_throughputs.json (stanford-futuredata/
 * gavel, MIT; Narayanan et al., OSDI 2020):
 *   {WORKER: {"('MODEL', SCALE)": {"null": STEPS_PER_S, ...}, ...}, ...}
 * Only single-GPU entries (SCALE 1) and their isolated figure ("null") are
 * read; co-location figures, other scale factors and workers the caller
 * does not map are ignored.  Each MODEL becomes a workload named by
 * job_type_name, shaped like workload `like` on GPU types not measured.
 */
#ifndef FS_IO_JOB_TYPES_H
#define FS_IO_JOB_TYPES_H

#include <stdint.h>

#include "../models/perf.h"
#include "workload.h"

#define JOB_TYPE_NAME_MAX 32

/* Gavel's MODEL as a job type name short enough for a team name:
 * "(batch size N)" becomes "bsN" ("ResNet-18 (batch size 64)" ->
 * "ResNet-18 bs64"); other names are kept.  out holds JOB_TYPE_NAME_MAX
 * bytes.  RET: 0, or -1 when the name is still too long. */
int job_type_name(const char *model, char *out);

/* The matrix as read: per job type, its name and its throughput on each
 * catalog type (0 where not measured).  Free with job_types_free. */
struct job_types {
    char (*name)[JOB_TYPE_NAME_MAX];
    double (*thr)[GPU_MAX_TYPES];
    size_t n, cap_name, cap_thr;
};

/* Gavel's three workers as the catalog names them (the Figure 8 fleet):
 * what `fleetsim import gavel` maps them to. */
#define JOB_TYPES_GAVEL_WORKERS {"v100", "p100", "k80"}
#define JOB_TYPES_GAVEL_GPUS {"v100m16", "p100", "k80"}

/* Read path into *jt (zeroed first), worker workers[k] as catalog type
 * types[k] (k < n).  RET: as job_types_load_gavel; *jt is empty on error. */
int job_types_read_gavel(const char *path, const char *const *workers, const int32_t *types, int n,
                         struct job_types *jt, struct fs_err *err);
void job_types_free(struct job_types *jt);

/* The index of job type name in jt, or -1. */
long job_types_find(const struct job_types *jt, const char *name);

/* Read path, taking worker workers[k] as catalog type types[k] (k < n), and
 * add one workload per job type to pm.  RET: 0; FS_ENOINPUT when path
 * cannot be read; FS_EDATA for malformed JSON, a mapped worker missing, a
 * figure that is not a positive number, or a model full - each naming
 * path and the JSON place. */
int job_types_load_gavel(const char *path, const char *const *workers, const int32_t *types, int n,
                         struct perf_model *pm, int like, struct fs_err *err);

/* A trace that counts work in steps (gavel): each job of w, whose team
 * names its job type, gets its work divided by that type's measured steps
 * per second on its reference type, read from path (Gavel's
 * simulation_throughputs.json) with Gavel's workers as the catalog types
 * of its Figure 8 fleet (JOB_TYPES_GAVEL_GPUS), so that work is in
 * GPU-seconds.  trace and catalog name the files in messages.  RET: 0, or
 * FS_E* with err set (a type the catalog lacks, a job type unmeasured). */
int job_types_steps_to_seconds(const char *path, const char *trace, const struct gpu_catalog *cat,
                               const char *catalog, struct workload *w, struct fs_err *err);

#endif
