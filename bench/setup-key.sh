#!/usr/bin/env bash
# setup-key.sh ADCAMP_BIN DATA_DIR: creates an account and a production key
# in DATA_DIR (while serve runs there) and writes KEY= and SECRET= lines to
# DATA_DIR/key.env, as the sitting script's PROJECT_SETUP expects. On
# PostgreSQL, the database is the one in DATA_DIR/database.url.
set -euo pipefail
bin=$1 dir=$2
# A run on PostgreSQL (sitting.sh with STORE=postgres) left its URL here.
if [[ -f $dir/database.url ]]; then
	export ADCAMP_DATABASE_URL=$(cat "$dir/database.url") ADCAMP_MASTER_KEY_FILE=$dir/master.key
fi
acc=$("$bin" accounts create --name bench --json --data-dir "$dir" | sed -n 's/.*"id": "\(.*\)".*/\1/p')
"$bin" keys create --account "$acc" --env production --json --data-dir "$dir" > "$dir/key.json"
echo "KEY=$(sed -n 's/.*"api_key": "\(.*\)".*/\1/p' "$dir/key.json")" > "$dir/key.env"
echo "SECRET=$(sed -n 's/.*"api_secret": "\(.*\)".*/\1/p' "$dir/key.json")" >> "$dir/key.env"
