#!/usr/bin/env bash
# pg-schema.sh DIR: makes a fresh PostgreSQL schema for one benchmark run
# in DIR (dropping one of the same name), writes its URL to DIR/database.url
# and prints it, and writes a new master key to DIR/master.key. The database is ADCAMP_BENCH_POSTGRES_URL (default: this
# machine's test database).
set -euo pipefail
dir=$1
base=${ADCAMP_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
schema=bench_$(basename "$dir" | tr -c 'a-zA-Z0-9_\n' _)
psql -q "$base" -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema" >&2
sep='?'; [[ $base == *\?* ]] && sep='&'
mkdir -p "$dir"
(umask 077 && openssl rand -hex 32 > "$dir/master.key")
# ADCAMP_BENCH_POSTGRES_PARAMS: more parameters for adcamp only (say
# pool_max_conns=16), which psql would refuse.
echo "$base${sep}search_path=$schema${ADCAMP_BENCH_POSTGRES_PARAMS:+&$ADCAMP_BENCH_POSTGRES_PARAMS}" | tee "$dir/database.url"
