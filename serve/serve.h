/* serve.h - `fleetsim serve`: read the catalog and the workload the
 * extender knows of, serve the extender (extender.h) over HTTP (http.h)
 * until SIGINT or SIGTERM, then print what it did. */
#ifndef FS_SERVE_SERVE_H
#define FS_SERVE_SERVE_H

#include <stdbool.h>

#include "../io/readers.h"
#include "http.h"

struct serve_extender_spec {
    const char *catalog;                /* GPU catalog file */
    const char *workload;               /* the pods' trace, or NULL */
    const char *log;                    /* the call log to create, or NULL */
    const struct sched_policy *policy;  /* one that places a pod at a time */
    const struct trace_reader *format;  /* the workload's format */
    unsigned long seed;
    bool quiet;                         /* nothing on stderr but errors */
};

/* Serve s with the address and limits of so (its log and ready hook are
 * set here).  RET: 0 after a signal, or an FS_E* code with err set
 * (serve_run's, or a missing or malformed input). */
int serve_extender(const struct serve_extender_spec *s, struct serve_options *so, struct fs_err *err);

#endif
