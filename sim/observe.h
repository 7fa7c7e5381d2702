/* observe.h - what observers (reports/, run/) read of the engine besides
 * its notes (engine.h): each service's figures and timeseries rows, the
 * faults' counts and what an elastic pool held.  They are copied out of
 * sim/'s private state (service_run.h, faults_run.h, elastic.h), which
 * nothing outside sim/ includes, so the engine may keep that state as it
 * likes. */
#ifndef FS_SIM_OBSERVE_H
#define FS_SIM_OBSERVE_H

#include "engine.h"

struct llm_operating;

/* What a service did over one timeseries row (the integrals over it). */
struct svc_row {
    double demand_tokens;     /* output tokens demanded */
    double capacity_s;        /* integral of the ready replicas' tokens/s */
    double slots_s;           /* integral of their batch slots */
    double demand_s;          /* seconds with demand */
    double met_s;             /* of those, seconds the latency objective held */
    double within_tokens;     /* tokens served while it held */
};

/* What a service did over the run, up to s->now. */
struct svc_figures {
    double demand_tokens, served_tokens; /* output tokens demanded, served */
    double attainment;        /* served / demanded; 1 without demand */
    double short_s;           /* seconds with demand above the capacity */
    long scale_ups, scale_downs;
    double mean_latency_s;    /* over the tokens served; 0 when none were */
    double demand_s;          /* seconds with demand */
    double met_s;             /* of those, seconds its latency objective held */
    double latency_attainment; /* met_s / demand_s; 1 without demand */
    double within_tokens;     /* tokens served while it held */
    double within_share;      /* within_tokens / demand_tokens; 1 without demand */
    double down_s;            /* seconds with demand and no ready replica */
    double replicas_mean;     /* replicas holding GPUs, on average over the run */
    int max_running;          /* the most replicas holding GPUs at once */
    int gpus;                 /* GPUs per replica */
    const struct llm_operating *op; /* per catalog type: a replica's operating
                                       point, zero where the type cannot hold one */
};

/* Service k's figures (0 <= k < s->sc->nservices). */
void sim_service(const struct sim *s, int k, struct svc_figures *out);

/* Served / demanded tokens over every service; 1 without demand. */
double svc_attainment(const struct sim *s);
/* Seconds the latency objective held / seconds with demand, over every
 * service; 1 without demand. */
double svc_latency_attainment(const struct sim *s);

/* The timeseries row of service k that ends at end, a multiple of the
 * scenario's timeseries interval or the end of the run: accounts k up to
 * end first when it is behind, then takes the row (rows are taken in
 * order; the metrics collector takes each one as it writes its row). */
void svc_row_take(struct sim *s, int k, fs_time end, struct svc_row *row);

/* What the node faults and maintenance did over the run. */
struct fault_figures {
    uint64_t failures, interruptions; /* node failures; jobs they evicted */
    uint64_t repairs, psu_failures;   /* repairs of both kinds; supplies lost */
    uint64_t windows, planned;        /* maintenance windows; jobs they moved */
    double repair_h;                  /* sum of the repairs' durations */
    const uint64_t *by_cause;         /* failures per cause of $.faults */
};

/* RET: false, and *out untouched, when the run models no faults or
 * maintenance (no $.faults block). */
bool sim_faults(const struct sim *s, struct fault_figures *out);

/* What an elastic or spot cloud pool held and was billed for. */
struct elastic_figures {
    enum cost_hold hold;              /* COST_HOLD_ELASTIC or COST_HOLD_SPOT */
    const double *held_gpu_s;         /* per GPU type: GPU-seconds held, request to release */
    const double *billed_gpu_s;       /* per GPU type: GPU-seconds billed */
    uint64_t interruptions;           /* spot interruptions */
};

/* RET: false, and *out untouched, for a fixed fleet (billing neither
 * cloud_elastic nor cloud_spot). */
bool sim_elastic(const struct sim *s, struct elastic_figures *out);

/* Wall energy, J, the pool's instances would have drawn idle while they
 * were not held, had the pool been kept (an owned pool pays for it); 0
 * for a fixed fleet.  After the run. */
double elastic_unheld_idle_j(const struct sim *s);

#endif
