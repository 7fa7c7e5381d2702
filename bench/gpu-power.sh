#!/usr/bin/env bash
# bench/gpu-power.sh - measure one NVIDIA GPU's board power against load, to
# calibrate fleetsim's power model on hardware at hand.  Optional: no test
# runs it, and it needs an NVIDIA GPU, nvidia-smi, and python3 with a CUDA
# build of PyTorch.
#
# What it does (about 2 minutes with the defaults, always well under 10):
#   1. Runs BF16 matrix multiplies (N x N, default 8192) at duty cycles
#      0, 0.2, 0.4, 0.6, 0.8 and 1 (busy for that share of every 100 ms),
#      SECONDS seconds each, while nvidia-smi samples power.draw every
#      100 ms; the first 2 s of each phase are dropped.
#   2. Where `nvidia-smi -pl` is permitted (root, and a GPU that allows it),
#      sets two power limits (80 % and 60 % of the default, not below the
#      minimum), runs at duty 1 under each, and restores the original limit
#      (also on error or Ctrl-C).
# Output on stdout: "duty,watts" rows, ready for
#      bench/gpu-power.sh > h100.csv && fleetsim calibrate power h100.csv
# with everything else (GPU name, TFLOPS per phase, the power-limit results
# as cap fraction and relative throughput) as '#' comment lines, which
# `fleetsim calibrate` skips.  Progress goes to stderr.
#
# Usage: bench/gpu-power.sh [--gpu I] [--seconds S] [--size N] [--no-limits]
# Exit status: 0 done; 64 usage; 69 no usable GPU (the message says why).
set -euo pipefail

gpu=0 secs=12 size=8192 limits=1
while [ $# -gt 0 ]; do
    case $1 in
    --gpu) gpu=${2:?--gpu needs a value}; shift 2 ;;
    --seconds) secs=${2:?--seconds needs a value}; shift 2 ;;
    --size) size=${2:?--size needs a value}; shift 2 ;;
    --no-limits) limits=0; shift ;;
    -h | --help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-power.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
case $gpu$secs$size in *[!0-9]*) echo "gpu-power.sh: --gpu, --seconds and --size take integers" >&2; exit 64 ;; esac
if [ "$secs" -lt 4 ] || [ "$secs" -gt 40 ]; then
    echo "gpu-power.sh: --seconds must be 4..40 (keeps the run under 10 minutes)" >&2
    exit 64
fi

unavailable() { echo "gpu-power.sh: $*; nothing measured." >&2; exit 69; }
command -v nvidia-smi >/dev/null || unavailable "no nvidia-smi on PATH (no NVIDIA driver)"
nvidia-smi -i "$gpu" --query-gpu=name --format=csv,noheader >/dev/null 2>&1 ||
    unavailable "nvidia-smi finds no GPU $gpu"
command -v python3 >/dev/null || unavailable "no python3"
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
    unavailable "python3 has no PyTorch with CUDA (pip install torch)"

GPU=$gpu SECS=$secs SIZE=$size LIMITS=$limits exec python3 - <<'PY'
import os, subprocess, sys, time
import torch

gpu, secs, size, limits = (int(os.environ[k]) for k in ("GPU", "SECS", "SIZE", "LIMITS"))
SMI = ["nvidia-smi", "-i", str(gpu)]
PERIOD = 0.1  # s: one duty-cycle period, the sampling interval too

def log(msg):
    print(msg, file=sys.stderr, flush=True)

def query(fields):
    out = subprocess.run(SMI + ["--query-gpu=" + fields, "--format=csv,noheader,nounits"],
                         check=True, capture_output=True, text=True).stdout
    return [f.strip() for f in out.strip().split(",")]

torch.cuda.set_device(gpu)
a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
flop = 2.0 * size ** 3

def phase(duty, seconds=secs):
    """Run at this duty cycle for some seconds; return (mean W, TFLOPS while busy, TFLOPS overall)."""
    smi = subprocess.Popen(SMI + ["--query-gpu=power.draw", "--format=csv,noheader,nounits",
                                  "-lms", str(int(PERIOD * 1000))],
                           stdout=subprocess.PIPE, text=True)
    t0 = time.perf_counter()
    busy_s, n = 0.0, 0
    try:
        while time.perf_counter() - t0 < seconds:
            start = time.perf_counter()
            if duty > 0:
                while time.perf_counter() - start < duty * PERIOD:
                    for _ in range(4):
                        torch.matmul(a, b)
                    torch.cuda.synchronize()
                    n += 4
                busy_s += time.perf_counter() - start
            rest = PERIOD - (time.perf_counter() - start)
            if rest > 0:
                time.sleep(rest)
    finally:
        smi.terminate()
        out, _ = smi.communicate()
    wall = time.perf_counter() - t0
    watts = [float(x) for x in out.split() if x.replace(".", "", 1).isdigit()]
    keep = watts[int(2 / PERIOD):] or watts
    mean = sum(keep) / len(keep) if keep else float("nan")
    return mean, (n * flop / busy_s / 1e12) if busy_s else 0.0, n * flop / wall / 1e12

name, default_w, min_w, max_w, limit_w = query(
    "name,power.default_limit,power.min_limit,power.max_limit,power.limit")
print(f"# gpu-power.sh: {name} (GPU {gpu}), BF16 matmul {size}x{size}, {secs} s per phase, "
      f"power.draw every {int(PERIOD * 1000)} ms")
print(f"# power limit now {limit_w} W (default {default_w}, range {min_w}..{max_w})")
print("# columns: duty (share of each 100 ms busy), mean board watts; fit with")
print("#   fleetsim calibrate power FILE")
print("duty,watts")
log("warming up ...")
phase(1.0, 3)

uncapped = None
for duty in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
    log(f"duty {duty:.1f} ...")
    w, busy_tf, tf = phase(duty)
    if duty == 1.0:
        uncapped, full_tf = w, busy_tf
    print(f"{duty:.1f},{w:.1f}")
    print(f"#   duty {duty:.1f}: {w:.1f} W, {busy_tf:.1f} TFLOPS while busy, {tf:.1f} overall",
          flush=True)

if not limits:
    print("# power limits: skipped (--no-limits)")
    sys.exit(0)
orig = float(limit_w)
targets = [max(float(min_w), round(f * float(default_w))) for f in (0.8, 0.6)]
try:
    for target in targets:
        r = subprocess.run(SMI + ["-pl", f"{target:.0f}"], capture_output=True, text=True)
        if r.returncode != 0:
            why = (r.stdout + r.stderr).strip().splitlines()
            print(f"# power limits: nvidia-smi -pl not permitted here ({why[-1] if why else r.returncode}); skipped")
            break
        log(f"power limit {target:.0f} W ...")
        w, busy_tf, _ = phase(1.0)
        print(f"# cap {target:.0f} W: {w:.1f} W drawn, {busy_tf:.1f} TFLOPS; "
              f"cap/uncapped {target / uncapped:.3f}, relative throughput {busy_tf / full_tf:.3f}",
              flush=True)
finally:
    subprocess.run(SMI + ["-pl", f"{orig:.0f}"], capture_output=True)
PY
