#!/usr/bin/env bash
# profile.sh: runs adcamp serve (default settings, pinned to CPU 0) under the
# shared load generator (CPU 1) and takes a CPU profile of the server while
# the load runs. Prints the top of the CPU profile; it and the allocation
# profile are left in $WORK for `go tool pprof`.
#   C (connections, 16), DUR (load, 20s), SECONDS_PROFILED (15), MIX
# TRACE=SECONDS also takes a runtime trace that long, after the profiles,
# and prints where goroutines waited (go tool trace -pprof=sched|sync).
# STORE=postgres serves from a fresh schema of PostgreSQL (see pg-schema.sh).
# PERF=1 also records the whole machine with perf (Debian's linux-perf)
# while the Go profile runs, and prints each program's share of the CPU
# and where PostgreSQL's backends spent theirs; PG_STATS=1 resets
# pg_stat_statements before the load and prints its top statements after
# (the extension must be in shared_preload_libraries: see bench/README.md).
# SYSCALLS=1 counts the server's read and write system calls while the Go
# profile runs (syscr and syscw of /proc/PID/io, which count every thread's,
# where perf stat -p misses the threads the Go runtime starts after it
# attaches) and prints them per request, by the load's requests a second.
# FOLLOW=1 runs the reference ad server beside the load, long-polling the
# serving feed (follow-feed.sh), as the sitting's FOLLOW=1 does.
# PG_WAITS=1 samples what PostgreSQL's backends of this database are doing
# (pg_stat_activity: state and wait event, 100 times a second while the Go
# profile runs) and prints how many backends, on average, were in each.
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
if [[ -n ${FOLLOW:-} ]]; then
	(cd "$root" && go build -o "$work/adserver" ./examples/adserver)
	"$root/bench/follow-feed.sh" "$work/adcamp" "$work/adserver" "$work/data" http://127.0.0.1:8083
fi
key=$(sed -n 's/^KEY=//p' "$work/data/key.env") secret=$(sed -n 's/^SECRET=//p' "$work/data/key.env")
taskset -c 1 "$work/load" -url http://127.0.0.1:18081 -key "$key" -secret "$secret" \
	-sign-query=false -bodies contract -c "$C" -d "$DUR" -warmup 2s -mix "$MIX" -pid $srv | tee "$work/load.out" &
ld=$!
base=${ADCAMP_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
if [[ -n ${PG_STATS:-} ]]; then
	psql -qAt "$base" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null
fi
sleep 3
if [[ -n ${SYSCALLS:-} ]]; then
	# io: the server's read and write system calls so far, "reads writes".
	io() { awk '$1 == "syscr:" { r = $2 } $1 == "syscw:" { w = $2 } END { print r, w }' "/proc/$srv/io"; }
	{ io; sleep "$PROF"; io; } >"$work/syscalls.txt" &
	sysc=$!
fi
if [[ -n ${PERF:-} ]]; then
	perf record -q -F 999 -a -g -o "$work/perf.data" -- sleep "$PROF" 2>/dev/null &
	perf=$!
fi
if [[ -n ${PG_WAITS:-} ]]; then
	{
		echo "CREATE TEMP TABLE s (ev text);"
		for _ in $(seq $((PROF * 100))); do
			echo "INSERT INTO s SELECT state || ' ' || coalesce(wait_event_type || ':' || wait_event, 'on CPU')
				FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
				AND datname = current_database() AND query NOT LIKE '%pg_stat_activity%'; SELECT pg_sleep(0.01);"
		done
		echo "SELECT round(count(*) / $((PROF * 100)).0, 2) AS backends, ev FROM s GROUP BY ev ORDER BY 1 DESC;"
	} | psql -qAt -F ' ' "$base" | grep -v '^$' >"$work/waits.txt" &
	waits=$!
fi
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
if [[ -n ${PERF:-} ]]; then
	wait $perf
	echo "== the machine's CPU by program (perf, $PROF s; swapper is idle)"
	perf report -i "$work/perf.data" --stdio --sort comm --no-children -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -6
	echo "== PostgreSQL's backends: share of the machine's CPU, including callees"
	perf report -i "$work/perf.data" --stdio --comm postgres --children --sort sym -g none 2>/dev/null |
		grep -E '\] (PostgresMain|PortalRun|CommitTransactionCommand|XLogFlush|pq_getbyte|ExecInsertIndexTuples|ExecSetParamPlan|standard_ExecutorStart|AfterTriggerEndQuery|heap_insert|__send)$'
fi
if [[ -n ${SYSCALLS:-} ]]; then
	wait $sysc
	rps=$(sed -n 's/.*: \([0-9]*\) req\/s total.*/\1/p' "$work/load.out")
	if [[ ${rps:-0} -gt 0 ]]; then
		echo "== the server's system calls a request ($PROF s at $rps requests a second)"
		awk -v n=$((rps * PROF)) 'NR == 1 { r = $1; w = $2 } NR == 2 { printf "%8.2f  read\n%8.2f  write\n", ($1 - r) / n, ($2 - w) / n }' "$work/syscalls.txt"
	else
		echo "== no requests a second in the load's output: the counts are in $work/syscalls.txt"
	fi
fi
if [[ -n ${PG_WAITS:-} ]]; then
	wait $waits
	echo "== PostgreSQL's backends (pg_stat_activity, $((PROF * 100)) samples): how many, on average, in each state and wait"
	cat "$work/waits.txt"
fi
if [[ -n ${PG_STATS:-} ]]; then
	echo "== pg_stat_statements: the top statements by time"
	psql "$base" -c "SELECT calls, round(total_exec_time::numeric) AS ms, round(mean_exec_time::numeric, 3) AS mean_ms,
		round(wal_bytes / calls) AS wal_bytes_per_call, left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS query
		FROM pg_stat_statements WHERE calls > 100 ORDER BY total_exec_time DESC LIMIT 12"
fi
echo "profiles: $work/cpu.pprof, $work/allocs.pprof (go tool pprof -sample_index=alloc_space)${TRACE:+, $work/trace.out}${PERF:+, $work/perf.data}"
