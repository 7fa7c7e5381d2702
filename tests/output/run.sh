#!/usr/bin/env bash
# tests/output/run.sh - output sets land whole or not at all
# (reports/output.h):
#   - two writers on one folder, TRIALS times: each exits 0 or 75 ("another
#     fleetsim is writing"), and the folder then holds exactly one run's
#     complete set (byte-identical to a reference run of that seed);
#   - SIGKILL at a random moment, TRIALS times: the folder holds the
#     previous set byte-identical, or (killed after the swap) the new set
#     whole; the next run removes the killed run's private folder;
#   - two writers of one single-file output (fleetsim gen): the file is one
#     writer's whole file;
#   - a link planted at a temporary name or an output name never redirects
#     a write; an output that is a FIFO, socket or device (a node made in a
#     temporary folder, when run as root) is refused with exit 73 and left
#     as it was; a folder holding a file fleetsim did not write is refused;
#   - out of memory (ulimit -v) exits 70 and leaves no folder behind.
#   - --max-output-mb: a set that would pass it is refused (exit 73, the
#     limit named) and the previous set is left byte-identical.
# Charts are off (FLEETSIM_GNUPLOT=/nonexistent): gnuplot is not under test.
# The folders are in /dev/shm where there is one: each output set is
# fsynced, which on a shared disk made a run 0.5 s of waiting for 0.1 s of
# work; O_EXCL, rename, renameat2 and flock, which are under test, work
# the same on tmpfs.
#
# Usage: FLEETSIM=build/fleetsim [TRIALS=20] tests/output/run.sh
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tl_need output
trials=${TRIALS:-20}
export FLEETSIM_GNUPLOT=/nonexistent
tmp=$( { [ -w /dev/shm ] && mktemp -d -p /dev/shm; } || mktemp -d)
trap 'kill -KILL $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# A short run (0.04 s of CPU, a 3 MB set): the trials below place their
# races and kills by its measured length, so they land inside it however
# fast the machine is.
"$fleetsim" gen --jobs 5000 --gpus 100 -o "$tmp/s.json" 2>/dev/null || { echo "output: gen failed"; exit 1; }
run() { # run SEED DIR: fleetsim run into DIR
    "$fleetsim" run -q "$tmp/s.json" --seed "$1" -o "$2"
}
# Every trial writes to the one folder $tmp/w (the reports name their folder).
w=$tmp/w
run 1 "$w" && mv "$w" "$tmp/ref1" && run 2 "$w" && mv "$w" "$tmp/ref2" ||
    { echo "output: the reference runs failed"; exit 1; }
if diff -rq "$tmp/ref1" "$tmp/ref2" >/dev/null; then
    echo "output: seeds 1 and 2 give the same outputs; the test could not tell them apart"
    exit 1
fi

# which DIR: "1" or "2" when DIR is byte-identical to that reference set
# (every file, the manifest included, and nothing else), else "mixed".
which() {
    if diff -r "$1" "$tmp/ref1" >/dev/null 2>&1; then echo 1
    elif diff -r "$1" "$tmp/ref2" >/dev/null 2>&1; then echo 2
    else echo mixed; fi
}
# leftovers DIR: private folders beside DIR (.NAME.fleetsim-XXXXXX).
leftovers() {
    find "$(dirname "$1")" -maxdepth 1 -name ".$(basename "$1").fleetsim-*" | wc -l
}

