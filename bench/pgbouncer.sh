#!/usr/bin/env bash
# pgbouncer.sh: adcamp serve through PgBouncer in transaction mode, under
# the sitting's mixed load for DUR (default 6s) at C connections (16):
# the migrations run on a direct URL, serve and the admin commands go
# through PgBouncer with default_query_exec_mode=exec. Prints the load's
# summary and the count of ERROR lines in serve's log; exits non-zero on
# a failed request. Needs pgbouncer (apt-get install pgbouncer); run as
# root it runs PgBouncer as the user postgres.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
C=${C:-16} DUR=${DUR:-6s}
BASE=${ADCAMP_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
PGB_PORT=${PGB_PORT:-6439} PORT=${PORT:-18781}
command -v pgbouncer >/dev/null || { echo "pgbouncer.sh: pgbouncer is not installed" >&2; exit 2; }
chmod 777 "$work"
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/load" .)
schema=bench_pgbouncer
psql -q "$BASE" -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema"
# The schema is set on each server connection as PgBouncer opens it: a
# search_path in the client's URL would not reach the server.
host=$(sed -E 's|^postgres(ql)?://([^@]*@)?([^:/?]*).*|\3|' <<<"$BASE")
cat >"$work/pgbouncer.ini" <<EOF
[databases]
adcamp = host=$host port=5432 dbname=test user=postgres connect_query='SET search_path = $schema'
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = trust
auth_file = $work/users.txt
pool_mode = transaction
default_pool_size = 10
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
EOF
echo '"postgres" ""' >"$work/users.txt"
chmod 644 "$work/pgbouncer.ini" "$work/users.txt"
user=(); [[ $(id -u) == 0 ]] && user=(-u postgres)
pgbouncer -d "${user[@]}" "$work/pgbouncer.ini"
trap 'kill $(cat "$work/pgbouncer.pid") 2>/dev/null || true; kill ${srv:-} 2>/dev/null || true' EXIT
sleep 0.5
sep='?'; [[ $BASE == *\?* ]] && sep='&'
direct="$BASE${sep}search_path=$schema"
bouncer="postgres://postgres@127.0.0.1:$PGB_PORT/adcamp?sslmode=disable&default_query_exec_mode=exec"
mkdir -p "$work/data"
(umask 077 && openssl rand -hex 32 >"$work/data/master.key")
db=(--master-key-file "$work/data/master.key")
# Migrations take a session's advisory lock: a direct connection.
acc=$("$work/adcamp" accounts create --name pgbouncer --json --database-url "$direct" "${db[@]}" |
	sed -n 's/.*"id": "\(.*\)".*/\1/p')
"$work/adcamp" keys create --account "$acc" --env production --json --database-url "$bouncer" "${db[@]}" >"$work/key.json"
key=$(sed -n 's/.*"api_key": "\(.*\)".*/\1/p' "$work/key.json")
secret=$(sed -n 's/.*"api_secret": "\(.*\)".*/\1/p' "$work/key.json")
"$work/adcamp" serve --data-dir "$work/data" --database-url "$bouncer" "${db[@]}" --production-addr 127.0.0.1:$PORT \
	--sandbox-addr "" --metrics-addr 127.0.0.1:$((PORT + 1)) --console-addr 127.0.0.1:$((PORT + 2)) --operator-addr "" >"$work/serve.log" 2>&1 &
srv=$!
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break; sleep 0.1; done
"$work/load" -url "http://127.0.0.1:$PORT" -key "$key" -secret "$secret" -bodies contract -sign-query=false \
	-c "$C" -d "$DUR" -warmup 1s -seed 200
echo "ERROR lines in serve's log: $(grep -c '"level":"ERROR"' "$work/serve.log" || true)"
