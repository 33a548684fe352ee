#!/usr/bin/env bash
# ab.sh BIN_A BIN_B: two builds of adcamp under the same load, alternated
# (A B A B ...), to tell whether a change helps when the sitting's ratios
# move with the machine. Each run starts `serve` (default settings, pinned to
# CPU 0) on a fresh data directory, makes a key (setup-key.sh) and drives the
# shared load generator (CPU 1) at it; prints each run's req/s and the
# server's CPU a request, then each build's medians.
#   MIX (the sitting's mix), C (16), DUR (8s), N (alternations, 4)
# Build the two first, e.g.:
#   go build -o /tmp/a ./cmd/adcamp; git stash; go build -o /tmp/b ./cmd/adcamp; git stash pop
#   go build -tags adcamp_nohistory -o /tmp/b ./cmd/adcamp   # the history's A/B
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
MIX=${MIX:-create=1,get=1,list=1,update=1} C=${C:-16} DUR=${DUR:-8s} N=${N:-4}
(cd "$shared/load" && go build -o "$work/load" .)
run() { # run BIN: one run, printing "req/s cpu-us-a-request"
	local data
	data=$(mktemp -d "$work/data.XXXX")
	taskset -c 0 "$1" serve --data-dir "$data" --production-addr 127.0.0.1:18081 --sandbox-addr "" \
		--console-addr "" --operator-addr "" --metrics-addr "" >"$data/serve.log" 2>&1 &
	local srv=$!
	for _ in $(seq 100); do curl -fsS -o /dev/null http://127.0.0.1:18081/healthz 2>/dev/null && break; sleep 0.1; done
	"$root/bench/setup-key.sh" "$1" "$data"
	local key secret
	key=$(sed -n 's/^KEY=//p' "$data/key.env") secret=$(sed -n 's/^SECRET=//p' "$data/key.env")
	taskset -c 1 "$work/load" -url http://127.0.0.1:18081 -key "$key" -secret "$secret" -sign-query=false \
		-bodies contract -c "$C" -d "$DUR" -warmup 2s -mix "$MIX" -pid $srv |
		sed -n 's/.*: \([0-9]*\) req\/s total.*server CPU \([0-9.]*\) us\/req.*/\1 \2/p'
	kill $srv
	wait $srv 2>/dev/null || true
	rm -rf "$data"
}
for i in $(seq "$N"); do
	for side in A B; do
		bin=$1
		[[ $side == B ]] && bin=$2
		echo "$side $(run "$bin")"
	done
done | tee "$work/ab.txt"
awk '{ n[$1]++; rs[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3 }
	function median(a, s, k,   v, i, j, t) {
		for (i = 1; i <= k; i++) v[i] = a[s, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	END { for (s in n) printf "%s: median %d req/s, %.1f us of CPU a request (%d runs)\n", s, median(rs, s, n[s]), median(cpu, s, n[s]), n[s] }' \
	"$work/ab.txt" | sort