# How long a run takes, from the moment a trial starts it (ms): the second
# writer starts and the kills fall uniformly within it.
rm -rf "$w" && cp -r "$tmp/ref1" "$w"
start=$(date +%s%N)
run 2 "$w" &
wait $!
span=$((($(date +%s%N) - start) / 1000000 + 1))
# sleep_ms MS
sleep_ms() { sleep "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }

# ---- two writers -----------------------------------------------------------
good=0 busy=0 why=
for t in $(seq "$trials"); do
    d=$w
    rm -rf "$d"
    [ $((t % 2)) = 0 ] && cp -r "$tmp/ref1" "$d" # half the trials replace a set
    run 1 "$d" 2>"$tmp/e1" &
    p1=$!
    sleep_ms $((RANDOM % span)) # within the first's run
    run 2 "$d" 2>"$tmp/e2" &
    p2=$!
    wait $p1
    s1=$?
    wait $p2
    s2=$?
    got=$(which "$d")
    for s in $s1 $s2; do
        [ "$s" = 75 ] && busy=$((busy + 1))
    done
    if { [ "$s1" = 0 ] || [ "$s1" = 75 ]; } && { [ "$s2" = 0 ] || [ "$s2" = 75 ]; } &&
        [ "$got" != mixed ] && [ "$(leftovers "$d")" = 0 ] &&
        { [ "$s1" != 75 ] || grep -q "another fleetsim is writing this folder" "$tmp/e1"; } &&
        { [ "$s2" != 75 ] || grep -q "another fleetsim is writing this folder" "$tmp/e2"; }; then
        good=$((good + 1))
    else
        why="trial $t: exits $s1 $s2, folder $got, $(leftovers "$d") private folders left; $(head -c 300 "$tmp/e1" "$tmp/e2")"
    fi
done
[ "$good" = "$trials" ] && ok "two writers started 0..$span ms apart, $trials trials: one whole set each time ($busy writers refused with 75)" ||
    bad "two writers: $good of $trials whole; $why"

# ---- SIGKILL at random points ------------------------------------------------
good=0 old=0 new=0 why=
for t in $(seq "$trials"); do
    d=$w
    rm -rf "$d"
    cp -r "$tmp/ref1" "$d"
    "$fleetsim" run -q "$tmp/s.json" --seed 2 -o "$d" 2>/dev/null & # not run(): $! must be fleetsim
    p=$!
    ms=$((RANDOM % span))
    sleep_ms $ms
    kill -KILL $p 2>/dev/null
    wait $p 2>/dev/null
    case $(which "$d") in
    1) old=$((old + 1)); good=$((good + 1)) ;;
    2) new=$((new + 1)); good=$((good + 1)) ;;
    *) why="trial $t: killed after $ms ms, the folder holds a mix" ;;
    esac
    [ "$(leftovers "$d")" -le 1 ] || why="trial $t: more than one private folder"
done
run 1 "$w" && left=$(leftovers "$w")
[ "$good" = "$trials" ] && ok "SIGKILL at random in 0..$span ms (a whole run), $trials trials: previous set intact $old times, new set whole $new times" ||
    bad "SIGKILL: $good of $trials whole; $why"
[ "${left:-1}" = 0 ] && ok "the next run removes a killed run's private folder" ||
    bad "private folders left after the next run: ${left:-run failed}"

# ---- one file, two writers ----------------------------------------------------
"$fleetsim" gen --jobs 10 --gpus 8 --seed 1 -o "$tmp/g1.json" && "$fleetsim" gen --jobs 10 --gpus 8 --seed 2 -o "$tmp/g2.json"
good=0
for t in $(seq "$trials"); do
    f=$tmp/gen$t.json
    "$fleetsim" gen --jobs 10 --gpus 8 --seed 1 -o "$f" & p1=$!
    "$fleetsim" gen --jobs 10 --gpus 8 --seed 2 -o "$f" & p2=$!
    wait $p1 && wait $p2 && { cmp -s "$f" "$tmp/g1.json" || cmp -s "$f" "$tmp/g2.json"; } &&
        [ "$(find "$tmp" -maxdepth 1 -name ".gen$t.json.*" | wc -l)" = 0 ] && good=$((good + 1))
done
[ "$good" = "$trials" ] && ok "gen, two writers of one file, $trials trials: one whole file each time" ||
    bad "gen, two writers: $good of $trials whole"

# ---- planted links --------------------------------------------------------------
echo "precious" >"$tmp/victim"
d=$w
rm -rf "$d" && cp -r "$tmp/ref1" "$d"
ln -s "$tmp/victim" "$d/.summary.json.tmp"
ln -s "$tmp/victim" "$d/.fleetsim-set.tmp"
run 2 "$d" 2>"$tmp/e"
s=$?
[ "$(cat "$tmp/victim")" = precious ] && [ "$s" = 73 ] && [ "$(which "$d")" = mixed ] &&
    [ -z "$(diff -r "$tmp/ref1" "$d" 2>&1 | grep -v "Only in $d: .summary.json.tmp\|Only in $d: .fleetsim-set.tmp")" ] &&
    ok "links planted at temporary names: exit 73, the target file and the folder untouched" ||
    bad "planted links: exit $s, victim \"$(cat "$tmp/victim")\", $(head -c 200 "$tmp/e")"
d=$tmp/planted2
mkdir "$d"
ln -s "$tmp/victim" "$d/summary.json"
run 2 "$d" 2>"$tmp/e"
s=$?
[ "$(cat "$tmp/victim")" = precious ] && [ "$s" = 73 ] && [ -L "$d/summary.json" ] &&
    ok "a link planted at an output name: exit 73, its target untouched" ||
    bad "link at summary.json: exit $s, victim \"$(cat "$tmp/victim")\""
