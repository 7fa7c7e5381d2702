/* scenario_int.h - the scenario loader's parts in other files (private to
 * io/scenario*.c).  Each reads one optional block of the scenario's JSON
 * root into sc, with messages naming file and the JSON path.
 * RET: 0 or FS_EDATA (FS_ENOINPUT for an unreadable file it names). */
#ifndef FS_SIM_SCENARIO_INT_H
#define FS_SIM_SCENARIO_INT_H

#include <cjson/cJSON.h>

#include "scenario.h"

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
