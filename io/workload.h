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
    char **models;    /* interned model names; job_spec.model is 1 + an index */
    size_t nmodels, models_cap;
    struct job_spec *specs; /* the jobs' model specs; job.spec is 1 + an index */
    size_t nspecs, specs_cap;
};

void workload_init(struct workload *w);
void workload_free(struct workload *w);

/* Index of team name, added when new.  RET: index, or -1 when the table is
 * full (WORKLOAD_MAX_TEAMS). */
int workload_team(struct workload *w, const char *name);

/* job_spec.model for model name, added when new.  RET: 1 + its index in
 * w->models, or -1 when the table is full (WORKLOAD_MAX_TEAMS). */
int workload_model(struct workload *w, const char *name);

/* job.spec for a copy of sp.  RET: 1 + its index in w->specs. */
uint32_t workload_add_spec(struct workload *w, const struct job_spec *sp);

/* j's model spec, or NULL when it was given none. */
static inline struct job_spec *workload_spec(const struct workload *w, const struct job *j)
{
    return j->spec ? &w->specs[j->spec - 1] : NULL;
}

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

/* What a job class does with its model (scenarios/README.md, "classes"):
 * its job kind (the throughput profile) and method (the memory rule). */
enum gen_class_kind {
    GEN_TRAIN,          /* pre-training: kind train, method train */
    GEN_FINETUNE_FULL,  /* full fine-tuning: kind finetune, method train */
    GEN_LORA,           /* kind finetune, method lora */
    GEN_QLORA,          /* kind finetune, method qlora */
    GEN_INFER_BATCH,    /* offline inference: kind infer, method infer */
    GEN_SERVICE,        /* a serving deployment of fixed life: kind infer,
                           method infer */
    GEN_CLASS_KINDS
};

/* "train", "finetune-full", "lora", "qlora", "infer-batch", "service". */
extern const char *const gen_class_kind_names[GEN_CLASS_KINDS];

/* A job class: a model and the GPU counts and durations that go with it.
 * Every job drawn from it carries the model, and its memory need per GPU
 * comes from the one memory rule (workload_mem_gb). */
struct gen_class {
    char name[WORKLOAD_TEAM_MAX];
    int kind;                   /* enum gen_class_kind */
    double weight;              /* relative share of the jobs */
    char model[WORKLOAD_TEAM_MAX];
    double params_b;            /* parameters, billions, > 0 */
    int precision;              /* enum llm_precision of the weights */
    int layers, hidden;         /* 0: estimated from params_b */
    int ncounts;
    int32_t gpu_counts[GEN_MAX_CHOICES];
    double gpu_weights[GEN_MAX_CHOICES];
    double duration_median_s, duration_sigma, duration_max_s;
    uint64_t allowed;           /* catalog types; 0 = any */
};

#define GEN_MAX_CLASSES 32

/* A synthetic workload: Poisson arrivals (optionally diurnal), and either
 * job classes (nclasses > 0: a class, then its GPU count and duration) or
 * the independent draws of a GPU count, a kind and one duration
 * distribution (nclasses == 0) - all drawn from GSL distributions on
 * separate RNG streams (base/rng.h). */
struct gen_spec {
    int64_t jobs;               /* how many jobs */
    double arrivals_per_hour;   /* Poisson rate (the mean, when diurnal) */
    double diurnal_amplitude;   /* 0: constant rate; else in (0, 1] */
    double diurnal_peak_h;      /* hour of the day the rate peaks, [0, 24) */
    double duration_median_s;   /* per-GPU run time on ref_type, median */
    double duration_sigma;      /* lognormal sigma (of ln seconds) */
    double duration_max_s;      /* draws are capped here (0: no cap) */
    int ncounts;
    int32_t gpu_counts[GEN_MAX_CHOICES];
    double gpu_weights[GEN_MAX_CHOICES];
    double kind_weights[JOB_KIND_COUNT];
    int nclasses;
    struct gen_class classes[GEN_MAX_CLASSES];
    int nteams;
    char team_names[GEN_MAX_CHOICES][WORKLOAD_TEAM_MAX];
    double team_weights[GEN_MAX_CHOICES];
    int32_t ref_type;           /* catalog index */
};

/* Per-GPU memory (GB) a job of model spec sp on gpus GPUs needs by the one
 * rule, mem_llm_need of models/memory.h, for its model (params_b,
 * precision, layers, hidden) and method; 0 when sp is NULL.  The scenario
 * loader and the generator both set gpu_mem_gb from it. */
double workload_mem_gb(const struct job_spec *sp, int32_t gpus);

/* The model spec of class c's jobs, model being its name's index
 * (workload_model; 0: none). */
struct job_spec gen_class_spec(const struct gen_class *c, int model);

/* Job j as class c draws it with gpus GPUs: kind, allowed types and memory
 * need (of c's spec sp); the rest of j, spec included, is left as it was. */
void gen_class_job(const struct gen_class *c, int32_t gpus, const struct job_spec *sp, struct job *j);

/* Append spec->jobs generated jobs (ids 1..jobs) to w.  Job i's work is
 * gpus x duration.  Same spec and seed: the same jobs, bit for bit.
 * Inter-arrival gaps are exponential with mean 3600 / arrivals_per_hour s,
 * the first job arriving one gap after time 0.  With a diurnal amplitude a
 * the rate at time t is arrivals_per_hour x (1 + a cos(2 pi (t - peak) /
 * 24 h)), drawn by thinning (Lewis and Shedler 1979): candidates at the
 * peak rate, each kept with probability rate(t) / peak rate.  Durations
 * are lognormal (median, sigma), capped at their max and at least 1 s.
 * The spec must be valid (the scenario loader checks it): jobs >= 0, rate,
 * median > 0, sigma >= 0, max >= 0, 1 <= ncounts, nteams <= GEN_MAX_CHOICES,
 * each weight list non-negative with a positive sum, counts >= 1; an
 * invalid spec is a programming error and aborts with a message. */
void workload_generate(const struct gen_spec *spec, uint64_t seed, struct workload *w);

/* The mean of min(X, max) for X lognormal with median and sigma (max <= 0:
 * no cap): what a duration draw averages, for sizing arrival rates. */
double gen_duration_mean(double median, double sigma, double max);

#endif
