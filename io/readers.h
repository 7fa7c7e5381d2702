/* readers.h - trace readers, one file per format, selected by name from one
 * table.  Each turns a public trace into the jobs of a workload (or, for
 * request traces, a demand curve), mapping the trace's GPU models to catalog
 * types.  Every reader reports bad input as "FILE:LINE: column NAME: ..."
 * (or "FILE:LINE: ..." for a line as a whole), reads lines of at most 64 KiB
 * and at most 10,000,000 data rows, and never crashes on truncated, binary
 * or oversized files.  On failure the workload holds what it held before the
 * call.
 *
 * Formats (the readers' own files say more):
 *
 * native  the native job CSV (workload.h).
 * openb   Alibaba GPU cluster trace v2023 pod list (read_openb.c): one job
 *         per pod, id = the number ending the pod name, submit =
 *         creation_time, gpus = num_gpu (0 = CPU only), milli = gpu_milli
 *         for single-GPU pods, cpu_milli, mem_mib, allowed from gpu_spec,
 *         team = qos, kind batch; work = run time x max(num_gpu, 1) on the
 *         reference type (default g2).
 * philly  Microsoft Philly jobs (read_philly.c): submit = timestamp - the
 *         earliest timestamp, work = duration x num_gpus on the reference
 *         type (default p100), team = "vc" + cluster, kind train.
 * swf     Standard Workload Format (read_swf.c): processors as GPUs, work =
 *         run time x processors on the reference type (default
 *         a100-sxm-80), team = user<N> or group<N>, kind batch.
 * sacct   Slurm accounting records, sacct --parsable2 (read_sacct.c): one
 *         job per job record (steps, never-started and running jobs
 *         dropped), GPUs and their type from AllocTRES or ReqTRES, work =
 *         run time x GPUs on the mapped type, Timelimit a hard limit.
 * gavel   Gavel's simulator job list (read_gavel.c): id = line number from
 *         0, team = job type, gpus = scale factor, work = total steps (the
 *         reader's steps flag: the scenario's $.workload.job_types turns
 *         them into reference GPU-seconds), kind train.
 *
 * Rows a format defines as unusable (a Philly job of 0 GPUs, an SWF job
 * with an unknown run time) are dropped and counted in struct reader_stats,
 * by reason; anything malformed is an error.
 */
#ifndef FS_SIM_READERS_H
#define FS_SIM_READERS_H

#include "../sched/cluster.h"
#include "workload.h"

/* The catalog types the work of traces that name no GPU is stated on,
 * unless reader_options.ref_type says otherwise (each reader's file says
 * why). */
#define OPENB_REF_DEFAULT "g2"
#define PHILLY_REF_DEFAULT "p100"
#define SWF_REF_DEFAULT "a100-sxm-80"
#define GAVEL_REF_DEFAULT "v100m16"
#define SACCT_REF_DEFAULT "a100-sxm-80"

/* How a trace's own names map onto the catalog. */
struct reader_options {
    int32_t ref_type;      /* catalog type the work is stated on, for traces
                              that name no GPU (openb, philly, swf); -1 = the
                              format's default (trace_reader.default_ref) */
    const char *team;      /* team for rows without one; NULL = per format */
    const char *gpu_map;   /* sacct: CSV slurm_type,catalog_type; NULL: none */
    bool keep_cpu;         /* sacct: keep jobs without GPUs (else dropped) */
};

#define READER_MAX_DROPS 8
#define READER_REASON_MAX 96

/* What one read did.  Rows are data rows: not headers, comments or blank
 * lines. */
struct reader_stats {
    long long rows;        /* data rows read */
    long long jobs;        /* jobs appended */
    long long dropped;     /* rows dropped, all reasons together */
    int nreasons;
    struct {
        char why[READER_REASON_MAX];  /* "run time <= 0 or unknown" */
        long long count;
        long long first_line;         /* line of the first such row */
    } reasons[READER_MAX_DROPS];      /* in order of first occurrence; past
                                         READER_MAX_DROPS reasons the last
                                         slot counts "other reasons" */
};

