#!/usr/bin/env bash
# tests/serve/run.sh - `fleetsim serve` over HTTP: it answers the captured
# kube-scheduler requests (tests/serve/captured) on one keep-alive
# connection with the bytes tests/test_serve.c checks (tests/serve/expected,
# answered with the FGD workload of that test, so here only the shape and
# the status are compared), /healthz and /metrics (whose counters match the
# requests made), a malformed body and one over --max-body get 400 with a
# message, an unknown path 404 and a wrong method 405; a taken port exits
# 69 saying so, a bad --listen 64; SIGTERM and SIGINT stop it with exit 0;
# docs/serve.md quotes --help as it is.
# A keep-alive call must not wait for Nagle's algorithm (median < 20 ms;
# with the ~40 ms Nagle + delayed-ACK stall every call would exceed it).
#
# Needs curl (tools/install-deps.sh installs it); skips, saying so, without.
# Usage: FLEETSIM=build/fleetsim tests/serve/run.sh   (from anywhere)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
if [ ! -x "$fleetsim" ]; then
    echo "serve: $fleetsim is not an executable (set FLEETSIM)" >&2
    exit 2
fi
if ! command -v curl >/dev/null 2>&1; then
    echo "serve: SKIPPED - no curl (tools/install-deps.sh installs it)"
    exit 0
fi
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
bad() {
    echo "serve: FAIL: $*"
    fail=1
}

# Start fleetsim serve with "$@" on a free port; sets pid and url.
start() {
    : >"$tmp/err"
    "$fleetsim" serve --listen 127.0.0.1:0 "$@" 2>"$tmp/err" &
    pid=$!
    local port=
    for _ in $(seq 100); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$tmp/err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { bad "no 'listening on' line: $(cat "$tmp/err")"; return 1; }
    url=http://127.0.0.1:$port
}

# stop SIGNAL: the server exits 0 and says it stopped.
stop() {
    kill -"$1" "$pid"
    wait "$pid"
    local rc=$?
    pid=
    [ "$rc" = 0 ] || bad "exit $rc after SIG$1, want 0"
    grep -q "SIG$1: stopped after" "$tmp/err" || bad "no 'stopped after' line after SIG$1: $(cat "$tmp/err")"
}

# status METHOD PATH [BODY-FILE]: the HTTP status; the body in $tmp/body.
status() {
    local data=()
    [ $# -ge 3 ] && data=(--data-binary "@$3")
    curl -s -o "$tmp/body" -w '%{http_code}' -X "$1" "${data[@]}" "$url$2"
}

# docs/serve.md quotes --help verbatim.
diff <("$fleetsim" serve --help) <(sed -n '/^\$ fleetsim serve --help$/,/^```$/p' "$here/../../docs/serve.md" | sed '1d;$d') >"$tmp/help.diff" ||
    bad "docs/serve.md's --help block differs from fleetsim serve --help: $(cat "$tmp/help.diff")"

start --max-body 100000 || exit 1
[ "$(status GET /healthz)" = 200 ] && grep -qx ok "$tmp/body" || bad "/healthz"

# The four captured requests in order, on one connection.
cap=$here/captured
urls=()
for f in filter-request-nodeCacheCapable-false-pod0009 prioritize-request-nodeCacheCapable-false-pod0009 \
    filter-request-nodeCacheCapable-true prioritize-request-nodeCacheCapable-true; do
    urls+=(--next -s -X POST --data-binary "@$cap/$f.json" -o "$tmp/$f.out" -w '%{http_code}\n' "$url/${f%%-*}")
done
codes=$(curl "${urls[@]:1}" | tr '\n' ' ')
[ "$codes" = "200 200 200 200 " ] || bad "captured requests answered '$codes', want 200 x 4"
grep -q '"Nodes":{"items":\[{"kind":"Node"' "$tmp/filter-request-nodeCacheCapable-false-pod0009.out" ||
    bad "filter (node objects) did not answer with one node object"
grep -q '"NodeNames":\["' "$tmp/filter-request-nodeCacheCapable-true.out" || bad "filter (names) did not answer NodeNames"
[ "$(grep -o '"Score":10' "$tmp/prioritize-request-nodeCacheCapable-true.out" | wc -l)" = 1 ] ||
    bad "prioritize did not give exactly one node the top score"

# Errors: malformed, oversized, unknown path, wrong method.
printf '{"Pod":' >"$tmp/trunc.json"
[ "$(status POST /filter "$tmp/trunc.json")" = 400 ] && grep -q '"Error":"the body is not JSON (byte 7)' "$tmp/body" ||
    bad "a truncated body: $(cat "$tmp/body")"
head -c 200000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
[ "$(status POST /filter "$tmp/big.json")" = 400 ] && grep -q 'over 100000 bytes' "$tmp/body" ||
    bad "a body over --max-body: $(cat "$tmp/body")"
[ "$(status GET /nope)" = 404 ] || bad "an unknown path is not 404"
[ "$(status GET /filter)" = 405 ] || bad "GET /filter is not 405"

# Keep-alive latency: 40 filter calls on one connection.
args=()
for _ in $(seq 40); do
    args+=(--next -s -X POST --data-binary "@$cap/filter-request-nodeCacheCapable-false-pod0009.json" -o /dev/null -w '%{time_total}\n' "$url/filter")
done
median=$(curl "${args[@]:1}" | sort -g | sed -n 20p)
awk -v m="$median" 'BEGIN { exit !(m < 0.020) }' || bad "median keep-alive call took ${median}s (Nagle?)"

# /metrics counts what was asked: 2 + 40 filters answered 200, 2 + 0
# prioritize, 2 filters answered 400 (the one over --max-body never reached
# the extender, so 43 calls were timed).
[ "$(status GET /metrics)" = 200 ] || bad "/metrics"
for want in 'fleetsim_serve_requests_total{path="/filter",code="200"} 42' \
    'fleetsim_serve_requests_total{path="/prioritize",code="200"} 2' \
    'fleetsim_serve_requests_total{path="/filter",code="400"} 2' \
    'fleetsim_serve_call_seconds_count{verb="filter"} 43' \
    'fleetsim_serve_decisions_total{policy="fgd",outcome="placed"} 2' \
    'fleetsim_serve_decisions_total{policy="fgd",outcome="kept"} 42' \
    'fleetsim_serve_nodes 3'; do
    grep -qxF "$want" "$tmp/body" || bad "/metrics lacks '$want'"
done
grep -q '^# TYPE fleetsim_serve_call_seconds histogram$' "$tmp/body" || bad "/metrics: no histogram TYPE line"

# A taken port: exit 69 and the reason.
port=${url##*:}
"$fleetsim" serve --listen "127.0.0.1:$port" 2>"$tmp/err2"
rc=$?
[ "$rc" = 69 ] || bad "a taken port exited $rc, want 69"
grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$tmp/err2" || bad "taken port message: $(cat "$tmp/err2")"
stop TERM

"$fleetsim" serve --listen nowhere 2>/dev/null
[ $? = 64 ] || bad "--listen nowhere is not a usage error"

start --policy best-fit-share || exit 1
[ "$(status GET /healthz)" = 200 ] || bad "/healthz (second server)"
stop INT

if [ "$fail" = 0 ]; then echo "serve: HTTP checks passed"; else echo "serve: FAILED"; fi
exit "$fail"