ln -s "$tmp/victim" "$tmp/.planted.json.tmp"
"$fleetsim" gen --jobs 10 --gpus 8 -o "$tmp/planted.json" && [ "$(cat "$tmp/victim")" = precious ] &&
    cmp -s "$tmp/planted.json" "$tmp/g1.json" && ok "gen beside a planted link: whole file, link's target untouched" ||
    bad "gen beside a planted link"

# ---- a folder holding what fleetsim did not write --------------------------------
d=$w
rm -rf "$d" && cp -r "$tmp/ref1" "$d"
echo "my notes" >"$d/notes.txt"
run 2 "$d" 2>"$tmp/e"
s=$?
[ "$s" = 73 ] && grep -q 'holds "notes.txt", which fleetsim did not write' "$tmp/e" && [ -f "$d/notes.txt" ] &&
    [ -z "$(diff -r "$tmp/ref1" "$d" 2>&1 | grep -v "Only in $d: notes.txt")" ] &&
    ok "a folder holding notes.txt: exit 73 before running, nothing replaced" || bad "foreign file: exit $s"

# ---- outputs that are not files ------------------------------------------------------
mkfifo "$tmp/fifo"
python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$tmp/sock" 2>/dev/null
nodes="$tmp/fifo"
[ -S "$tmp/sock" ] && nodes="$nodes $tmp/sock"
if mknod "$tmp/dev" c 1 3 2>/dev/null; then # /dev/null's numbers, in our own folder
    nodes="$nodes $tmp/dev"
else
    echo "      (not root: no device node made; the FIFO and socket cases stand for it)"
fi
for n in $nodes; do
    kind=$(stat -c %F "$n")
    run 1 "$n" 2>"$tmp/e"
    s1=$?
    "$fleetsim" gen --jobs 10 --gpus 8 -o "$n" 2>"$tmp/e2"
    s2=$?
    [ "$s1" = 73 ] && [ "$s2" = 73 ] && [ "$(stat -c %F "$n")" = "$kind" ] &&
        grep -q "not a folder" "$tmp/e" && grep -q "cannot replace a" "$tmp/e2" &&
        ok "-o $kind: run and gen exit 73, the $kind left as it was" ||
        bad "-o $kind: run $s1, gen $s2, now $(stat -c %F "$n")"
done

# ---- the output budget --------------------------------------------------------------
d=$w
rm -rf "$d" && cp -r "$tmp/ref1" "$d"
"$fleetsim" run -q "$tmp/s.json" --seed 2 -o "$d" --max-output-mb 1 2>"$tmp/e"
s=$?
[ "$s" = 73 ] && grep -q "the outputs would pass --max-output-mb 1; nothing written" "$tmp/e" &&
    [ "$(which "$d")" = 1 ] && [ "$(leftovers "$d")" = 0 ] &&
    ok "--max-output-mb 1 (the set is ~3 MB): exit 73 naming the limit, the previous set byte-identical" ||
    bad "--max-output-mb 1: exit $s, folder $(which "$d"); $(head -c 300 "$tmp/e")"

# ---- out of memory -------------------------------------------------------------------
if (ulimit -v 200000 && "$fleetsim" --version >/dev/null 2>&1); then
    "$fleetsim" gen --jobs 2000000 --gpus 8000 -o "$tmp/huge.json"
    n70=0 why=
    # Two limits at once: out of memory while loading (no set open yet) and
    # as the simulation starts, with the set's private folder open.  (A
    # third, 500 MB, ran out at the end of the run: 5 s of CPU for the same
    # clean-up path.)
    declare -A pid
    for kb in 250000 400000; do
        (ulimit -v $kb && exec "$fleetsim" run -q "$tmp/huge.json" -o "$tmp/oom$kb") 2>"$tmp/e$kb" &
        pid[$kb]=$!
    done
    for kb in 250000 400000; do
        d=$tmp/oom$kb
        wait "${pid[$kb]}"
        s=$?
        if [ "$s" = 70 ]; then
            n70=$((n70 + 1))
            { [ -e "$d" ] || [ "$(leftovers "$d")" != 0 ]; } && why="$why ${kb} kB: left $d or its private folder;"
            grep -q "out of memory" "$tmp/e$kb" || why="$why ${kb} kB: no message;"
        elif [ "$s" != 0 ]; then
            why="$why ${kb} kB: exit $s;"
        fi
        rm -rf "$d"
    done
    [ -z "$why" ] && [ "$n70" -gt 0 ] && ok "out of memory ($n70 of 2 limits): exit 70, message, no folder left" ||
        bad "out of memory: $n70 exits 70;$why"
else
    echo "      (skipping out of memory: this build cannot start under ulimit -v, e.g. ASan)"
fi

echo "output: $pass passed, $fail failed"
[ "$fail" = 0 ]
