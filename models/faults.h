/* faults.h - what interrupts GPU work and how long a node stays out of
 * service: causes with their rates, from published interruption counts
 * over a known exposure (models/data/faults.json: the Llama 3 405B
 * pre-training run, 419 unexpected interruptions in 54 days on 16,384 H100
 * GPUs; every figure with its source).
 *
 * A cause of scope "gpu" fails each GPU at count / (exposure GPUs x hours)
 * per GPU-hour; one of scope "node" each node at count / (exposure nodes x
 * hours) per node-hour.  A node with G GPUs therefore fails at
 *   lambda = G x sum(gpu rates) + sum(node rates)   per hour,
 * each failure of cause c with probability c's part of lambda, and is out
 * of service for c's repair time; a cause with effect "psu" instead takes
 * one of its power supplies out for that time (the node keeps running on
 * the others, overloaded if its load no longer fits them).  The engine draws the time to a node's
 * next failure from a Weibull distribution with shape k and mean 1/lambda
 * (k = 1: exponential, the memoryless process the rates are estimated
 * under; k < 1: infant mortality, failures bunched early after a repair).
 *
 * The caller frees the model with fault_model_free.
 */
#ifndef FS_MODELS_FAULTS_H
#define FS_MODELS_FAULTS_H

#include <stdbool.h>

#include "../base/base.h"

#define FAULT_MAX_CAUSES 64

enum fault_scope { FAULT_GPU, FAULT_NODE };

struct fault_cause {
    char name[32];
    enum fault_scope scope;
    double rate_h;       /* failures per GPU-hour (gpu) or node-hour (node) */
    fs_time repair;      /* out of service after a failure; 0: back at once */
    bool psu;            /* effect "psu": one power supply fails, the node runs on */
};

struct fault_model {
    int n;
    struct fault_cause causes[FAULT_MAX_CAUSES];
    double gpu_rate_h, node_rate_h;   /* the sums per scope */
};

/* Load path (faults.json).  RET: 0, FS_ENOINPUT, or FS_EDATA with a
 * message naming the file and JSON path. */
int fault_model_load(const char *path, struct fault_model **out, struct fs_err *err);
void fault_model_free(struct fault_model *m);

/* Failures per hour of a node of gpus GPUs, x scale. */
double fault_node_rate_h(const struct fault_model *m, int gpus, double scale);

/* The cause of a failure on a node of gpus GPUs, given u uniform in [0,1):
 * each cause with probability its part of the node's rate. */
const struct fault_cause *fault_pick(const struct fault_model *m, int gpus, double u);

#endif
