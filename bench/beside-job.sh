#!/usr/bin/env bash
# beside-job.sh: the account API's latency in a sitting, alone and beside a
# report job (issue 34: "while one runs the account API keeps answering:
# its p99 in a sitting stays within 2× of the same sitting without the
# job").
#
# One adcamp serve, pinned to CPU 0 as in sitting.sh, on PostgreSQL (STORE=
# postgres, the default; a fresh schema, see pg-schema.sh) or SQLite
# (STORE=sqlite). Its sandbox is filled once: KEYWORDS keywords (2,000, in
# campaigns of 100),
# each with 30 days of simulated hourly delivery (POST /sandbox/simulate,
# about 1.42 M hourly rows at the default). Then, REPS times for each of CONCS,
# two runs of the team's load generator (the mixed sitting's signed
# create / get / list / update on production, pinned to CPU 1): "alone",
# and "beside-job", during which a loop keeps one report job of the
# sandbox running without a pause (keyword by hour over the 30 days,
# csv.gz, created, waited for, then again; not downloaded). The two alternate, and the summary pairs them
# run by run: ratio and p99 of "beside-job" against "alone".
#
# The load generator is the team's yardstick under ../shared/bench (not
# part of this repository; SHARED_BENCH names another copy).
#
#   REPS=3 DUR=8s WARMUP=2s bash bench/beside-job.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
REPS=${REPS:-3}
CONCS=${CONCS:-"16 64"}
DUR=${DUR:-8s}
WARMUP=${WARMUP:-2s}
MIX=${MIX:-create=1,get=1,list=1,update=1}
KEYWORDS=${KEYWORDS:-2000}
STORE=${STORE:-postgres}
port=${PROJECT_PORT:-18081}
sandbox=$((port + 4))
out=$work/results-$(date -u +%Y%m%dT%H%M%SZ).jsonl

(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/load" .)
bin=$work/adcamp
dir=$work/data
rm -rf "$dir"
mkdir -p "$dir"
args=(serve --data-dir "$dir" --production-addr "127.0.0.1:$port" --sandbox-addr "127.0.0.1:$sandbox"
	--metrics-addr "127.0.0.1:$((port + 1000))" --console-addr "127.0.0.1:$((port + 1001))"
	--operator-addr "127.0.0.1:$((port + 1002))")
if [[ $STORE == postgres ]]; then
	args+=(--database-url "$(bash "$root/bench/pg-schema.sh" "$dir")" --master-key-file "$dir/master.key")
fi
taskset -c 0 "$bin" "${args[@]}" >"$dir/server.log" 2>&1 &
pid=$!
jobs_pid=
stop() {
	[[ -z $jobs_pid ]] || kill "$jobs_pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
trap stop EXIT
for _ in $(seq 1 300); do
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done

# The production key the load signs with, and a sandbox key of the same
# account for the data and the jobs.
bash "$root/bench/setup-key.sh" "$bin" "$dir"
if [[ -f $dir/database.url ]]; then
	export ADCAMP_DATABASE_URL=$(cat "$dir/database.url") ADCAMP_MASTER_KEY_FILE=$dir/master.key
fi
acc=$("$bin" accounts create --name jobs --json --data-dir "$dir" | sed -n 's/.*"id": "\(.*\)".*/\1/p')
"$bin" keys create --account "$acc" --env sandbox --json --data-dir "$dir" >"$dir/sandbox.json"
export ADCAMP_API_KEY=$(sed -n 's/.*"api_key": "\(.*\)".*/\1/p' "$dir/sandbox.json")
export ADCAMP_API_SECRET=$(sed -n 's/.*"api_secret": "\(.*\)".*/\1/p' "$dir/sandbox.json")
export ADCAMP_BASE_URL=http://127.0.0.1:$sandbox
echo "== filling the sandbox: $KEYWORDS keywords, 30 days ($(date -u +%T))"
for c in $(seq 1 $(((KEYWORDS + 99) / 100))); do
	cmp=$("$bin" campaigns create --name "Campaign $c" --budget 100000 --marketplace US --json |
		sed -n 's/^  "id": "\(.*\)".*/\1/p')
	grp=$("$bin" ad-groups create --campaign "$cmp" --name "Group $c" --default-bid 0.50 --json |
		sed -n 's/^  "id": "\(.*\)".*/\1/p')
	{
		echo text,match_type,bid,status
		for k in $(seq 1 100); do echo "keyword $c $k,exact,,active"; done
	} | "$bin" keywords create --ad-group "$grp" --file - >/dev/null
done
"$bin" sandbox simulate --days 30
from=$(date -u -d '29 days ago' +%F) to=$(date -u +%F)

# jobloop keeps one job running: created, waited for (not downloaded: a
# download is a request of the API, not the job), then again.
jobloop() {
	local id
	while :; do
		id=$("$bin" reports job create --level keyword --granularity hour --from "$from" --to "$to" \
			--format csv.gz --wait=false --json | sed -n 's/^  "id": "\(.*\)".*/\1/p')
		while "$bin" reports job get "$id" --json | grep -Eq '"status": "(pending|running)"'; do sleep 0.5; done
		echo "$(date -u +%T) $id done" >>"$work/jobs.log"
	done
}

key=$(sed -n 's/^KEY=//p' "$dir/key.env")
secret=$(sed -n 's/^SECRET=//p' "$dir/key.env")
for rep in $(seq 1 "$REPS"); do
	for c in $CONCS; do
		for label in alone beside-job; do
			if [[ $label == beside-job ]]; then
				jobloop &
				jobs_pid=$!
				sleep 2 # the job under way
			fi
			echo "== $label c=$c rep=$rep ($(cut -d' ' -f1-3 /proc/loadavg))"
			taskset -c 1 "$work/load" -url "http://127.0.0.1:$port" -key "$key" -secret "$secret" \
				-sign-query=false -bodies contract -label "$label" -rep "$rep" -c "$c" -d "$DUR" \
				-warmup "$WARMUP" -mix "$MIX" -pid "$pid" -json "$out" ||
				echo "beside-job: load run failed for $label c=$c rep=$rep" >&2
			if [[ -n $jobs_pid ]]; then
				kill "$jobs_pid" 2>/dev/null || true
				wait "$jobs_pid" 2>/dev/null || true
				jobs_pid=
				# The server's job goes on without its client: wait for it, so
				# that the next run is alone.
				while "$bin" reports jobs --json | grep -Eq '"status": "(pending|running)"'; do sleep 1; done
			fi
			sleep 1
		done
	done
done
echo
echo "jobs done: $(grep -c . "$work/jobs.log" 2>/dev/null || echo 0) (their times in $work/jobs.log; each job's start and end in $dir/server.log)"
echo "results: $out"
"$work/load" -summarize "$out" -ref alone
