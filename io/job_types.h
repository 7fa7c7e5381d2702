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

#define JOB_TYPE_NAME_MAX 32

/* Gavel's MODEL as a job type name short enough for a team name:
 * "(batch size N)" becomes "bsN" ("ResNet-18 (batch size 64)" ->
 * "ResNet-18 bs64"); other names are kept.  out holds JOB_TYPE_NAME_MAX
 * bytes.  RET: 0, or -1 when the name is still too long. */
int job_type_name(const char *model, char *out);

/* Read path, taking worker workers[k] as catalog type types[k] (k < n), and
 * add one workload per job type to pm.  RET: 0; FS_ENOINPUT when path
 * cannot be read; FS_EDATA for malformed JSON, a mapped worker missing, a
 * figure that is not a positive number, or a model full - each naming
 * path and the JSON place. */
int job_types_load_gavel(const char *path, const char *const *workers, const int32_t *types, int n,
                         struct perf_model *pm, int like, struct fs_err *err);

#endif
