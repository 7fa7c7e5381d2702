#!/usr/bin/env bash
# install-deps.sh - install the Debian/Ubuntu packages fleetsim needs to build,
# test and draw charts, when they are missing.  Idempotent: packages already
# installed are left alone, and when nothing is missing apt is not touched.
#
# Messages go to stderr; stdout carries only --help.
#
# Exit status:
#   0   everything is installed (or was installed now)
#   1   --check found missing packages, or installing failed / was not possible
#   2   no apt-get/dpkg here: install the listed packages by hand
#   64  usage error
set -euo pipefail

prog=${0##*/}

usage() {
    cat <<EOF
Usage: $prog [--check] [--with-mpi] [--with-browser] [--with-fuzz] [--with-valgrind] [--with-live] [--help]

Install the Debian packages fleetsim needs, skipping those already installed:
  build-essential (or gcc and make), pkg-config, libgsl-dev, libcjson-dev,
  libcunit1-dev, libglpk-dev, libmicrohttpd-dev (fleetsim serve), curl (its
  test), gnuplot-nox, python3 (the regress test parses its JUnit XML), and
  for the CLI tests man-db (man -l renders the man pages), zsh (its
  completion loads), python3-jsonschema (cross-checks the scenario schema)
  and jq (the documentation's examples use it; tests/cli/docs.sh runs them)

Options:
  --check     install nothing; list missing packages and exit 1 if any
  --with-mpi  also require libopenmpi-dev and openmpi-bin
  --with-browser
              also require chromium (the headless report test, make browser-test)
  --with-fuzz also require clang and libclang-rt-dev, its libFuzzer and
              sanitizer runtimes, which clang only recommends (make fuzz)
  --with-valgrind
              also require valgrind (make valgrind)
  --with-live also require golang-go, python3-pandas and python3-yaml, which
              build and feed the FGD authors' simulator (make live-check)
  --help      show this help and exit

Runs apt-get through sudo when not root.  Exit status: 0 all present,
1 missing (--check) or install failed, 2 no apt-get/dpkg on this system,
64 usage error.
EOF
}

say() { printf '%s: %s\n' "$prog" "$*" >&2; }

check_only=0
with_mpi=0
with_browser=0
with_fuzz=0
with_valgrind=0
with_live=0
for arg in "$@"; do
    case $arg in
    --check) check_only=1 ;;
    --with-mpi) with_mpi=1 ;;
    --with-browser) with_browser=1 ;;
    --with-fuzz) with_fuzz=1 ;;
    --with-valgrind) with_valgrind=1 ;;
    --with-live) with_live=1 ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        say "unknown option '$arg'"
        usage >&2
        exit 64
        ;;
    esac
done

packages=(build-essential pkg-config libgsl-dev libcjson-dev libcunit1-dev libglpk-dev libmicrohttpd-dev curl gnuplot-nox
    python3 man-db zsh python3-jsonschema jq)
if ((with_mpi)); then
    packages+=(libopenmpi-dev openmpi-bin)
fi
if ((with_browser)); then
    packages+=(chromium)
fi
if ((with_fuzz)); then
    packages+=(clang libclang-rt-dev)
fi
if ((with_valgrind)); then
    packages+=(valgrind)
fi
if ((with_live)); then
    packages+=(golang-go python3-pandas python3-yaml)
fi

# Without dpkg we cannot ask the package manager, but we can still tell
# whether the build would work: a compiler, make, pkg-config and the three
# libraries by their pkg-config names.
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    missing=()
    for c in cc make pkg-config gnuplot python3; do
        command -v "$c" >/dev/null 2>&1 || missing+=("$c")
    done
    if command -v pkg-config >/dev/null 2>&1; then
        for p in gsl libcjson cunit libmicrohttpd; do
            pkg-config --exists "$p" || missing+=("$p (pkg-config)")
        done
    else
        missing+=("gsl (pkg-config)" "libcjson (pkg-config)" "cunit (pkg-config)" "libmicrohttpd (pkg-config)")
    fi
    # GLPK ships no pkg-config file: look for its header.
    for d in /usr/include /usr/local/include; do
        [[ -r $d/glpk.h ]] && break
        [[ $d == /usr/local/include ]] && missing+=("glpk (glpk.h)")
    done
    if ((with_mpi)); then
        command -v mpicc >/dev/null 2>&1 || missing+=("mpicc (Open MPI)")
    fi
    if ((with_browser)); then
        command -v chromium >/dev/null 2>&1 || missing+=("chromium")
    fi
    if ((with_fuzz)); then
        command -v clang >/dev/null 2>&1 || missing+=("clang (with libFuzzer)")
    fi
    if ((with_valgrind)); then
        command -v valgrind >/dev/null 2>&1 || missing+=("valgrind")
    fi
    if ((with_live)); then
        command -v go >/dev/null 2>&1 || missing+=("go")
    fi
    if ((${#missing[@]} == 0)); then
        say "no apt-get/dpkg here, but everything fleetsim needs was found"
        exit 0
    fi
    say "missing: ${missing[*]}"
    if ((check_only)); then
        exit 1
    fi
    say "this system has no apt-get/dpkg, so I cannot install packages."
    say "Install these with your package manager, then run make again:"
    say "  a C11 compiler and make, pkg-config, gnuplot (no X11 needed),"
    say "  and the development packages of GSL, cJSON, CUnit and libmicrohttpd,"
    say "  which pkg-config must find as: gsl, libcjson, cunit, libmicrohttpd,"
    say "  and of GLPK (glpk.h)"
    if ((with_mpi)); then
        say "  and Open MPI (mpicc, mpirun)"
    fi
    exit 2
fi

# dpkg's status is "want flag status"; only the last word says whether the
# package is on disk ("hold ok installed" counts, "deinstall ok
# config-files" does not).
installed() {
    local status
    status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [[ $status == *" installed" ]]
}

missing=()
for p in "${packages[@]}"; do
    if [[ $p == build-essential ]] && ! installed "$p" && installed gcc && installed make; then
        continue # gcc and make are all we need from it
    fi
    installed "$p" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
    say "all packages installed: ${packages[*]}"
    exit 0
fi
say "missing: ${missing[*]}"
if ((check_only)); then
    exit 1
fi

sudo=()
if [[ $(id -u) != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        say "not root and sudo is not installed: run this script as root, or run"
        say "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
        exit 1
    fi
    sudo=(sudo)
    say "not root: using sudo"
fi

apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
say "running: ${apt[*]} update"
if ! "${apt[@]}" update >&2; then
    say "apt-get update failed"
    exit 1
fi
say "running: ${apt[*]} install -y --no-install-recommends ${missing[*]}"
if ! "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2; then
    say "apt-get install failed"
    exit 1
fi

still=()
for p in "${missing[@]}"; do
    installed "$p" || still+=("$p")
done
if ((${#still[@]} > 0)); then
    say "still missing after apt-get install: ${still[*]}"
    exit 1
fi
say "installed: ${missing[*]}"
