#!/usr/bin/env bash
# million.sh: gets by id through the HTTP API with one tenant of 100 and
# of 1,000,000 campaigns beside 10,000 other accounts (issue 39, item 3):
# BenchmarkScaleHTTP (internal/sqlite/scale_http_test.go), REPS times,
# each run measuring both sizes in one process, and the medians of the
# runs' figures and of their ratios (1,000,000 over 100).
#
#   bash bench/million.sh
#   REPS=5 BENCHTIME=20000x bash bench/million.sh
#   SETTINGS="default 2000,0 2000,1073741824" bash bench/million.sh
#
# SETTINGS lists the readers' memory to compare, run by run in turn
# (A B A B ...): "default" is what sqlite.Open sizes for the database and
# the machine, "cacheKiB,mmapBytes" sets both (ADCAMP_BENCH_READ_MEMORY).
# The first run seeds the million campaigns (a minute or two) into
# ${TMPDIR:-/tmp}/adcamp-bench-scale-*.db, kept for later runs (0.5 GB).
# The figures are wall-clock and CPU time of the requests (p50, p99):
# on a shared machine quote the CPU ones and the load printed beside.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-5}
benchtime=${BENCHTIME:-20000x}
settings=${SETTINGS:-default}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
(cd "$root" && go test -c -o "$work/sqlite.test" ./internal/sqlite/)
out=$work/million.txt
: >"$out"
for rep in $(seq "$reps"); do
	for s in $settings; do
		mem=
		[[ $s == default ]] || mem=$s
		echo "# rep $rep setting $s load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
		ADCAMP_BENCH_SCALE=1 ADCAMP_BENCH_READ_MEMORY=$mem "$work/sqlite.test" -test.run '^$' \
			-test.bench 'BenchmarkScaleHTTP' -test.benchtime "$benchtime" -test.timeout 60m |
			grep '^BenchmarkScaleHTTP' | sed "s/^/$s /" | tee -a "$out"
	done
done
echo
echo "medians of $reps runs ($out); ratio = the run's 1,000,000 figure over its 100 figure"
awk '
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^#/ { next }
{
	s = $1; size = $2; sub(/.*campaigns=/, "", size); sub(/\/.*/, "", size)
	for (i = 4; i < NF; i++) if ($(i + 1) ~ /^(ns\/op|p50-ns|p99-ns|cpu-p50-ns|cpu-p99-ns|reads\/op|faults\/op|rss-anon-MiB|rss-file-MiB)$/) v[$(i + 1)] = $i
	for (m in v) { key = s SUBSEP m; val[key, size] = val[key, size] " " v[m]; last[key, size] = v[m] }
	if (size == 1000000) for (m in v) if ((s, m, 100) in last) ratio[s, m] = ratio[s, m] " " v[m] / last[s, m, 100]
	delete v
	if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
}
END {
	nm = split("p50-ns p99-ns cpu-p50-ns cpu-p99-ns reads/op faults/op ns/op rss-anon-MiB rss-file-MiB", ms, " ")
	printf "%-24s %-14s %12s %12s %8s\n", "setting", "figure", "100", "1,000,000", "ratio"
	for (k = 1; k <= ns; k++) for (j = 1; j <= nm; j++) {
		s = order[k]; m = ms[j]
		printf "%-24s %-14s %12.2f %12.2f %7.2fx\n", s, m, median(val[s, m, 100]), median(val[s, m, 1000000]), median(ratio[s, m])
	}
}' "$out"
