# tests/lib.sh - what the shell tests share.  Source it first thing after
# `set -uo pipefail`:
#     . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# It sets
#   fleetsim   $FLEETSIM (default build/fleetsim, or $TL_FLEETSIM when the
#              script sets that first) as an absolute path, so the script
#              may cd anywhere;
#   pass/fail  counters, with ok MESSAGE and bad MESSAGE to count and say;
# and offers
#   tl_need NAME      exit 2 (a broken setup, not a failure) unless
#                     $fleetsim is an executable;
#   tl_tmp [shm]      tmp: a fresh folder (in /dev/shm when asked and
#                     writable), removed on exit.
fleetsim=${FLEETSIM:-${TL_FLEETSIM:-build/fleetsim}}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
pass=0 fail=0
ok() { echo "ok    $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }

tl_need() {
    if [ ! -x "$fleetsim" ]; then
        echo "$1: $fleetsim is not an executable (set FLEETSIM)" >&2
        exit 2
    fi
}

tl_tmp() {
    if [ "${1:-}" = shm ] && [ -w /dev/shm ]; then
        tmp=$(mktemp -d -p /dev/shm)
    else
        tmp=$(mktemp -d)
    fi
    trap 'rm -rf "$tmp"' EXIT
}
