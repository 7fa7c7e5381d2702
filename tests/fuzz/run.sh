#!/usr/bin/env bash
# tests/fuzz/run.sh - run every libFuzzer target (make fuzz builds them into
# FUZZ_BIN) for FUZZ_SECONDS each, from the repository root, on a copy of its
# seed corpus tests/fuzz/corpus/NAME in a temporary folder, so the checked-in
# corpus never changes.  A crash, leak, sanitizer report or timeout fails
# the target; its input is kept as FUZZ_BIN/crashes/NAME-* and the log's
# tail is printed.  One line per target with its executions, coverage and
# corpus size, then "fuzz: N passed, M failed".
#
# Usage: FUZZ_BIN=build/fuzz FUZZ_SECONDS=60 tests/fuzz/run.sh [NAME...]
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
bin=${FUZZ_BIN:-build/fuzz}
seconds=${FUZZ_SECONDS:-60}
case $seconds in '' | *[!0-9]*)
    echo "fuzz: FUZZ_SECONDS must be a whole number of seconds, got \"$seconds\"" >&2
    exit 64 ;;
esac
names=("$@")
if [ ${#names[@]} = 0 ]; then
    for c in tests/fuzz/corpus/*/; do names+=("$(basename "$c")"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# A slow input (a 10-million-job generator, a million-node fleet) is legal:
# allow it time and memory, since the targets look for crashes, not speed.
opts=(-max_len=65536 -max_total_time="$seconds" -timeout=120 -rss_limit_mb=6144
      -malloc_limit_mb=6144 -print_final_stats=1)

for name in "${names[@]}"; do
    target=$bin/fuzz_$name
    if [ ! -x "$target" ] || [ ! -d "tests/fuzz/corpus/$name" ]; then
        echo "FAIL  $name: no $target or no tests/fuzz/corpus/$name"
        failed=$((failed + 1))
        continue
    fi
    work=$tmp/$name
    mkdir -p "$work/corpus" "$work/tmp" "$work/crash"
    cp "tests/fuzz/corpus/$name"/* "$work/corpus/"
    seeds=$(find "$work/corpus" -type f | wc -l)
    TMPDIR=$work/tmp "$target" "${opts[@]}" -artifact_prefix="$work/crash/" \
        "$work/corpus" >"$work/log" 2>&1 </dev/null
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
    stats="${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus $seeds -> ${corp:-?}"
    if [ "$status" = 0 ]; then
        passed=$((passed + 1))
        echo "ok    $name: $stats"
    else
        failed=$((failed + 1))
        echo "FAIL  $name: exit $status; $stats"
        mkdir -p "$bin/crashes"
        for f in "$work/crash"/*; do
            [ -e "$f" ] || continue
            cp "$f" "$bin/crashes/$name-$(basename "$f")"
            echo "        input kept: $bin/crashes/$name-$(basename "$f")"
        done
        grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$work/log" | head -n 20 | sed 's/^/        /'
    fi
done

echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