struct trace_reader {
    const char *name;        /* "native", "openb", "philly", "swf" */
    const char *summary;
    const char *default_ref; /* catalog type the work is stated on unless
                                reader_options.ref_type says otherwise;
                                NULL: the trace names it (native) */
    /* Append the trace's jobs to w and sort w by (submit, id).  opt may be
     * NULL (defaults); st (may be NULL) is zeroed and filled.
     * RET: 0, FS_ENOINPUT, FS_EDATA (also when no job is left). */
    /* The work it reads is in steps of each job's type (team), not
     * reference GPU-seconds: only a scenario with a job-type throughput
     * table ($.workload.job_types) can run it. */
    bool steps;
    int (*read)(const char *path, const struct reader_options *opt,
                const struct gpu_catalog *cat, struct workload *w,
                struct reader_stats *st, struct fs_err *err);
};

/* NULL-terminated registry. */
extern const struct trace_reader *const trace_readers[];
/* RET: the reader called name, or NULL. */
const struct trace_reader *trace_reader_find(const char *name);
/* "native, openb, philly, swf" into buf (for messages).  RET: buf. */
const char *trace_reader_names(char *buf, size_t size);

/* The per-format readers the registry holds. */
int openb_read_pods(const char *path, const struct reader_options *opt,
                    const struct gpu_catalog *cat, struct workload *w,
                    struct reader_stats *st, struct fs_err *err);
int philly_read(const char *path, const struct reader_options *opt,
                const struct gpu_catalog *cat, struct workload *w,
                struct reader_stats *st, struct fs_err *err);
int gavel_read(const char *path, const struct reader_options *opt,
               const struct gpu_catalog *cat, struct workload *w,
               struct reader_stats *st, struct fs_err *err);
int swf_read(const char *path, const struct reader_options *opt,
             const struct gpu_catalog *cat, struct workload *w,
             struct reader_stats *st, struct fs_err *err);
int sacct_read(const char *path, const struct reader_options *opt,
               const struct gpu_catalog *cat, struct workload *w,
               struct reader_stats *st, struct fs_err *err);

/* The catalog type of an openb GPU model name ("V100M32", "g2"; case does
 * not matter), or -1. */
int openb_gpu_type(const struct gpu_catalog *cat, const char *model);

/* An openb node list (sn,cpu_milli,memory_mib,gpu,model) as fleet groups,
 * consecutive identical nodes (type, GPUs, CPU, memory) merged.  OUT
 * *groups (caller frees), *n.  Nodes with no GPU are skipped (counted in
 * *skipped; skipped may be NULL).  RET: 0, FS_ENOINPUT, FS_EDATA (also for
 * a list without GPU nodes). */
int openb_read_nodes(const char *path, const struct gpu_catalog *cat,
                     struct fleet_group **groups, int *n, int *skipped, struct fs_err *err);

/* A demand curve: tokens per fixed time bin (Azure LLM inference traces). */
struct demand_curve {
    double bin_s;
    size_t n;                               /* bins, up to the last request's */
    double *prompt_tokens, *output_tokens;  /* per bin */
    double total_prompt, total_output;      /* sums over the file (exact:
                                               integers below 2^53) */
    size_t requests;
};

/* Read an Azure LLM trace (TIMESTAMP,ContextTokens,GeneratedTokens; the
 * timestamp "2023-11-16 18:15:46.6805900", UTC) into bins of bin_s seconds
 * (0 < bin_s <= 1e9, rounded to whole nanoseconds) from its first row's
 * timestamp: request i falls in bin floor((t_i - t_0) / bin_s).  A row
 * earlier than the first is an error, as is a token count outside
 * 0..100,000,000 or a curve of more than 10,000,000 bins.  The caller owns
 * d and frees it with demand_curve_free (also after a failure).
 * RET: 0, FS_ENOINPUT, FS_EDATA, FS_EUSAGE (bad bin_s). */
int azure_read_demand(const char *path, double bin_s, struct demand_curve *d, struct fs_err *err);
void demand_curve_free(struct demand_curve *d);

/* d as CSV on f: time_s,prompt_tokens,output_tokens, a row a bin; the
 * times as the shortest decimal that reads back exactly. */
void demand_curve_write(FILE *f, const struct demand_curve *d);

#endif
