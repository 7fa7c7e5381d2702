/* timeline.h - timeline.json, a Chrome trace / Perfetto view of a run: a sim
 * observer that streams trace events as they complete, so its memory does
 * not grow with simulated time.
 *
 * The file is the Trace Event Format's object form:
 *
 *   {"displayTimeUnit": "ms",
 *    "traceEvents": [EVENT, ...],
 *    "otherData": {"generator": "fleetsim", "scenario": ..., "events": N,
 *                  "dropped": D, "event_limit": L, "counter_gap_us": G,
 *                  "truncated_at_us": T or null, "note": ... when truncated}}
 *
 * Tracks.  Perfetto treats pid 0 as the kernel's idle process and keys
 * threads by tid as Linux does, so node n is process n + 1 and every thread
 * id is unique in the file:
 *   process  n + 1           "node N (TYPE)", one per node that ran a job
 *   process  nnodes + 1      "fleet", holding the counters
 *   thread   one per GPU     "GPU i"; jobs that share a GPU (milli < 1000)
 *            and lane        overlap in time, and overlapping complete events
 *                            on one thread do not nest, so each concurrent
 *                            sharer gets the lowest free lane: "GPU i",
 *                            "GPU i (2)", "GPU i (3)" ...
 *   thread   one per node    "CPU", "CPU (2)" ...: CPU-only jobs (gpus 0),
 *            and lane        laned the same way
 *   tid = nnodes + 2 + slot + lane x (GPUs + nodes), where slot is the GPU's
 *   fleet-wide index (node.gpu0 + i), or GPUs + n for node n's CPU.
 * Processes and threads are named (ph "M", process_name / thread_name) just
 * before their first job event, so idle nodes cost nothing.
 *
 * Events.  Times are simulated microseconds (fs_time), as the format wants.
 *   {"ph":"X","pid":P,"tid":T,"ts":START,"dur":RUN,"name":"job ID","cat":KIND,
 *    "args":{"job":ID,"team":TEAM,"kind":KIND,"gpus":G,"milli":M}}
 *     one per job per GPU it holds (whole nodes of a gang: every GPU of
 *     each), or one on the CPU thread for a CPU-only job; written when the
 *     job finishes.  Jobs still running at the end are closed at the end
 *     time and carry "unfinished":true in args; a run cut short by a
 *     preemption (SIM_EVICT) ends there and carries "evicted":true.
 *   {"ph":"C","pid":F,"tid":F,"ts":T,"name":NAME,"args":{UNIT:VALUE}}
 *     counters on the fleet process: "fleet GPU power" {"watts"} (0.1 W),
 *     "highest node PSU load" {"percent"} (0.01 %), "queue length" {"jobs"}.
 * Power counters need the metrics collector's energy state; without it only
 * the queue is written.
 *
 * Size rule.  A counter is sampled at the end of the instant it changes,
 * but at most once per counter gap: a change within the gap of the last
 * sample is held back and written at the gap's end, latest value winning,
 * so a track is the exact step function delayed by less than one gap; each
 * counter gets one closing sample at the end time.  The gap is the larger
 * of 60 s and horizon / 10,000 rounded up to the second (60 s with no
 * horizon), so with a horizon a counter has at most about 10,000 samples
 * and without one at most one a minute.  Short peaks can hide between
 * samples: the exact maxima and means are in summary.json and
 * timeseries.csv.  Job slices are never thinned.  At most event_limit
 * events are written (TIMELINE_DEFAULT_LIMIT: about 200 MB); past it every
 * further event is dropped and counted, a global instant event marks the
 * time, and otherData says so.  Slices are written when jobs finish, so a
 * cut file lacks the jobs that finished after the cut.
 *
 * Determinism: the bytes depend only on the run (values are quantized to
 * integers before printing).
 *
 * The caller owns the timeline (timeline_free) and the FILE, which it
 * closes after SIM_END; a run that never reaches SIM_END leaves the file
 * unterminated, as output.h's temporary files expect.
 */
#ifndef FS_REPORTS_TIMELINE_H
#define FS_REPORTS_TIMELINE_H

#include <stdio.h>

#include "energy.h"

#define TIMELINE_DEFAULT_LIMIT 1000000
#define TIMELINE_MIN_GAP (60 * FS_USEC)
#define TIMELINE_MAX_SAMPLES 10000

struct timeline;

/* A timeline of the run s written to f.  en: the metrics collector's
 * energy state (NULL: no power counters); the timeline reads it at every
 * note, so register it after that collector.  limit: the most events to
 * write (0: TIMELINE_DEFAULT_LIMIT).  Writes the file's opening at once.
 * RET: the new timeline (caller frees). */
struct timeline *timeline_new(const struct sim *s, FILE *f, const struct energy *en, int64_t limit);
void timeline_free(struct timeline *t);

/* The counter gap for s's scenario (see the size rule). */
fs_time timeline_counter_gap(const struct sim *s);

/* The observer to register with sim_observe. */
struct sim_observer timeline_observer(struct timeline *t);

#endif
