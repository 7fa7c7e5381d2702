/* readers.h - trace readers, one file per format, selected by name from one
 * table.  Each turns a public trace into the jobs of a workload (or, for
 * request traces, a demand curve), mapping the trace's GPU models to catalog
 * types.  Every reader reports bad input as "FILE:LINE: column NAME: ..." and
 * never crashes on truncated, binary or oversized files.
 */
#ifndef FS_SIM_READERS_H
#define FS_SIM_READERS_H

#include "workload.h"

/* How a trace's own names map onto the catalog. */
struct reader_options {
    int32_t ref_type;      /* catalog type the work is stated on, for traces
                              that name no GPU (philly, swf); -1 = default */
    const char *team;      /* team for traces without one; NULL = per format */
};

struct trace_reader {
    const char *name;      /* "native", "openb", "philly", "swf" */
    const char *summary;
    /* Append the trace's jobs to w.  RET: 0, FS_ENOINPUT, FS_EDATA. */
    int (*read)(const char *path, const struct reader_options *opt,
                const struct gpu_catalog *cat, struct workload *w, struct fs_err *err);
};

/* NULL-terminated registry. */
extern const struct trace_reader *const trace_readers[];
const struct trace_reader *trace_reader_find(const char *name);

/* An openb node list (sn,cpu_milli,memory_mib,gpu,model) as fleet groups,
 * consecutive identical nodes merged.  OUT *groups (caller frees), *n.
 * Nodes with no GPU are skipped (counted in *skipped). */
int openb_read_nodes(const char *path, const struct gpu_catalog *cat,
                     struct fleet_group **groups, int *n, int *skipped, struct fs_err *err);

/* A demand curve: tokens per fixed time bin (Azure LLM inference traces). */
struct demand_curve {
    double bin_s;
    size_t n;
    double *prompt_tokens, *output_tokens;  /* per bin */
    double total_prompt, total_output;      /* sums over the file */
    size_t requests;
};

/* Read an Azure LLM trace (TIMESTAMP,ContextTokens,GeneratedTokens) into
 * bins of bin_s seconds from its first timestamp. */
int azure_read_demand(const char *path, double bin_s, struct demand_curve *d, struct fs_err *err);
void demand_curve_free(struct demand_curve *d);

#endif
