#!/usr/bin/env bash
# tests/regress/mpi.sh - fleetsim regress under mpirun (make sweep-mpi-check):
# the MPI build on 2 and 3 ranks (rank 0 hands out the scenario-seed runs,
# the others compute) prints the JSON verdicts and writes the JUnit file
# -j 1 does, byte for byte, and fails the same way on a worse policy.
#
# Usage: FLEETSIM=build-mpi/fleetsim [MPIRUN=mpirun] tests/regress/mpi.sh
set -uo pipefail

TL_FLEETSIM=build-mpi/fleetsim
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
mpirun=${MPIRUN:-mpirun}
if [ ! -x "$fleetsim" ] || ! command -v "$mpirun" >/dev/null; then
    echo "regress-mpi: needs $fleetsim (make MPI=1) and $mpirun" >&2
    exit 2
fi
mpi=("$mpirun" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
tl_tmp

mkdir "$tmp/suite"
cp scenarios/suite/mixed-best-fit.json scenarios/suite/mixed-fifo.json "$tmp/suite/"
"$fleetsim" regress -q -j 1 "$tmp/suite" --baseline "$tmp/base.json" --update || bad "--update: exit $?"
sed -i 's/"policy": "best-fit"/"policy": "fifo"/' "$tmp/suite/mixed-best-fit.json"
"$fleetsim" regress -q -j 1 --json --junit "$tmp/j1.xml" "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/j1.json"
want=$?
for np in 2 3; do
    "${mpi[@]}" -np $np "$fleetsim" regress -q --json --junit "$tmp/np$np.xml" "$tmp/suite" --baseline "$tmp/base.json" \
        >"$tmp/np$np.json" 2>"$tmp/log$np"
    rc=$?
    if [ $rc = "$want" ] && [ $rc = 1 ] && cmp -s "$tmp/j1.json" "$tmp/np$np.json" && cmp -s "$tmp/j1.xml" "$tmp/np$np.xml"; then
        ok "mpirun -np $np: exit 1 as -j 1, the same JSON ($(wc -c <"$tmp/np$np.json") bytes) and JUnit bytes"
    else
        bad "mpirun -np $np: exit $rc (want $want)"
        cat "$tmp/log$np"
    fi
done
echo "regress-mpi: $pass passed, $fail failed"
[ $fail = 0 ]
