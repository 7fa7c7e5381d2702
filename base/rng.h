/* rng.h - random number streams on GSL, one per purpose, each derived from
 * the scenario seed, so that (say) drawing one more job size never shifts
 * the arrival times.  The caller frees a stream with gsl_rng_free.
 */
#ifndef FS_SIM_RNG_H
#define FS_SIM_RNG_H

#include <gsl/gsl_rng.h>

#include "base.h"

enum rng_purpose {
    RNG_ARRIVALS,
    RNG_DURATIONS,
    RNG_SIZES,
    RNG_MIX,       /* job kinds and teams */
    RNG_FAULTS,
    RNG_POLICY,    /* policy tie-breaks */
    RNG_SPOT,      /* spot interruptions (sim/elastic.h) */
    RNG_PURPOSE_COUNT,
};

/* A new MT19937 stream for purpose, seeded from seed through splitmix64. */
gsl_rng *rng_stream(uint64_t seed, enum rng_purpose purpose);

#endif
