/* rng.c - per-purpose GSL streams derived from one seed. */
#include "rng.h"

#include <stdlib.h>

/* splitmix64 (Steele, Lea, Flood 2014): decorrelates nearby seeds. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

gsl_rng *rng_stream(uint64_t seed, enum rng_purpose purpose)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        fprintf(stderr, "fleetsim: out of memory allocating an RNG stream\n");
        abort();
    }
    uint64_t s = splitmix64(seed ^ splitmix64((uint64_t)purpose + 1));
    /* gsl_rng_set treats 0 as its default seed; keep streams distinct. */
    gsl_rng_set(r, (unsigned long)(s ? s : 1));
    return r;
}
