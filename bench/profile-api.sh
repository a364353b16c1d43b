#!/usr/bin/env bash
# Where a running api's CPU goes, every thread of it, by Linux perf (apt-get install -y linux-perf):
# for a line the CPU profile of bench/RESULTS.md does not explain (time in V8's helper threads, the
# kernel, native modules). JavaScript frames are named when the api was started with
# `node --perf-basic-prof api/src/main.ts` (it then writes /tmp/perf-<pid>.map).
# Usage: bench/profile-api.sh <api pid> [seconds, 10] [output folder, .local/profile-api]
set -euo pipefail
pid=${1:?usage: bench/profile-api.sh <api pid> [seconds] [output folder]}
seconds=${2:-10}
out=${3:-.local/profile-api}
command -v perf >/dev/null || { echo "needs perf (apt-get install -y linux-perf)"; exit 2; }
mkdir -p "$out"
perf record -F 999 -g -p "$pid" -o "$out/perf.data" -- sleep "$seconds" 2>"$out/record.log"
perf report -i "$out/perf.data" --no-children --sort comm,dso,sym --percent-limit 0.5 --stdio \
  2>/dev/null >"$out/by-symbol.txt"
perf report -i "$out/perf.data" --no-children --sort comm --stdio 2>/dev/null >"$out/by-thread.txt"
echo "by thread:"; grep -E '^ +[0-9]' "$out/by-thread.txt" | head -15
echo "by symbol (top 25; all of it in $out/by-symbol.txt):"; grep -E '^ +[0-9]' "$out/by-symbol.txt" | head -25
