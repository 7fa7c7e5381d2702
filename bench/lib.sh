# shellcheck shell=bash disable=SC2154,SC2034 # tmp and limit_s are the caller's; wall, rss_kib and status its results
# bench/lib.sh - what the bench scripts share; sourced, after the caller
# has set tmp (a scratch folder of its own) and limit_s (seconds before a
# measured command is stopped).

# The median of the numbers on stdin ("n/a" when none; for an even count
# the mean of the middle two).
median() {
    awk 'NF' | sort -g | awk '{v[NR] = $1} END {
        if (!NR) { print "n/a"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The commit, the CPUs and the load average before the measurements.
machine() {
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
}

have_time=0
[ -x /usr/bin/time ] && /usr/bin/time -f %M -o "$tmp/t" true 2>/dev/null && have_time=1

# measure OUTFILE CMD... : run CMD with stdout and stderr to OUTFILE, under
# limit_s.  Sets wall (seconds), rss_kib (peak RSS, or n/a) and status
# (124 when it timed out).
measure() {
    local outfile=$1 t0 t1 pid hwm
    shift
    rss_kib=n/a
    t0=$(date +%s.%N)
    if [ "$have_time" = 1 ]; then
        timeout "$limit_s" /usr/bin/time -f %M -o "$tmp/rss" "$@" >"$outfile" 2>&1
        status=$?
        # /usr/bin/time writes "Command exited with non-zero status" first.
        [ -s "$tmp/rss" ] && rss_kib=$(tail -n 1 "$tmp/rss")
    else
        # No /usr/bin/time: sample the kernel's high-water mark (VmHWM) while
        # the process runs; the last sample is at most 0.1 s before it exits.
        timeout "$limit_s" "$@" >"$outfile" 2>&1 &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            hwm=$(awk '/^VmHWM:/ {print $2}' /proc/"$pid"/status 2>/dev/null)
            # timeout runs the command as its child: read that one.
            for c in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
                hwm=$(awk '/^VmHWM:/ {print $2}' /proc/"$c"/status 2>/dev/null)
            done
            [ -n "$hwm" ] && rss_kib=$hwm
            sleep 0.1
        done
        wait "$pid"
        status=$?
    fi
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
}
