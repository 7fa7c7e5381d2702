#!/usr/bin/env bash
# tests/cli/docs.sh - the documentation kept honest:
#   1. every link in README.md, docs/ and scenarios/README.md that is not a
#      URL resolves to a file inside the repository (and an anchor to a
#      heading of that file);
#   2. every command-line example in README.md and docs/ runs.  An example is
#      a ```console block: each "$ COMMAND" line (continued onto the next
#      lines while it ends in a backslash) runs from the repository root
#      and must exit 0; where lines follow it in the block, its output
#      (stdout and stderr) must be exactly those lines, except that a line
#      ending in " (glob)" matches any line its shell pattern matches (for a
#      wall-clock time) and a line "..." any number of lines (an excerpt).  `fleetsim` and build/fleetsim in a command are the
#      binary under test.  So docs/cli.md's copies of every --help text fail
#      on drift.
#   3. no example escapes the test: any other code block (fenced or
#      indented) that shows a command - a "$ " prompt, fleetsim, make, a
#      tools/, tests/ or bench/ script, a shell loop - fails the test unless
#      the line before it is a marker saying why it cannot run here:
#          <!-- doc-test: skip REASON -->
#      (a synopsis, minutes of run time, Chromium, MPI, root), or, for a
#      ```console block that reads data outside the repository,
#          <!-- doc-test: needs PATH -->
#      which runs it when PATH exists (../shared/traces) and skips it, saying
#      so, when not.  The test prints how many it skipped and why.
# Usage: FLEETSIM=build/fleetsim tests/cli/docs.sh [--update]
#   --update rewrites the output shown under each command that has one
#   (docs/cli.md's --help copies among them) with what the command prints
#   now (not those with a "..." excerpt: edit them by hand); review the
#   diff before committing it.  `make docs-update` runs it.
set -uo pipefail
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in */*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;; esac
update=0
[ "${1:-}" = --update ] && update=1
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" && ln -s "$fleetsim" "$tmp/bin/fleetsim"

python3 - "$fleetsim" "$tmp" "$update" README.md docs/*.md docs/*/*.md scenarios/README.md <<'PY'
import difflib, fnmatch, os, re, subprocess, sys
fleetsim, tmp, update, files = sys.argv[1], sys.argv[2], sys.argv[3] == '1', sys.argv[4:]
files = [f for f in files if os.path.exists(f)]
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

# A line that shows a command rather than code, data or output.
COMMAND = re.compile(r'^\s*(\$ \S|(build/)?fleetsim\s+[a-z-]|make(\s|$)|(tools|tests|bench)/\S+\.sh\b|for \w+ in )')
MARKER = re.compile(r'^<!-- doc-test: (skip|needs) (.+?) -->$')

def blocks(lines):
    """(first line index, language or None for indented, body line indices, marker reason)."""
    i, out = 0, []
    def marker(k):
        k -= 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        m = MARKER.match(lines[k].strip()) if k >= 0 else None
        if m and m.group(1) == 'needs':
            return None if os.path.exists(m.group(2)) else f"need {m.group(2)}, which is absent"
        return m.group(2) if m else None
    while i < len(lines):
        l = lines[i]
        if l.lstrip().startswith('```'):
            lang, j = l.lstrip()[3:].strip(), i + 1
            while j < len(lines) and not lines[j].lstrip().startswith('```'):
                j += 1
            out.append((i, lang, list(range(i + 1, j)), marker(i)))
            i = j + 1
        elif re.match(r'^(    |\t)', l) and l.strip() and (i == 0 or not lines[i - 1].strip()
                                                            or MARKER.match(lines[i - 1])):
            j = i
            while j < len(lines) and (re.match(r'^(    |\t)', lines[j]) or not lines[j].strip()):
                j += 1
            out.append((i, None, list(range(i, j)), marker(i)))
            i = j
        else:
            i += 1
    return out

