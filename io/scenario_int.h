/* scenario_int.h - the scenario loader's parts in other files (private to
 * io/scenario*.c).  Each reads one optional block of the scenario's JSON
 * root into sc, with messages naming file and the JSON path.
 * RET: 0 or FS_EDATA (FS_ENOINPUT for an unreadable file it names). */
#ifndef FS_SIM_SCENARIO_INT_H
#define FS_SIM_SCENARIO_INT_H

#include <cjson/cJSON.h>

#include "scenario.h"

/* Limits on what a scenario may ask for; scenarios/README.md gives each
 * next to its key.  An absurd number is refused with its place named,
 * rather than overflowing a time or aborting on out-of-memory: every
 * simulated time stays far inside fs_time's ~292,000 years, and the fleet
 * and the workload stay within a few GB (a million nodes: ~3 GB; ten
 * million jobs: ~2 GB). */
#define SCEN_MAX_NODES 1000000         /* per fleet group, and in all */
#define SCEN_MAX_GEN_JOBS 10000000     /* $.workload.generator.jobs, as a
                                          trace's RD_MAX_ROWS */
#define SCEN_MAX_SPAN_S 3155760000.0   /* 100 years (of 365.25 days): the
                                          horizon, a submit time, a
                                          generator's mean arrival span, a
                                          job's run time per GPU */
#define SCEN_SPAN_TEXT "100 years (3.15576e9 s)"

/* Everything a loader step of scenario.c and scenario_gen.c needs to name
 * the place of an error. */
struct ctx {
    const char *file;
    struct scenario *sc;
    const struct scenario_options *opt;
    struct fs_err *err;
    bool job_types;  /* $.workload.job_types: each job's team is its type */
    bool steps;      /* the trace's work is in steps of the job's type */
};

/* A path relative to the scenario file's folder (absolute paths kept);
 * the caller frees it. */
char *scenario_relative_to(const char *file, const char *rel);

/* An unknown GPU type name at path, with a suggestion.  RET: FS_EDATA. */
int scenario_unknown_gpu(struct ctx *c, const char *path, const char *name);

/* $.scheduler: the policy (--policy overrides it), its parameters, and
 * the round-based policies' round, reallocation and migration. */
int scenario_load_scheduler(struct ctx *c, const cJSON *root);

/* $.workload.generator: draw the jobs into c->sc->wl (the fleet is loaded;
 * its classes are checked against it). */
int scenario_load_generator(struct ctx *c, const cJSON *gen);

/* $.cost: billing, commitment, idle rule, forecast months (defaults when
 * absent). */
int scenario_load_cost(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err);

/* $.kinds: per job kind, checkpoint interval, restart time and class
 * (defaults when absent). */
int scenario_load_kinds(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err);

/* $.services: the specs, and max_replicas replica slots per service
 * appended to sc->wl after the jobs (sc->nbatch: how many jobs come
 * first).  A slot is an inference job of the service's class whose GPU
 * count holds a replica on every type it may use (the largest count any
 * allowed type in the fleet needs; types that need more are not allowed).
 * Services need a horizon. */
int scenario_load_services(const cJSON *root, const char *file, struct scenario *sc,
                           struct fs_err *err);

/* $.faults: the fault model (faults.json beside the catalog, or "model"),
 * its rate scale and Weibull shape.  Absent: no faults. */
int scenario_load_faults(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err);

#endif
