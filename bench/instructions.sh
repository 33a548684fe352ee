#!/usr/bin/env bash
# instructions.sh: instructions per request of the Go benchmarks
# BenchmarkRequest/* (the real handler over SQLite, in process, or over
# PostgreSQL with ADCAMP_TEST_STORE=postgres and ADCAMP_TEST_POSTGRES_URL;
# PostgreSQL's own work is another process and not counted), counted by
# valgrind's callgrind: repeatable to about half a percent, where timings
# on a shared machine vary by tens of percent. Only the instructions run
# inside the handler's ServeHTTP count (not building and signing the
# requests, nor the background work that depends on how long the run
# takes). Each figure is (count at N2 - count at N1) / (N2 - N1), so that
# the first requests' warm-up cancels out. Writes commit one at a time
# here, where the server under load shares commits.
#   BENCH (names, default all four), N1 (500), N2 (2500), TAGS (build tags:
#   adcamp_nohistory counts the changes without their history records,
#   adcamp_noevents without their webhook events and outbox rows)
# Needs valgrind (Debian package valgrind).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
N1=${N1:-500} N2=${N2:-2500}
(cd "$root" && go test -c -tags "${TAGS:-}" -o "$work/httpapi.test" ./internal/httpapi/)
count() { # count BENCH N: instructions of the whole run
	# asyncpreemptoff: callgrind stops on Go's preemption signals.
	# cpu.rdtscp=off: Go reads the clock with RDTSCP, which callgrind cannot run.
	# The benchmark's goroutine keeps its thread (ADCAMP_BENCH_LOCK_THREAD):
	# callgrind's toggle is by thread, and a goroutine that yields (as a
	# write does before it commits) could come back on another.
	ADCAMP_BENCH_LOCK_THREAD=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
		--toggle-collect='*httpapi.(*Server).ServeHTTP' \
		"$work/httpapi.test" -test.run '^$' -test.bench "^BenchmarkRequest/$1\$" -test.benchtime "${2}x" -test.cpu 1 2>&1 |
		sed -n 's/.*Collected : *//p'
}
for b in ${BENCH:-CreateCampaign GetCampaign ListCampaigns UpdateCampaign}; do
	a=$(count "$b" "$N1")
	z=$(count "$b" "$N2")
	echo "$b $(( (z - a) / (N2 - N1) )) instructions/request"
done
