/* workload.h - the jobs a scenario runs, from a trace file or a generator.
 *
 * Native job CSV (documented in scenarios/README.md).  The first line is the
 * header, exactly:
 *
 *   id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type
 *
 * id         integer job id, unique in the file
 * submit_s   submit time, seconds since the scenario start (>= 0)
 * kind       train | finetune | infer | batch
 * team       team name (1-31 characters, no control characters)
 * gpus       GPUs requested (integer >= 1)
 * gpu_mem_gb memory needed per GPU, GB (>= 0; 0 = any)
 * allowed_types  catalog type names separated by '|'; empty = any
 * work_gpu_s work in reference GPU-seconds (> 0): the GPU-seconds the job
 *            needs on GPUs of ref_type
 * ref_type   catalog type the work is stated on
 *
 * The file is RFC 4180 CSV (quoted fields may hold commas, quotes and line
 * ends; io/readers_int.h rd_csv_next); the writer quotes only the fields
 * that need it.  Rows need not be sorted; the workload is sorted by
 * (submit, id) after loading.  Empty lines and lines starting with '#' are
 * skipped.
 *
 * The caller owns a workload and frees it with workload_free.
 */
#ifndef FS_SIM_WORKLOAD_H
#define FS_SIM_WORKLOAD_H

#include <stdio.h>

#include "../models/gpu.h"
#include "../sched/job.h"

#define WORKLOAD_MAX_TEAMS 65535
#define WORKLOAD_TEAM_MAX 32

struct workload {
    struct job *jobs;
    size_t n, cap;
    char **teams;     /* interned team names; job.team indexes this */
    size_t nteams, teams_cap;
    /* Private to workload.c: open-addressing hash of team names, each slot
     * 0 (empty) or a teams index + 1.  It only maps a name to the index
     * given in first-seen order, so it never affects determinism. */
    uint32_t *team_slots;
    size_t team_slots_cap;
};

void workload_init(struct workload *w);
void workload_free(struct workload *w);

/* Index of team name, added when new.  RET: index, or -1 when the table is
 * full (WORKLOAD_MAX_TEAMS). */
int workload_team(struct workload *w, const char *name);

/* Append a job (copied); placement fields are reset, and a milli of 0 means
 * whole GPUs (1000). */
struct job *workload_add(struct workload *w, const struct job *j);

/* Sort by (submit, id), stable. */
void workload_sort(struct workload *w);

/* Read a native job CSV into w (appending), then sort w (workload_sort).
 * RET: 0; FS_ENOINPUT when the file cannot be opened or read; FS_EDATA for a
 * bad header, a bad field (message "FILE:LINE: column NAME: ..."), a
 * duplicate id (against the file's earlier rows and the jobs already in w;
 * checked once every row has parsed), a line over 64 KiB or with a NUL byte,
 * or a file without jobs.  On failure w holds what it held before the call. */
int workload_read_native(const char *path, const struct gpu_catalog *cat,
                         struct workload *w, struct fs_err *err);

/* Write w as a native job CSV to f (the inverse of workload_read_native:
 * reading the output back gives the same jobs, bit for bit, for submit
 * times below 2^53 us, about 285 years).  f is flushed, not closed.
 * RET: 0; FS_ECANTCREAT on a write error; FS_EINTERNAL when a job's team or
 * ref_type does not index w's teams or cat (nothing sensible to write);
 * FS_EINTERRUPTED when a signal stopped it (base/signals.h). */
int workload_write_native(FILE *f, const struct workload *w, const struct gpu_catalog *cat);

#define GEN_MAX_CHOICES 32

/* A synthetic workload: Poisson arrivals, lognormal per-GPU durations, and
 * discrete distributions of GPU counts, kinds and teams - all drawn from GSL
 * distributions on separate RNG streams (base/rng.h). */
struct gen_spec {
    int64_t jobs;               /* how many jobs */
    double arrivals_per_hour;   /* Poisson rate */
    double duration_median_s;   /* per-GPU run time on ref_type, median */
    double duration_sigma;      /* lognormal sigma (of ln seconds) */
    double duration_max_s;      /* draws are capped here (0: no cap) */
    int ncounts;
    int32_t gpu_counts[GEN_MAX_CHOICES];
    double gpu_weights[GEN_MAX_CHOICES];
    double kind_weights[JOB_KIND_COUNT];
    int nteams;
    char team_names[GEN_MAX_CHOICES][WORKLOAD_TEAM_MAX];
    double team_weights[GEN_MAX_CHOICES];
    int32_t ref_type;           /* catalog index */
};

/* Append spec->jobs generated jobs (ids 1..jobs) to w.  Job i's work is
 * gpus x duration.  Same spec and seed: the same jobs, bit for bit.
 * Inter-arrival gaps are exponential with mean 3600 / arrivals_per_hour s,
 * the first job arriving one gap after time 0; per-GPU durations are
 * lognormal (median, sigma), capped at duration_max_s and at least 1 s.
 * The spec must be valid (the scenario loader checks it): jobs >= 0, rate,
 * median > 0, sigma >= 0, max >= 0, 1 <= ncounts, nteams <= GEN_MAX_CHOICES,
 * each weight list non-negative with a positive sum, counts >= 1; an
 * invalid spec is a programming error and aborts with a message. */
void workload_generate(const struct gen_spec *spec, uint64_t seed, struct workload *w);

#endif
