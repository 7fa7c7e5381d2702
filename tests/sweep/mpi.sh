#!/usr/bin/env bash
# tests/sweep/mpi.sh - fleetsim sweep under mpirun (make sweep-mpi-check):
# the MPI build on 2 and 4 ranks (rank 0 hands out the points, the others
# compute them) writes the bytes it writes alone with -j 1; a failing point
# exits 65 with the message -j 1 prints, and nothing is written.
#
# Usage: FLEETSIM=build-mpi/fleetsim [MPIRUN=mpirun] tests/sweep/mpi.sh
set -uo pipefail

TL_FLEETSIM=build-mpi/fleetsim
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
mpirun=${MPIRUN:-mpirun}
if [ ! -x "$fleetsim" ] || ! command -v "$mpirun" >/dev/null; then
    echo "sweep-mpi: needs $fleetsim (make MPI=1) and $mpirun" >&2
    exit 2
fi
# Oversubscribe: CI machines have fewer cores than ranks; root in containers.
mpi=("$mpirun" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
tl_tmp

"$fleetsim" sweep -q scenarios/sweep-example.json -j 1 -o "$tmp/j1" || bad "-j 1 without mpirun: exit $?"
for np in 2 4; do
    "${mpi[@]}" -np $np "$fleetsim" sweep -q scenarios/sweep-example.json -o "$tmp/np$np" >"$tmp/log$np" 2>&1
    rc=$?
    if [ $rc = 0 ] && cmp "$tmp/j1/results.csv" "$tmp/np$np/results.csv" &&
        cmp "$tmp/j1/results.json" "$tmp/np$np/results.json"; then
        ok "mpirun -np $np: results.csv and results.json are the bytes of -j 1"
    else
        bad "mpirun -np $np: exit $rc"
        cat "$tmp/log$np"
    fi
done

cp scenarios/default.json "$tmp/default.json"
echo '{"scenario": "default.json", "parameters": {"fleet[0].nodes": [2, 4, 0, 6, -1]}}' >"$tmp/bad.json"
"$fleetsim" sweep -q "$tmp/bad.json" -o "$tmp/bad1" 2>"$tmp/err1"
"${mpi[@]}" -np 3 "$fleetsim" sweep -q "$tmp/bad.json" -o "$tmp/bad3" >"$tmp/out3" 2>"$tmp/err3"
rc=$?
if [ $rc = 65 ] && grep -qxF "$(cat "$tmp/err1")" "$tmp/err3" && [ -z "$(find "$tmp/bad3" -type f 2>/dev/null)" ]; then
    ok "mpirun -np 3, a failing point: exit 65, the message of -j 1, nothing written"
else
    bad "mpirun -np 3, a failing point: exit $rc"
    cat "$tmp/err1" "$tmp/err3"
fi

echo "sweep-mpi: $pass passed, $fail failed"
[ $fail = 0 ]
