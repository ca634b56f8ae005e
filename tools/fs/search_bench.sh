#!/usr/bin/env bash
# Times the grep and glob tools against ripgrep on $(go env GOROOT)/src,
# alternating the two -count times (the machine is shared and noisy: both
# see the same noise), and prints medians and the rein/rg ratio per search.
#
#   tools/fs/search_bench.sh [count]     (default 5; needs rg: apt-get install ripgrep)
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-5}
command -v rg >/dev/null || { echo "search_bench: rg not found (apt-get install -y ripgrep)" >&2; exit 1; }
bin=$(mktemp -d)/fs.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./tools/fs/
out=$(mktemp)
for ((i = 0; i < count; i++)); do
  "$bin" -test.run='^$' -test.bench='^Benchmark(Grep|Glob)GOROOT' -test.benchtime=1x -test.count=1 | grep '^Benchmark' >>"$out"
  "$bin" -test.run='^$' -test.bench='^BenchmarkRipgrepGOROOT' -test.benchtime=1x -test.count=1 | grep '^Benchmark' >>"$out"
done
echo "rg: $(rg --version | sed -n 1p); $(go version); $(nproc) cores; $count runs each, alternating"
awk '
  { name = $1; sub(/-[0-9]+$/, "", name); t[name] = t[name] " " $3 }
  function median(s,   a, n, i, j, x) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "| search | rein ms | rg ms | rein/rg |\n|---|---:|---:|---:|\n"
    split("literal prefix ignorecase noliteral", cases, " ")
    for (i = 1; i <= 4; i++) {
      c = cases[i]; r = median(t["BenchmarkGrepGOROOT/" c]); g = median(t["BenchmarkRipgrepGOROOT/" c])
      printf "| grep %s | %.1f | %.1f | %.2f |\n", c, r / 1e6, g / 1e6, r / g
    }
    r = median(t["BenchmarkGlobGOROOT"]); g = median(t["BenchmarkRipgrepGOROOT/glob"])
    printf "| glob **/*_test.go | %.1f | %.1f | %.2f |\n", r / 1e6, g / 1e6, r / g
    printf "| grep capped (default caps) | %.1f | | |\n", median(t["BenchmarkGrepGOROOT/capped"]) / 1e6
  }' "$out"
rm -f "$out"
