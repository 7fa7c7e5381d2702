#!/usr/bin/env python3
"""easy_ref.py - an independent EASY backfilling scheduler for SWF logs, the
reference tests/backfill/run.sh checks fleetsim's `backfill` policy against.

It shares no code with fleetsim: it reads the SWF file itself and schedules
its jobs on a pool of P processors (the fleetsim side runs them on P
one-GPU nodes, where a job of k processors is a gang of k nodes, so the two
are the same machine).

  usage: easy_ref.py SWF P   ->  "id start_s" per job on stdout (start in
                                  seconds with 6 decimals, as jobs.csv)

The textbook algorithm (Mu'alem and Feitelson, IEEE TPDS 2001), in integer
microseconds:
- jobs as the SWF gives them: submit (field 2), run time (field 4),
  processors (field 5, else 8), requested time (field 9) as the estimate;
  a job without a requested time is estimated at its run time.  Jobs with
  an unknown submit, run time <= 0, processors <= 0 or more than P are
  dropped (as fleetsim's SWF reader drops them).
- at each instant with events, ends are applied, arrivals queued (in
  submit, id order), then one pass over the queue:
  - jobs start in order while they fit the free processors;
  - the first that does not (the head) is reserved: running jobs by
    expected end (start + estimate, not before now; then id) give their
    processors back until the head fits: that end is the shadow time and
    what is free beyond the head then is the extra;
  - each later job starts if it fits now and either ends (now + estimate)
    by the shadow time, or takes at most the extra (which it then uses up).
"""
import sys


def us(seconds):
    return int(round(float(seconds) * 1e6))


def read_swf(path, procs_max):
    jobs = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith(";"):
                continue
            v = s.split()
            jid, submit, run = int(v[0]), float(v[1]), float(v[3])
            procs = int(v[4]) if int(v[4]) > 0 else int(v[7])
            req = float(v[8])
            if submit < 0 or run <= 0 or procs <= 0 or procs > procs_max:
                continue
            est = us(req) if req > 0 else us(run)
            jobs.append({"id": jid, "submit": us(submit), "run": us(run),
                         "procs": procs, "est": est})
    jobs.sort(key=lambda j: (j["submit"], j["id"]))
    return jobs


def schedule(jobs, procs_max):
    free = procs_max
    queue, running, start = [], [], {}
    arrivals = sorted(jobs, key=lambda j: (j["submit"], j["id"]))
    ai = 0
    while ai < len(arrivals) or running or queue:
        times = [r["end"] for r in running]
        if ai < len(arrivals):
            times.append(arrivals[ai]["submit"])
        now = min(times)
        for r in [r for r in running if r["end"] == now]:
            free += r["job"]["procs"]
            running.remove(r)
        while ai < len(arrivals) and arrivals[ai]["submit"] == now:
            queue.append(arrivals[ai])
            ai += 1
        queue.sort(key=lambda j: (j["submit"], j["id"]))

        def begin(j):
            nonlocal free
            free -= j["procs"]
            start[j["id"]] = now
            running.append({"job": j, "start": now, "end": now + j["run"]})

        kept, head, shadow, extra = [], None, None, 0
        for j in queue:
            if head is None:
                if j["procs"] <= free:
                    begin(j)
                    continue
                head = j
                avail = free
                ends = sorted(running, key=lambda r: (max(r["start"] + r["job"]["est"], now),
                                                      r["job"]["id"]))
                i = 0
                while avail < j["procs"] and i < len(ends):
                    shadow = max(ends[i]["start"] + ends[i]["job"]["est"], now)
                    while i < len(ends) and max(ends[i]["start"] + ends[i]["job"]["est"], now) == shadow:
                        avail += ends[i]["job"]["procs"]
                        i += 1
                extra = avail - j["procs"]
                kept.append(j)
                continue
            if j["procs"] <= free and (now + j["est"] <= shadow or j["procs"] <= extra):
                if now + j["est"] > shadow:
                    extra -= j["procs"]
                begin(j)
                continue
            kept.append(j)
        queue = kept
    return start


def main():
    path, procs_max = sys.argv[1], int(sys.argv[2])
    jobs = read_swf(path, procs_max)
    start = schedule(jobs, procs_max)
    for j in jobs:
        print("%d %d.%06d" % (j["id"], start[j["id"]] // 1000000, start[j["id"]] % 1000000))


if __name__ == "__main__":
    main()
