#!/usr/bin/env bash
# tests/cli/run.sh - the command-line conventions (docs/cli.md): --json
# prints on stdout exactly the file the command wrote, and nothing else
# goes to stdout; --set edits the scenario as read; compare --seeds writes
# one comparison per seed and a summary whose figures are those of the
# per-seed comparisons.  Usage: FLEETSIM=build/fleetsim tests/cli/run.sh
set -uo pipefail
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in */*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fail=1; }

# --json: stdout is the written file, byte for byte; without it stdout is empty.
check_json() { # NAME FILE ARGS...: run with --json, compare stdout with DIR/FILE
    local name=$1 file=$2
    shift 2
    if "$fleetsim" "$@" --json -q -o "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" &&
        cmp -s "$tmp/$name.out" "$tmp/$name/$file" && python3 -m json.tool "$tmp/$name.out" >/dev/null; then
        ok "$name --json prints $file ($(wc -c <"$tmp/$name.out") bytes of JSON)"
    else
        bad "$name --json: stdout differs from $file or is not JSON: $(head -c 300 "$tmp/$name.err")"
    fi
}
check_json run summary.json run tests/bad-input/valid.json
check_json plan plan.json plan tests/bad-input/valid.json --max-nodes 2
check_json sweep results.json sweep scenarios/sweep-example.json -j 2
"$fleetsim" run tests/bad-input/valid.json -q -o "$tmp/plain" >"$tmp/plain.out" 2>&1
[ ! -s "$tmp/plain.out" ] && ok "run without --json prints nothing on stdout" || bad "run printed on stdout without --json"

# --set: a number, a bare word (a string) and a JSON string, as if the file said them.
"$fleetsim" run tests/bad-input/valid.json --set 'fleet[0].nodes=1' --set scheduler.policy=fifo \
    --set 'name="edited"' --json -q -o "$tmp/set" >"$tmp/set.json" 2>"$tmp/set.err"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fleet"]["gpus"], d["policy"], d["scenario"])' "$tmp/set.json" 2>&1)
# valid.json: 2 nodes of 8 h100-sxm and 1 of 8 a100-sxm-80; one h100 node left: 16 GPUs.
[ "$got" = "16 fifo edited" ] && ok "--set edits nodes, policy and name ($got)" || bad "--set: got \"$got\", want \"16 fifo edited\""

# compare --seeds: seeds.json's per-seed figures are the per-seed compare.json's,
# and vs_baseline is the difference at the same seed.
if "$fleetsim" compare scenarios/default.json --policies fifo,flux --seeds 3,4 -j 2 -q --json \
    -o "$tmp/seeds" >"$tmp/seeds.out" 2>"$tmp/seeds.err"; then
    python3 - "$tmp/seeds" <<'PY' && ok "compare --seeds: seeds.json agrees with seed-3/ and seed-4/" || bad "compare --seeds: seeds.json disagrees"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/seeds.json"))
assert s["seeds"] == [3, 4], s["seeds"]
per = {seed: json.load(open(f"{d}/seed-{seed}/compare.json")) for seed in (3, 4)}
def runs(c):
    return c["runs"] if isinstance(c, dict) else c
for i, run in enumerate(s["runs"]):
    assert run["name"] == runs(per[3])[i]["name"], run["name"]
    for m in ("cost_month_usd", "wait_p95_s", "utilization", "jobs_completed"):
        want = [runs(per[seed])[i]["metrics"][m] for seed in (3, 4)]
        got = run["metrics"][m]["per_seed"]
        assert got == want, (run["name"], m, got, want)
        if i:
            base = [runs(per[seed])[0]["metrics"][m] for seed in (3, 4)]
            diff = run["metrics"][m]["vs_baseline"]["per_seed"]
            assert all(abs(g - (w - b)) <= 1e-9 * max(1, abs(w)) for g, w, b in zip(diff, want, base)), (m, diff)
PY
    cmp -s "$tmp/seeds.out" "$tmp/seeds/seeds.json" && ok "compare --seeds --json prints seeds.json" || bad "compare --seeds --json"
else
    bad "compare --seeds failed: $(head -c 300 "$tmp/seeds.err")"
fi

# The scenario schema (schema/scenario.schema.json): every shipped scenario
# passes it and the loader; every bad scenario of tests/bad-input fails one
# of them; and where python3-jsonschema is installed, it and fleetsim's own
# validator (base/jschema.c) give every file the same verdict.
shipped=()
for f in scenarios/*.json scenarios/*/*.json; do
    grep -q '"parameters"\|"fleetsim_regress"' "$f" || shipped+=("$f") # not grids or baselines
