#!/usr/bin/env bash
# pgbench.sh: what a create costs PostgreSQL alone, without HTTP or Go.
# pgbench (Debian's postgresql package) runs bench/pgbench/create.sql
# (adcamp's statement for a create) and bench/pgbench/ceiling.sql (the
# ceiling's INSERT) from C clients (8) on 2 threads, RUNS times (3) for DUR
# seconds (5) each, in a fresh schema that adcamp migrates, and prints
# transactions a second. SCRIPTS picks the scripts (default "ceiling
# create"); to see what a part of the schema costs, drop it in the schema
# printed first and run again with KEEP=schema.
# The database is ADCAMP_BENCH_POSTGRES_URL (default: this machine's test
# database), as for pg-schema.sh.
set -euo pipefail
command -v pgbench >/dev/null || PATH=$PATH:$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
base=${ADCAMP_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
sep='?'; [[ $base == *\?* ]] && sep='&'
if [[ -n ${KEEP:-} ]]; then
	schema=$KEEP
	account=$(psql -At "$base" -c "SELECT id FROM $schema.accounts LIMIT 1")
else
	(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
	url=$(bash "$root/bench/pg-schema.sh" "$work/pgbench")
	schema=${url##*search_path=}
	schema=${schema%%&*}
	account=$("$work/adcamp" accounts create --database-url "$url" --master-key-file "$work/pgbench/master.key" \
		--name Bench --json | sed -n 's/.*"id": "\(.*\)".*/\1/p')
	psql -q "$base" -c "CREATE TABLE $schema.ceiling (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		name TEXT NOT NULL, budget_daily DOUBLE PRECISION NOT NULL, marketplace TEXT NOT NULL,
		status TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)"
fi
echo "schema $schema, account $account"
for script in ${SCRIPTS:-ceiling create}; do
	for i in $(seq "${RUNS:-3}"); do
		tps=$(pgbench -n -M prepared -c "${C:-8}" -j 2 -T "${DUR:-5}" -D "account=$account" \
			-f "$root/bench/pgbench/$script.sql" "$base${sep}options=-csearch_path%3D$schema" 2>&1 |
			sed -n 's/^tps = \([0-9]*\).*/\1/p')
		echo "$script run $i: ${tps:-failed} transactions a second"
	done
done
