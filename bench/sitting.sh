#!/usr/bin/env bash
# sitting.sh: builds adcamp and runs it side by side with the SQLite
# ceiling of ../shared/bench (default settings of adcamp serve), printing
# the median tables. REPS, CONCS, DUR, WARMUP and MIX pass through.
# STORE=postgres runs adcamp on PostgreSQL (a fresh schema per run, see
# pg-schema.sh; ADCAMP_BENCH_POSTGRES_URL names the database) instead,
# beside the PostgreSQL ceiling (pgceil) unless SYSTEMS says otherwise.
# TAGS builds adcamp with those build tags (adcamp_noevents: without the
# webhook outbox's writes, to measure what they cost). FOLLOW=1 runs the
# reference ad server (examples/adserver) beside every run of adcamp: it takes
# the serving feed's snapshot, then long-polls its changes for the whole run
# (follow-feed.sh), to measure what the feed's reads cost the API.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
(cd "$root" && go build -tags "${TAGS:-}" -o "$work/adcamp" ./cmd/adcamp)
[[ -z ${FOLLOW:-} ]] || (cd "$root" && go build -o "$work/adserver" ./examples/adserver)
if [[ ${STORE:-sqlite} == postgres ]]; then
	# adcamp on PostgreSQL is held against the PostgreSQL ceiling.
	export WORK=$work SYSTEMS=${SYSTEMS:-"pgceil project"} REF=${REF:-pgceil}
else
	export WORK=$work SYSTEMS=${SYSTEMS:-"sqlite project"} REF=${REF:-sqlite}
fi
# PROJECT_PORT moves adcamp off 18081 (another sitting on the machine).
port=${PROJECT_PORT:-18081}
export PROJECT_URL=http://127.0.0.1:$port
export PROJECT_CMD="$work/adcamp serve --data-dir {dir} --production-addr 127.0.0.1:$port --sandbox-addr \"\""
operator=127.0.0.1:8083
if [[ $port != 18081 ]]; then
	operator=127.0.0.1:$((port + 1002))
	PROJECT_CMD+=" --metrics-addr 127.0.0.1:$((port + 1000)) --console-addr 127.0.0.1:$((port + 1001)) --operator-addr=$operator"
fi
if [[ ${STORE:-sqlite} == postgres ]]; then
	PROJECT_CMD+=" --database-url \"\$(bash $root/bench/pg-schema.sh {dir})\" --master-key-file {dir}/master.key"
fi
export PROJECT_SETUP="$root/bench/setup-key.sh $work/adcamp {dir}"
if [[ -n ${FOLLOW:-} ]]; then
	PROJECT_SETUP+=" && $root/bench/follow-feed.sh $work/adcamp $work/adserver {dir} http://$operator"
fi
exec bash "$shared/scripts/sitting.sh"
