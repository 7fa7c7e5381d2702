/* perf.c - the interim throughput model: dense BF16 TFLOPS ratio. */
#include "perf.h"

double perf_speed(const struct gpu_type *t, const struct gpu_type *ref)
{
    return t->bf16_tflops / ref->bf16_tflops;
}
