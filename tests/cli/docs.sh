#!/usr/bin/env bash
# tests/cli/docs.sh - the documentation kept honest:
#   1. every link in README.md, docs/ and scenarios/README.md that is not a
#      URL resolves to a file inside the repository (and an anchor to a
#      heading of that file);
#   2. every command in a ```console block of README.md and docs/ (a line
#      "$ COMMAND") runs from the repository root and exits 0, and where
#      lines follow it in the block, its output (stdout and stderr) is
#      exactly those lines - so docs/cli.md's copies of every --help text
#      fail on drift.  build/fleetsim in a command is the binary under test.
# Usage: FLEETSIM=build/fleetsim tests/cli/docs.sh
set -uo pipefail
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in */*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$fleetsim" "$tmp" README.md docs/*.md scenarios/README.md <<'PY'
import os, re, subprocess, sys
fleetsim, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
root = os.getcwd()
fail = 0

def slug(h):
    h = re.sub(r'`', '', h.strip().lower())
    return re.sub(r'[^\w\- ]', '', h).replace(' ', '-')

def anchors(path):
    out, fence = set(), False
    for l in open(path):
        if l.startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'^#+ (.*)', l)
        if m:
            out.add(slug(m.group(1)))
    return out

nlinks = 0
for f in files:
    text = re.sub(r'```.*?```', '', open(f).read(), flags=re.S)
    for label, target in re.findall(r'\[([^\]]*)\]\(([^)\s]+)\)', text):
        if re.match(r'^[a-z]+:', target):
            continue
        nlinks += 1
        path, _, frag = target.partition('#')
        full = os.path.realpath(os.path.join(os.path.dirname(f), path)) if path else os.path.realpath(f)
        if not (full + '/').startswith(root + '/'):
            print(f"FAIL  {f}: link {target} points outside the repository"); fail = 1
        elif not os.path.exists(full):
            print(f"FAIL  {f}: link {target}: no such file"); fail = 1
        elif frag and full.endswith('.md') and frag not in anchors(full):
            print(f"FAIL  {f}: link {target}: no heading #{frag} there"); fail = 1
print(f"ok    {nlinks} relative links in {len(files)} pages resolve inside the repository")

nrun = 0
for f in files:
    if f.startswith('scenarios/'):
        continue
    block = None
    for l in open(f).read().split('\n'):
        if block is None:
            if l.startswith('```console'):
                block = []
            continue
        if l.startswith('```'):
            cmds, cur = [], None
            for b in block:
                if b.startswith('$ '):
                    cur = [b[2:], []]; cmds.append(cur)
                elif cur:
                    cur[1].append(b)
            for cmd, want in cmds:
                nrun += 1
                run = re.sub(r'(^|\s)build/fleetsim(?=\s)', lambda m: m.group(1) + fleetsim, cmd)
                r = subprocess.run(['bash', '-c', run], capture_output=True, text=True)
                got = (r.stdout + r.stderr).rstrip('\n').split('\n') if (r.stdout + r.stderr) else []
                if r.returncode != 0:
                    print(f"FAIL  {f}: `{cmd}` exits {r.returncode}: {(r.stderr or r.stdout)[:300]}"); fail = 1
                elif want and got != want:
                    import difflib
                    d = '\n'.join(list(difflib.unified_diff(want, got, 'documented', 'actual', lineterm=''))[:20])
                    print(f"FAIL  {f}: `{cmd}`: the output differs from what the page shows:\n{d}"); fail = 1
            block = None
        else:
            block.append(l)
print(f"ok    {nrun} documented commands run" + ("" if not fail else " (with failures above)"))
sys.exit(fail)
PY
rc=$?
[ $rc = 0 ] && echo "docs: all passed" || echo "docs: FAILED"
exit $rc