done
nvalid=0
for f in "${shipped[@]}"; do
    "$fleetsim" validate -q "$f" 2>"$tmp/valid.err"
    rc=$?
    if [ $rc = 66 ] && grep -q 'shared/traces' "$f" && grep -q 'cannot open' "$tmp/valid.err"; then
        if [ "${FLEETSIM_REQUIRE_TRACES:-0}" = 1 ]; then
            bad "validate $f: its trace is absent though FLEETSIM_REQUIRE_TRACES=1"
        else
            echo "skip  validate $f: its trace in ../shared/traces is absent"
        fi
    elif [ $rc = 0 ]; then
        nvalid=$((nvalid + 1))
    else
        bad "validate: shipped $f fails (exit $rc): $(head -3 "$tmp/valid.err")"
    fi
done
ok "validate: $nvalid shipped scenarios pass the schema and the loader"
badfiles=$(sed -n 's/^run \(tests\/bad-input\/[^ ]*\.json\) -o OUT | 6[56] |.*/\1/p' tests/bad-input/cases.txt | sort -u)
nbad=0 passed_bad=""
for f in $badfiles; do
    nbad=$((nbad + 1))
    "$fleetsim" validate -q "$f" 2>/dev/null && passed_bad+=" $f"
done
[ -z "$passed_bad" ] && ok "validate: all $nbad bad-input scenarios fail the schema or the loader" ||
    bad "validate passes bad scenarios:$passed_bad"
