#!/usr/bin/env bash
# profile.sh: runs adcamp serve (default settings, pinned to CPU 0) under the
# shared load generator (CPU 1) and takes a CPU profile of the server while
# the load runs. Prints the top of the CPU profile; it and the allocation
# profile are left in $WORK for `go tool pprof`.
#   C (connections, 16), DUR (load, 20s), SECONDS_PROFILED (15), MIX
# TRACE=SECONDS also takes a runtime trace that long, after the profiles,
# and prints where goroutines waited (go tool trace -pprof=sched|sync).
# STORE=postgres serves from a fresh schema of PostgreSQL (see pg-schema.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
C=${C:-16} DUR=${DUR:-20s} PROF=${SECONDS_PROFILED:-15} MIX=${MIX:-create=1,get=1,list=1,update=1}
mkdir -p "$work/data"
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/load" .)
db=()
if [[ ${STORE:-sqlite} == postgres ]]; then
	db=(--database-url "$(bash "$root/bench/pg-schema.sh" "$work/data")" --master-key-file "$work/data/master.key")
fi
taskset -c 0 "$work/adcamp" serve --data-dir "$work/data" --production-addr 127.0.0.1:18081 \
	--sandbox-addr "" --debug-addr 127.0.0.1:18089 "${db[@]}" 2>"$work/serve.log" &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fsS -o /dev/null http://127.0.0.1:18081/healthz 2>/dev/null && break; sleep 0.1; done
"$root/bench/setup-key.sh" "$work/adcamp" "$work/data"
key=$(sed -n 's/^KEY=//p' "$work/data/key.env") secret=$(sed -n 's/^SECRET=//p' "$work/data/key.env")
taskset -c 1 "$work/load" -url http://127.0.0.1:18081 -key "$key" -secret "$secret" \
	-sign-query=false -bodies contract -c "$C" -d "$DUR" -warmup 2s -mix "$MIX" -pid $srv &
ld=$!
sleep 3
curl -fsS -o "$work/cpu.pprof" "http://127.0.0.1:18089/debug/pprof/profile?seconds=$PROF"
curl -fsS -o "$work/allocs.pprof" "http://127.0.0.1:18089/debug/pprof/allocs"
if [[ -n ${TRACE:-} ]]; then
	curl -fsS -o "$work/trace.out" "http://127.0.0.1:18089/debug/pprof/trace?seconds=$TRACE"
fi
wait $ld
go tool pprof -top -nodecount=40 "$work/adcamp" "$work/cpu.pprof" 2>/dev/null | head -50
if [[ -n ${TRACE:-} ]]; then
	for kind in sched sync; do
		go tool trace -pprof=$kind "$work/trace.out" >"$work/$kind.pprof" 2>/dev/null
		echo "== waiting $([[ $kind == sched ]] && echo "to run, by what woke them" || echo "blocked on channels and locks")"
		go tool pprof -top -nodecount=12 "$work/adcamp" "$work/$kind.pprof" 2>/dev/null | sed -n '5,18p'
	done
fi
echo "profiles: $work/cpu.pprof, $work/allocs.pprof (go tool pprof -sample_index=alloc_space)${TRACE:+, $work/trace.out}"
