/* gen_scenario.h - `fleetsim gen`'s synthetic scenario: about G GPUs in
 * 8-GPU nodes of a fixed mix of types, and a generator workload of N jobs
 * arriving at the rate that offers a given share of the fleet's throughput
 * capacity (the catalog's throughput model).  Plain scenario JSON that
 * `fleetsim run` accepts as is; the same inputs always give the same bytes.
 * The sizing maths is documented at fleet_capacity and arrivals_per_hour in
 * gen_scenario.c. */
#ifndef FS_IO_GEN_SCENARIO_H
#define FS_IO_GEN_SCENARIO_H

#include <stdio.h>

#include "../base/base.h"

#define GEN_GPUS_PER_NODE 8
#define GEN_MAX_JOBS 10000000LL                    /* the generator's limit */
#define GEN_MAX_GPUS (1000000LL * GEN_GPUS_PER_NODE) /* the fleet's node limit */

/* Run time per GPU on the reference type: lognormal, truncated. */
#define GEN_REFERENCE_GPU "a100-sxm-80"
#define GEN_DURATION_MEDIAN_S 3600.0
#define GEN_DURATION_SIGMA 1.0
#define GEN_DURATION_MAX_S 43200.0
/* Offered load as a share of the fleet's throughput capacity (--load
 * overrides it, in percent from GEN_MIN_LOAD to GEN_MAX_LOAD). */
#define GEN_TARGET_LOAD 0.875
#define GEN_MIN_LOAD 1.0
#define GEN_MAX_LOAD 1000.0
/* --diurnal's peak hour when only the amplitude is given (as a scenario's
 * diurnal.peak_hour). */
#define GEN_DIURNAL_PEAK_H 14.0
#define GEN_DIURNAL_MAX_H 23.999999 /* the scenario's bound */

/* The fleet mix, in whole percent of the nodes, in fleet order. */
enum { GEN_FLEET_TYPES = 4 };
struct gen_fleet_share {
    const char *gpu;
    int percent;
};
extern const struct gen_fleet_share gen_fleet_mix[GEN_FLEET_TYPES];

struct gen_scenario {
    long long jobs, gpus;
    unsigned long long seed;
    double load;         /* offered load, a fraction of capacity */
    double diurnal_amplitude; /* 0: a constant rate; else in (0, 1] */
    double diurnal_peak_h;    /* the hour the rate peaks, [0, 24) */
    const char *policy, *catalog;
    const char *classes; /* NULL: the independent draws; else "default" or a
                            class file (--classes) */
};

/* The fleet and the rate: gen_scenario_size's answer. */
struct gen_sizing {
    long long nodes;
    long long count[GEN_FLEET_TYPES]; /* nodes of each type of gen_fleet_mix */
    int order[GEN_FLEET_TYPES];       /* the fleet's order (gen_fleet_mix indexes) */
    unsigned unused;                  /* with classes: bit i set when no class
                                         fits gen_fleet_mix[i] (left out) */
    unsigned crowded;                 /* bit i: classes fit it, but its nodes
                                         went to the largest jobs' span */
    double arrivals_per_hour;
};

/* Size o's fleet and arrival rate with the catalog o->catalog and the
 * throughput model beside it (with o->classes, the fleet is sized to the
 * classes: gen_scenario.c, "Sizing to job classes").  RET: 0, or FS_E*
 * with err set (a model the mix needs is missing; a class file missing or
 * malformed; a class no type holds, or too few GPUs for the classes). */
int gen_scenario_size(const struct gen_scenario *o, struct gen_sizing *z, struct fs_err *err);

/* The scenario JSON on f. */
void gen_scenario_write(FILE *f, const struct gen_scenario *o, const struct gen_sizing *z);

#endif
