/* perf.h - throughput: how fast a job's work runs on a GPU type.
 *
 * Interim model (issue 2): a job's speed on type t is the ratio of t's dense
 * BF16 TFLOPS to that of the job's reference type.  Everything that needs a
 * speed calls perf_speed, so the calibrated model replaces this one function.
 */
#ifndef FS_MODELS_PERF_H
#define FS_MODELS_PERF_H

#include "gpu.h"

/* Reference GPU-seconds of work done per second by one GPU of type t, for a
 * job whose work is stated on type ref.  RET: > 0. */
double perf_speed(const struct gpu_type *t, const struct gpu_type *ref);

#endif
