#!/usr/bin/env bash
# cpu.sh: where the CPU of a request goes on PostgreSQL, for adcamp serve and
# for the PostgreSQL ceiling (pgceil of ../shared/bench, a team tool outside
# this repository), one short run each per MIX: the server's CPU a request
# (pinned to CPU 0, as in the sitting), PostgreSQL's (every postgres
# process, from /proc: backends, WAL writer, checkpointer) and the load
# generator's (CPU 1), with the run's throughput and p50 / p99 a request.
#   MIXES (default: the sitting's mix, then each operation alone), C (16),
#   DUR (8s), SYSTEMS ("pgceil project"), ROUNDS (1)
# Each run starts from a fresh schema; the machine must be otherwise idle.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
base=${ADCAMP_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
sep='?'; [[ $base == *\?* ]] && sep='&'
MIXES=${MIXES:-"create=1,get=1,list=1,update=1 create=1 get=1 list=1 update=1"}
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/load" .)
(cd "$shared/ceiling" && go build -o "$work/ceiling" .)

# ticks: the CPU time of every postgres process so far, in clock ticks.
ticks() {
	local t=0 p f
	for p in $(pgrep -x postgres); do
		read -r -a f <"/proc/$p/stat" 2>/dev/null || continue
		t=$((t + f[13] + f[14]))
	done
	echo "$t"
}
hz=$(getconf CLK_TCK)
srv=
trap '[[ -n $srv ]] && kill "$srv" 2>/dev/null; wait 2>/dev/null || true' EXIT

run() { # run SYSTEM MIX
	local sys=$1 mix=$2 dir=$work/$1 url args=() t0 t1 out n
	rm -rf "$dir"
	mkdir -p "$dir"
	if [[ $sys == pgceil ]]; then
		psql -q "$base" -c "DROP SCHEMA IF EXISTS ceil_cpu CASCADE" -c "CREATE SCHEMA ceil_cpu" 2>/dev/null
		taskset -c 0 "$work/ceiling" -addr 127.0.0.1:18080 -sign-query=false -store postgres \
			-database-url "$base${sep}search_path=ceil_cpu" >"$dir/server.log" 2>&1 &
		srv=$! url=http://127.0.0.1:18080
	else
		taskset -c 0 "$work/adcamp" serve --data-dir "$dir" --production-addr 127.0.0.1:18081 --sandbox-addr "" \
			--database-url "$(bash "$root/bench/pg-schema.sh" "$dir" 2>/dev/null)" \
			--master-key-file "$dir/master.key" >"$dir/server.log" 2>&1 &
		srv=$! url=http://127.0.0.1:18081
	fi
	for _ in $(seq 100); do curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && break; sleep 0.1; done
	if [[ $sys != pgceil ]]; then
		"$root/bench/setup-key.sh" "$work/adcamp" "$dir" >/dev/null
		args=(-key "$(sed -n 's/^KEY=//p' "$dir/key.env")" -secret "$(sed -n 's/^SECRET=//p' "$dir/key.env")")
	fi
	t0=$(ticks)
	out=$(taskset -c 1 "$work/load" -url "$url" "${args[@]}" -sign-query=false -bodies contract -c "${C:-16}" \
		-d "${DUR:-8s}" -warmup 0s -mix "$mix" -pid "$srv" 2>&1)
	t1=$(ticks)
	kill "$srv"
	wait "$srv" 2>/dev/null || true
	srv=
	n=$(sed -n 's/.* \([0-9]*\) ok.*/\1/p' <<<"$out")
	awk -v sys="$sys" -v mix="$mix" -v pg="$(((t1 - t0) * 1000000 / hz))" -v n="$n" '
		/req\/s total/ { rps = $4; for (i = 1; i <= NF; i++) { if ($i == "CPU" && $(i-1) == "server") srv = $(i+1); if ($i == "client") cli = $(i+2) }
			sub(/s,?$/, "", cli) }
		$1 ~ /^(create|get|list|update)$/ && $2 > 0 { lat = lat sprintf(" %s %s/%s", $1, $5, $7) }
		END { printf "%-8s %-32s %6d req/s  server %5.0f  postgres %5.0f  load %4.0f us/req  p50/p99 ms:%s\n",
			sys, mix, rps, srv, pg / n, cli * 1000000 / n, lat }' <<<"$out"
}

for _ in $(seq "${ROUNDS:-1}"); do
	for mix in $MIXES; do
		for sys in ${SYSTEMS:-pgceil project}; do
			run "$sys" "$mix"
		done
	done
done