env = dict(os.environ, PATH=tmp + '/bin:' + os.environ['PATH'])
# A make in an example is a fresh one: the variables given to the make that
# runs this test (SANITIZE=..., WERROR=1) but not its jobserver or level.
env['MAKEFLAGS'] = env.get('MAKEFLAGS', '').partition(' -- ')[2] if ' -- ' in env.get('MAKEFLAGS', '') else ''
env.pop('MAKELEVEL', None)
env.pop('MFLAGS', None)

def line_matches(w, g):
    return w == g or (w.endswith(' (glob)') and fnmatch.fnmatchcase(g, w[:-7]))

def matches(want, got):
    """A shown line "..." stands for any number of lines (an excerpt)."""
    if not want:
        return not got
    if want[0] == '...':
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and line_matches(want[0], got[0]) and matches(want[1:], got[1:])

nrun, skipped, nupdated = 0, {}, 0
for f in files:
    if f.startswith('scenarios/'):
        continue
    lines = open(f).read().split('\n')
    edits = []                      # (first, end, new lines) for --update
    for start, lang, body, reason in blocks(lines):
        shows = [k for k in body if COMMAND.match(lines[k])]
        if reason:
            skipped.setdefault(reason, []).append(f"{f}:{start + 1}")
            continue
        if lang != 'console':
            if shows and lang not in ('c', 'json', 'yaml'):
                print(f"FAIL  {f}:{shows[0] + 1}: an example the doc test does not run: "
                      f"`{lines[shows[0]].strip()}`: make it a ```console block (\"$ \" before each command) "
                      f"or put <!-- doc-test: skip REASON --> on the line before the block"); fail = 1
            continue
        cmds, k = [], 0
        while k < len(body):
            l = lines[body[k]]
            if l.startswith('$ '):
                cmd, first = l[2:], body[k]
                while cmd.endswith('\\') and k + 1 < len(body):
                    k += 1
                    cmd = cmd[:-1] + ' ' + lines[body[k]].strip()
                cmds.append([cmd, first, []])
            elif cmds:
                cmds[-1][2].append(body[k])
            k += 1
        for cmd, at, out in cmds:
            nrun += 1
            want = [lines[k] for k in out]
            run = re.sub(r'(^|[\s;&|(])build/fleetsim(?=\s)', lambda m: m.group(1) + fleetsim, cmd)
            r = subprocess.run(['bash', '-c', run], capture_output=True, text=True, env=env)
            both = r.stdout + r.stderr
            got = both.rstrip('\n').split('\n') if both else []
            if r.returncode != 0:
                print(f"FAIL  {f}:{at + 1}: `{cmd}` exits {r.returncode}: {(r.stderr or r.stdout)[-600:]}"); fail = 1
            elif want and not matches(want, got):
                if update and '...' not in want:
                    keep = [w if line_matches(w, g) else g for w, g in zip(want, got)] \
                        if len(want) == len(got) else got
                    edits.append((out[0], out[-1] + 1, keep))
                    continue
                d = '\n'.join(list(difflib.unified_diff(want, got, 'documented', 'actual', lineterm=''))[:20])
                print(f"FAIL  {f}:{at + 1}: `{cmd}`: the output differs from what the page shows "
                      f"(tests/cli/docs.sh --update rewrites it):\n{d}"); fail = 1
    if edits:
        for first, end, new in sorted(edits, reverse=True):
            lines[first:end] = new
        open(f, 'w').write('\n'.join(lines))
        nupdated += len(edits)
        print(f"updated {f}: {len(edits)} shown output(s) rewritten")
print(f"ok    {nrun} documented commands run" + ("" if not fail else " (with failures above)"))
nskip = sum(len(v) for v in skipped.values())
print(f"skip  {nskip} examples marked as not runnable here:")
for reason, where in sorted(skipped.items()):
    print(f"        {len(where)} {reason}: {', '.join(where)}")
sys.exit(fail)
PY
rc=$?
[ $rc = 0 ] && echo "docs: all passed" || echo "docs: FAILED"
exit $rc
