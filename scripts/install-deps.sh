#!/usr/bin/env bash
# Installs, from Debian's archive, every package hpm needs to build and test.
# Quick when nothing is missing: it asks dpkg first and runs apt-get only for
# what is absent. Called by the Makefile (make, make demo, make check) and so
# by .ci/run.
set -euo pipefail

# Build: compilers, CMake. Fuzzing: clang with its libFuzzer/sanitizer runtime.
# Virtual PMU: valgrind ships the tool kit (headers, libcoregrind, libvex).
# Tests: python3 checks that hpm count's JSON parses. Benchmark and golden
# counts: xz, bzip2, gzip, sqlite3, python3 (and gcc's cc1) are the Debian
# programs bench/vpmu times, tests/golden counts and the cross-check runs. The component layer: libpfm4
# names hardware events for perf_event, libdw reads symbols. PAPI
# compatibility: gfortran builds the Fortran bindings and tests, papi-examples
# ships PAPI's own test suite (our bar), papi-tools PAPI's utilities
# (papi_avail, papi_cost, ...: papi.tools runs them under hpm run),
# libpapi-dev is the peer that the PAPI benchmark and the suite's reference
# run use. MPI jobs: Open MPI's mpirun, mpicc and mpif90 (the tests' MPI
# programs, C and Fortran), libjansson reads the ranks' JSON results (hpm
# merge), hpcc (HPC Challenge, a real MPI program the tests run under hpm
# count).
# hpm serve's tests are scraped by Debian's Prometheus and linted by its
# promtool (prometheus).
# hpm record's tests read its perf.data with Debian's perf (linux-perf) and
# check the flame graph with xmllint (libxml2-utils). Profiles name the C
# library's lines from libc6-dbg (compressed DWARF, which the profile front
# end decompresses once with binutils' objcopy: src/profile/symbols.c).
# Installing: help2man writes the commands' man pages from their --help,
# scdoc libhpm(3); tests/install renders them with man-db's man (groff),
# loads the completion with bash-completion's helpers. make deb: CPack's
# DEB generator finds the libraries' packages with dpkg-dev's
# dpkg-shlibdeps, and the ELF files with file.
PACKAGES=(
  gcc make cmake pkg-config
  clang libclang-rt-14-dev
  valgrind
  python3 xz-utils sqlite3 bzip2 gzip
  libpfm4-dev libdw-dev
  gfortran papi-examples libpapi-dev papi-tools
  gnuplot-nox libmicrohttpd-dev curl libxml2-utils cmark-gfm prometheus
  linux-perf libc6-dbg binutils
  openmpi-bin libopenmpi-dev libjansson-dev hpcc
  help2man scdoc man-db groff-base bash-completion dpkg-dev file
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
