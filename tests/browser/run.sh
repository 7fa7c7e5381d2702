#!/usr/bin/env bash
# tests/browser/run.sh - open the reports in headless Chromium and check that
# every chart rendered: each <img> decodes at gnuplot's 900x420 and is not
# blank (a canvas counts its colours and its non-white pixels); that the
# summary (id="summary") comes before the first table and lies within the
# first 800 pixels of a 1280-pixel-wide window; then take a screenshot of
# the page.  Every chart's gnuplot script is checked first, with or without
# Chromium: an x and a y axis label, and a legend (the key on, a title on
# some plotted series).  Covers the run report (scenarios/default.json), the
# comparison report (scenarios/compare/philly-*.json) and the roadmap
# report (scenarios/plan-example.json over 3 months).
#
# The Chromium part skips, saying so, when Chromium is not installed
# (tools/install-deps.sh --with-browser installs it) or gnuplot is missing.
# FLEETSIM names the binary (default build/fleetsim).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$fleetsim" run -q scenarios/default.json -o "$tmp/run"
"$fleetsim" compare -q scenarios/compare/philly-cloud.json scenarios/compare/philly-leased.json -o "$tmp/compare"
"$fleetsim" roadmap -q scenarios/plan-example.json --types h100-sxm,a100-sxm-80 --max-nodes 5 --months 3 \
    --growth 0.5,-0.3333 --lead-months 0 -o "$tmp/roadmap"

fail=0
for gp in "$tmp"/run/*.gp "$tmp"/compare/*.gp "$tmp"/roadmap/*.gp; do
    name=${gp#"$tmp"/}
    if ! grep -q "^set xlabel '[^']" "$gp" || ! grep -q "^set ylabel '[^']" "$gp"; then
        echo "FAIL $name: no x or y axis label"; fail=1
    elif grep -Eq '^(unset key|set key off|set nokey)' "$gp" || ! grep -A3 '^plot' "$gp" | grep -q ' title '; then
        echo "FAIL $name: no legend (key off, or no series has a title)"; fail=1
    else
        echo "ok   $name: axis labels and a legend"
    fi
done

browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
    echo "browser test: SKIPPED: Chromium is not installed (tools/install-deps.sh --with-browser); chart scripts $([ $fail = 0 ] && echo passed || echo FAILED)"
    exit "$fail"
fi
if ! command -v gnuplot >/dev/null; then
    echo "browser test: SKIPPED: gnuplot is not installed, the reports have no charts; chart scripts $([ $fail = 0 ] && echo passed || echo FAILED)"
    exit "$fail"
fi

# The check, appended to a copy of each report; it writes one line per image
# into <pre id="check"> for --dump-dom to print.
cat >"$tmp/check.js" <<'JS'
window.addEventListener('load', function () {
  var out = [];
  var imgs = document.querySelectorAll('img');
  imgs.forEach(function (img, i) {
    var c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    var ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    var colours = {}, ncolours = 0, ink = 0;
    if (c.width > 0 && c.height > 0) {
      var d = ctx.getImageData(0, 0, c.width, c.height).data;
      for (var p = 0; p < d.length; p += 4) {
        var key = d[p] << 16 | d[p + 1] << 8 | d[p + 2];
        if (!colours[key]) { colours[key] = 1; ncolours++; }
        if (d[p] < 250 || d[p + 1] < 250 || d[p + 2] < 250) ink++;
      }
    }
    out.push('IMG ' + i + ' ' + img.naturalWidth + 'x' + img.naturalHeight + ' colours=' + ncolours +
             ' ink=' + ink + ' alt=' + img.alt);
  });
  out.push('IMAGES ' + imgs.length);
  var sum = document.getElementById('summary'), table = document.querySelector('table');
  if (sum) {
    var r = sum.getBoundingClientRect();
    out.push('SUMMARY ' + Math.round(r.top + window.scrollY) + ' ' + Math.round(r.bottom + window.scrollY) +
             ' ' + (table ? Math.round(table.getBoundingClientRect().top + window.scrollY) : -1) +
             ' ' + window.innerWidth);
  }
  var pre = document.createElement('pre');
  pre.id = 'check';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
});
JS

check() { # REPORT EXPECTED_IMAGES NAME
    local report=$1 want=$2 name=$3 page="$tmp/$3.html"
    { cat "$report"; printf '<script>'; cat "$tmp/check.js"; printf '</script>\n'; } >"$page"
    local flags=(--headless --no-sandbox --disable-gpu --allow-file-access-from-files
                 --virtual-time-budget=10000 --user-data-dir="$tmp/profile" --hide-scrollbars)
    local dom
    dom=$(timeout 120 "$browser" "${flags[@]}" --window-size=1280,800 --dump-dom "file://$page" 2>/dev/null) || true
    # The summary: top, bottom, the first table's top, the window width.
    local top bottom first width
    read -r top bottom first width < <(printf '%s\n' "$dom" | sed -n 's/^SUMMARY //p') || true
    if [ -z "${bottom:-}" ]; then
        echo "FAIL $name: no element with id=\"summary\""
        fail=1
    elif [ "$width" != 1280 ] || [ "$bottom" -gt 800 ] || { [ "$first" -ge 0 ] && [ "$first" -lt "$bottom" ]; }; then
        echo "FAIL $name: summary from $top to $bottom px (first table at $first px, window $width px wide): not within the first 800 px before any table"
        fail=1
    else
        echo "ok   $name: summary from $top to $bottom px at $width px wide, before the first table ($first px)"
    fi
    local n
    n=$(printf '%s\n' "$dom" | sed -n 's/^IMAGES \([0-9]*\).*/\1/p')
    if [ "${n:-0}" != "$want" ]; then
        echo "FAIL $name: expected $want images, Chromium reported ${n:-none}"
        fail=1
        return
    fi
    local seen=0
    while read -r _ i size colours ink alt; do
        seen=$((seen + 1))
        local c=${colours#colours=} k=${ink#ink=}
        # A chart: gnuplot's 900x420 canvas, axes and lines in several
        # colours, and at least 1 % of its pixels drawn on.
        if [ "$size" != 900x420 ] || [ "$c" -lt 4 ] || [ "$k" -lt 3780 ]; then
            echo "FAIL $name: image $i ($alt) $size, $c colours, $k pixels drawn"
            fail=1
        else
            echo "ok   $name: image $i $size, $c colours, $k pixels drawn: ${alt#alt=}"
        fi
    done < <(printf '%s\n' "$dom" | grep '^IMG ')
    if [ "$seen" != "$want" ]; then
        echo "FAIL $name: checked $seen of $want images"
        fail=1
    fi
    timeout 120 "$browser" "${flags[@]}" --window-size=1200,4000 --screenshot="$tmp/$name.png" \
        "file://$page" >/dev/null 2>&1 || true
    # The screenshot's PNG header holds its width and height (bytes 16-23).
    local wh
    wh=$(od -An -tu1 -j16 -N8 "$tmp/$name.png" 2>/dev/null | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}')
    if [ "$wh" != 1200x4000 ]; then
        echo "FAIL $name: screenshot is ${wh:-missing}, expected 1200x4000"
        fail=1
    else
        echo "ok   $name: screenshot $wh, $(wc -c <"$tmp/$name.png") bytes"
    fi
}
check "$tmp/run/report.html" 4 run-report
check "$tmp/compare/report.html" 3 compare-report
check "$tmp/roadmap/roadmap.html" 2 roadmap-report
if [ "$fail" = 0 ]; then echo "browser test: passed"; else echo "browser test: FAILED"; fi
exit "$fail"