if python3 -c 'import jsonschema' 2>/dev/null; then
    # malformed JSON gets no schema verdict
    mapfile -t files < <(python3 -c 'import json, sys
for f in sys.argv[1:]:
    try:
        json.load(open(f)); print(f)
    except Exception:
        pass' "${shipped[@]}" $badfiles)
    python3 - "${files[@]}" >"$tmp/py.verdicts" <<'PY'
import json, sys, jsonschema
s = json.load(open("schema/scenario.schema.json"))
jsonschema.Draft202012Validator.check_schema(s)
v = jsonschema.Draft202012Validator(s)
for f in sys.argv[1:]:
    print(f, "valid" if v.is_valid(json.load(open(f))) else "invalid")
PY
    disagree=$(for f in "${files[@]}"; do
        "$fleetsim" validate --schema-only -q "$f" 2>/dev/null && echo "$f valid" || echo "$f invalid"
    done | diff - "$tmp/py.verdicts")
    [ -z "$disagree" ] && ok "schema: fleetsim's validator and python3-jsonschema agree on all ${#files[@]} files" ||
        bad "schema verdicts differ: $disagree"
else
    echo "skip  schema cross-check: python3-jsonschema is not installed"
fi

# Completion (fleetsim completion bash|zsh, from the command and option
# tables): the scripts the build made (COMPLETION_BUILD_DIR) are what the binary prints.
compdir=${COMPLETION_BUILD_DIR:-build/completion}
"$fleetsim" completion bash >"$tmp/fleetsim.bash" && "$fleetsim" completion zsh >"$tmp/_fleetsim" || bad "completion"
cmp -s "$tmp/fleetsim.bash" "$compdir/fleetsim.bash" && cmp -s "$tmp/_fleetsim" "$compdir/_fleetsim" &&
    ok "the built completion scripts are current" || bad "$compdir differs from fleetsim completion: rebuild"
complete_bash() { # WORDS...: the completions bash offers for the last word
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fleetsim; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$tmp/fleetsim.bash" "$@" 2>&1
}
complete_zsh() { # WORDS...: the same for zsh
    zsh -f tests/cli/zsh-complete.zsh "$tmp/_fleetsim" "$@" 2>&1
}
expect_completion() { # WANT WORDS...
    local want=$1 sh
    shift
    for sh in bash zsh; do
        if [ $sh = zsh ] && ! command -v zsh >/dev/null; then
            echo "skip  zsh completion of \"$*\": zsh is not installed"
        elif complete_$sh "$@" | grep -x -- "$want" >/dev/null; then
            ok "$sh completes \"$*\" with $want"
        else
            bad "$sh: \"$*\" does not complete to $want: $(complete_$sh "$@" | tr '\n' ' ')"
        fi
    done
}
expect_completion run fleetsim ru
expect_completion validate fleetsim val
expect_completion --policy fleetsim run x.json --pol
expect_completion --seeds fleetsim compare a.json --see
expect_completion flux-no-route fleetsim run x.json --policy flux-no-r
expect_completion fifo,hetero-watt fleetsim compare x.json --policies fifo,hetero-w
expect_completion philly fleetsim import ph
if command -v zsh >/dev/null; then
    zsh -fc 'autoload -Uz compinit && compinit -u -d "$1/zcd" && source "$1/_fleetsim" && (( $+functions[_fleetsim] ))' \
        _ "$tmp" >"$tmp/zsh.err" 2>&1 && ok "zsh loads the completion" || bad "zsh: $(head -3 "$tmp/zsh.err")"
else
    echo "skip  zsh completion: zsh is not installed"
fi

# Man pages (tools/mkman.sh, from --help): the build's pages (MAN_BUILD_DIR) are
# current, man -l renders each without a warning, and each says what
# --help says (compared as letters and digits: only layout may differ).
mandir=${MAN_BUILD_DIR:-build/man}
tools/mkman.sh "$fleetsim" "$tmp/man" && diff -r "$tmp/man" "$mandir" >/dev/null &&
    ok "the built man pages are current ($(ls "$mandir" | wc -l) pages)" || bad "$mandir differs from tools/mkman.sh's output: rebuild"
if command -v man >/dev/null; then
    alnum() { tr -cd '[:alnum:]'; }
    for page in "$tmp"/man/*.1; do
        name=$(basename "$page" .1)
        cmd=${name#fleetsim}
        cmd=${cmd#-}
        MANWIDTH=120 man --warnings -l "$page" >"$tmp/page.txt" 2>"$tmp/page.err" </dev/null
        # the text from SYNOPSIS to SEE ALSO, headings and the page header left out
        shown=$(sed -n '/^SYNOPSIS/,/^SEE ALSO/p' "$tmp/page.txt" | sed '1d;$d' | grep -v '^DESCRIPTION$' | alnum)
        help=$("$fleetsim" $cmd --help | sed '1s/^usage: //' | alnum)
        if [ -s "$tmp/page.err" ]; then
            bad "man -l $name.1 warns: $(head -2 "$tmp/page.err")"
        elif [ "$shown" != "$help" ]; then
            bad "man page $name.1 does not say what fleetsim $cmd --help says"
        else
            ok "man -l $name.1 renders $(wc -l <"$tmp/page.txt") lines, the --help text"
        fi
    done
else
    bad "man is not installed (tools/install-deps.sh installs man-db)"
fi

# make install: the program, data, schema, example scenarios, man pages,
# completion and docs land under the prefix, and the installed program
# finds its catalog and schema there.
stage=$tmp/stage
if ${MAKE:-make} --no-print-directory -s install DESTDIR="$stage" PREFIX=/opt/fs >"$tmp/install.log" 2>&1; then
    missing=""
    for f in bin/fleetsim share/fleetsim/gpus.json share/fleetsim/scenario.schema.json \
        share/fleetsim/scenarios/default.json share/man/man1/fleetsim.1 share/man/man1/fleetsim-run.1 \
        share/bash-completion/completions/fleetsim share/zsh/site-functions/_fleetsim \
        share/doc/fleetsim/README.md share/doc/fleetsim/docs/architecture.md; do
        [ -f "$stage/opt/fs/$f" ] || missing+=" $f"
    done
    [ -z "$missing" ] && ok "make install: program, data, schema, scenarios, man pages, completion, docs" ||
        bad "make install left out:$missing"
    env -u FLEETSIM_DATA "$stage/opt/fs/bin/fleetsim" validate -q "$stage/opt/fs/share/fleetsim/scenarios/default.json" 2>"$tmp/inst.err" &&
        ok "the installed fleetsim validates an installed example with its own schema and catalog" ||
        bad "installed fleetsim: $(head -2 "$tmp/inst.err")"
else
    bad "make install failed: $(tail -3 "$tmp/install.log")"
fi

[ $fail = 0 ] && echo "cli: all passed" || echo "cli: FAILED"
exit $fail
