/* job.h - a unit of work the scheduler places: what it asks for, and where
 * and when it ran.  Knows nothing of the engine, the clock or files.
 */
#ifndef FS_SCHED_JOB_H
#define FS_SCHED_JOB_H

#include "../base/base.h"

/* A whole GPU, in the thousandths that GPU shares are counted in. */
#define GPU_MILLI 1000

enum job_kind { JOB_TRAIN, JOB_FINETUNE, JOB_INFER, JOB_BATCH, JOB_KIND_COUNT };

/* "train", "finetune", "infer", "batch". */
const char *job_kind_name(enum job_kind k);
/* RET: the kind called name, or -1. */
int job_kind_parse(const char *name);

/* What a job given as a model spec does with its model. */
enum job_method { JOB_METHOD_NONE, JOB_METHOD_TRAIN, JOB_METHOD_LORA, JOB_METHOD_INFER, JOB_METHOD_QLORA };

/* "train", "lora", "infer", "qlora" ("" for none). */
const char *job_method_name(enum job_method m);
/* RET: the method called name, or -1. */
int job_method_parse(const char *name);

/* Quality of service: a higher class may evict a lower one when the policy
 * preempts (sched.h). */
enum job_class { JOB_BEST_EFFORT, JOB_STANDARD, JOB_LATENCY, JOB_CLASS_COUNT };

/* "best-effort", "standard", "latency". */
const char *job_class_name(enum job_class c);
/* RET: the class called name, or -1. */
int job_class_parse(const char *name);

enum job_state {
    JOB_FUTURE,   /* not submitted yet */
    JOB_QUEUED,   /* submitted, waiting for GPUs */
    JOB_RUNNING,
    JOB_DONE,
};

/* A job given as a model: the loader derives its memory (and its work,
 * when not given) through the models.  Kept beside the jobs (io/workload.h)
 * rather than in each: most jobs have none, and a million-job run keeps
 * every job. */
struct job_spec {
    double params_b;     /* model parameters, billions, > 0 */
    double tokens;       /* tokens trained on or processed; 0 = not given */
    uint16_t model;      /* 1 + index into the workload's model names; 0 = none */
    uint16_t layers;     /* the model's shape; 0 = estimated from params_b */
    uint16_t hidden;     /*   (models/memory.h mem_shape) */
    uint8_t method;      /* enum job_method */
    uint8_t precision;   /* the weights' precision: 1 + enum llm_precision
                            (models/llm.h); 0 = not given (BF16) */
};

struct job {
    /* Fields are ordered by size so that none pads: a million-job run keeps
     * a million of these (docs/benchmarks.md, bytes per job). */
    int64_t id;          /* the trace's job id */
    fs_time submit;
    double gpu_mem_gb;   /* memory needed on each GPU; 0 = any */
    uint64_t allowed;    /* bit i set: catalog type i allowed; 0 = any */
    double work;         /* reference GPU-seconds (on ref_type) */
    /* The trace's run-time limit (SWF requested time, Slurm Timelimit):
     * the estimate backfilling plans with (0: none given; sched/backfill.c
     * then estimates), and, when kill_at_limit, a hard limit: the engine
     * ends the job at it (timed_out set) as the trace's scheduler did. */
    fs_time limit;

    /* Placement, set by the scheduler when the job starts. */
    union {
        uint64_t gpu_mask; /* nnodes 1: which of its node's GPUs (bit i) */
        int32_t *gang;     /* nnodes > 1: the node ids, owned (job_drop_gang) */
    };
    fs_time start, end;  /* -1 until known; start is the first start */
    /* Preemption (the engine keeps these): the current run segment began at
     * seg; ran is the time run in earlier segments; evicted (below) counts
     * them. */
    fs_time seg, ran;
    int32_t node;        /* first (or only) node */
    int32_t nnodes;      /* > 1 for a gang of whole nodes */

    int32_t gpus;        /* GPUs requested: 0 (CPU only), 1..node size, or
                            whole nodes */
    int32_t cpu_milli;   /* CPU millicores needed on the node; 0 = any */
    int32_t mem_mib;     /* host memory needed on the node, MiB; 0 = any */
    int32_t qclass;      /* while queued: its placement class (sched.c) */
    uint32_t spec;       /* its model spec: 1 + an index into the workload's
                            specs (io/workload.h); 0 = none */

    int16_t type;        /* catalog index (< GPU_MAX_TYPES), -1 before placement */
    int16_t ref_type;    /* catalog index the work is stated on */
    int16_t workload;    /* throughput profile (models/perf), set by the loader */
    int16_t milli;       /* share of each GPU in thousandths: 1000 = whole
                            GPUs; < 1000 only with gpus == 1 (GPU sharing) */
    uint16_t team;       /* index into the workload's team names */
    uint16_t svc;        /* 0: a batch job; k: a replica of service k - 1 */
    uint8_t kind;        /* enum job_kind */
    uint8_t state;       /* enum job_state */
    uint8_t qos;         /* enum job_class, from the kind (scenario $.kinds) */
    uint8_t urgent;      /* a replica submitted while its service is short of
                            capacity: it may preempt (sched/preempt.c) */
    uint8_t evicted;     /* times evicted, saturating at 255 (the engine
                            asks only whether it was) */
    uint8_t kill_at_limit;
    uint8_t timed_out;
    /* work is a measured run time x GPUs (an SWF or Slurm log): the run
     * already paid its multi-GPU communication, so the engine does not
     * apply the throughput model's scaling (models/perf.h) again. */
    uint8_t measured;
};

/* GPUs j holds while it runs, a share counting its part. */
static inline double job_gpus(const struct job *j) { return (double)j->gpus * j->milli / GPU_MILLI; }

/* Time j has run by t (all its segments; t no earlier than its last
 * state change). */
static inline fs_time job_ran(const struct job *j, fs_time t)
{
    return j->state == JOB_RUNNING && t > j->seg ? j->ran + (t - j->seg) : j->ran;
}

/* Free j's gang when it has one, and clear gang and gpu_mask. */
void job_drop_gang(struct job *j);

/* Set the placement and timing fields to "not placed". */
void job_reset_placement(struct job *j);

#endif
