#!/usr/bin/env bash
# backup.sh: what writes see while adcamp backup runs (bench/notes/backup.md).
# Builds adcamp, serves a fresh SQLite data directory (pinned to CPU 0, as
# in the sitting), seeds SEED campaigns, then runs backupwrites (CPU 1):
# C writers creating campaigns for WINDOW, adcamp backup --to, WINDOW more.
#   SEED (200000), C (16), WINDOW (5s), PORT (18091), BACKUP_CPUS (0,1: the
#   backup may run on either core, beside the server or the load), OUT_DIR
#   (where the backup goes; default: beside the data), GAPS (set: list
#   each longest time with no write completing, by when it ended)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
[[ -n ${WORK:-} ]] || cleanup=$work # a fresh one goes once done: it holds GBs
port=${PORT:-18091}
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp && go build -o "$work/backupwrites" ./bench/backupwrites)
dir=$work/data
pin0="" pin1=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0" pin1="taskset -c 1"; fi
$pin0 "$work/adcamp" serve --data-dir "$dir" --production-addr "127.0.0.1:$port" --sandbox-addr "" \
	--metrics-addr "" --console-addr "" --operator-addr "" --log-level error &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "${cleanup:-}"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
bash "$root/bench/setup-key.sh" "$work/adcamp" "$dir"
source "$dir/key.env"
$pin1 "$work/backupwrites" -url "http://127.0.0.1:$port" -key "$KEY" -secret "$SECRET" -c "${C:-16}" \
	-seed "${SEED:-200000}" -window "${WINDOW:-5s}" -- \
	${pin0:+taskset -c ${BACKUP_CPUS:-0,1}} "$work/adcamp" backup --to "${OUT_DIR:-$work}/adcamp-$$.tar" --data-dir "$dir"
ls -l "$dir/adcamp.db" "${OUT_DIR:-$work}/adcamp-$$.tar"; rm -f "${OUT_DIR:-$work}/adcamp-$$.tar"
