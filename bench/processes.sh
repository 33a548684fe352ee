#!/usr/bin/env bash
# processes.sh: adcamp on PostgreSQL served by one process, then by N
# processes on one database (default 2), each process with a load
# generator of its own taking an equal share of the connections, all
# running at once; A B A B ... for REPS, printing each run's total req/s,
# p99 and server CPU per request, and the ratio of N processes to one,
# paired run by run. The load generator and its settings are those of the
# sitting (../shared/bench): the servers on SERVER_CPUS (default 0), the
# generators on LOAD_CPUS (default 1), PostgreSQL unpinned.
#
#   N=2 REPS=3 CONCS="16 64" DUR=8s WARMUP=2s bash bench/processes.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
N=${N:-2} REPS=${REPS:-3} CONCS=${CONCS:-"16 64"} DUR=${DUR:-8s} WARMUP=${WARMUP:-2s}
MIX=${MIX:-create=1,get=1,list=1,update=1} SEED=${SEED:-1000}
SERVER_CPUS=${SERVER_CPUS-0} LOAD_CPUS=${LOAD_CPUS-1}
BASE_PORT=${BASE_PORT:-18181}
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/bin/load" .)
SRV=() LDG=()
[[ -n $SERVER_CPUS ]] && SRV=(taskset -c "$SERVER_CPUS")
[[ -n $LOAD_CPUS ]] && LDG=(taskset -c "$LOAD_CPUS")

pids=()
stop_all() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
trap stop_all EXIT

run() { # run PROCS CONC REP: one line of results
	local procs=$1 c=$2 rep=$3 dir=$work/run-p$1-c$2-r$3 url i
	url=$(bash "$root/bench/pg-schema.sh" "$dir")
	for i in $(seq 1 "$procs"); do
		"${SRV[@]}" "$work/adcamp" serve --data-dir "$dir" --database-url "$url" --master-key-file "$dir/master.key" \
			--production-addr 127.0.0.1:$((BASE_PORT + i)) --sandbox-addr "" \
			--metrics-addr 127.0.0.1:$((BASE_PORT + 20 + i)) --console-addr 127.0.0.1:$((BASE_PORT + 40 + i)) --operator-addr "" \
			>"$dir/server$i.log" 2>&1 &
		pids+=($!)
	done
	for i in $(seq 1 "$procs"); do
		for _ in $(seq 1 150); do
			curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$((BASE_PORT + i))/healthz" 2>/dev/null && break
			sleep 0.1
		done
	done
	bash "$root/bench/setup-key.sh" "$work/adcamp" "$dir"
	local key secret
	key=$(sed -n 's/^KEY=//p' "$dir/key.env")
	secret=$(sed -n 's/^SECRET=//p' "$dir/key.env")
	local gens=()
	for i in $(seq 1 "$procs"); do
		"${LDG[@]}" "$work/bin/load" -url "http://127.0.0.1:$((BASE_PORT + i))" -key "$key" -secret "$secret" \
			-sign-query=false -bodies contract -label "p$procs" -rep "$rep" -c $((c / procs)) -d "$DUR" \
			-warmup "$WARMUP" -seed $((SEED / procs)) -mix "$MIX" -pid "${pids[$((i - 1))]}" -q \
			-json "$dir/load$i.json" >"$dir/load$i.out" 2>&1 &
		gens+=($!)
	done
	for g in "${gens[@]}"; do wait "$g" || echo "processes: a load generator failed (see $dir)" >&2; done
	stop_all
	python3 - "$procs" "$c" "$rep" "$dir" <<'EOF'
import json, sys, glob
procs, c, rep, d = sys.argv[1:]
rs = [json.loads(l) for f in sorted(glob.glob(d + "/load*.json")) for l in open(f)]
rps = sum(r["total_rps"] for r in rs)
errs = sum(r["total_errors"] for r in rs)
cpu = [r.get("server_cpu_us_per_req", 0) for r in rs]
p99 = max((o["p99_ms"] for r in rs for o in r["ops"]), default=0)
print(f"procs={procs} c={c} rep={rep} req/s={rps:.0f} errors={errs} p99_ms={p99:.1f} cpu_us/req={'/'.join(f'{x:.0f}' for x in cpu)}")
EOF
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
	for c in $CONCS; do
		run 1 "$c" "$rep" | tee -a "$work/results.txt"
		run "$N" "$c" "$rep" | tee -a "$work/results.txt"
	done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results.txt" "$N" <<'EOF'
import sys, re, statistics
rows = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
n = sys.argv[2]
for c in sorted({r["c"] for r in rows}, key=int):
    ratios = []
    for rep in sorted({r["rep"] for r in rows}):
        one = [float(r["req/s"]) for r in rows if r["c"] == c and r["rep"] == rep and r["procs"] == "1"]
        many = [float(r["req/s"]) for r in rows if r["c"] == c and r["rep"] == rep and r["procs"] == n]
        if one and many and one[0]:
            ratios.append(many[0] / one[0])
    if ratios:
        print(f"c={c}: {n} processes / 1 process, median of {len(ratios)}: {statistics.median(ratios):.2f}x {['%.2f' % x for x in ratios]}")
EOF
