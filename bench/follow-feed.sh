#!/usr/bin/env bash
# follow-feed.sh ADCAMP_BIN ADSERVER_BIN DATA_DIR OPERATOR_URL: starts the
# reference ad server (examples/adserver) against the adcamp serve running
# on DATA_DIR, for the sitting's FOLLOW=1 (the feed's reads beside the API,
# issue 33): an operator key is made, the ad server takes the production
# snapshot and long-polls the changes on CPU 1 (the load generator's) until
# that serve exits, then stops. Its log is DATA_DIR/adserver.log.
set -euo pipefail
bin=$1 adserver=$2 dir=$3 url=$4
if [[ -f $dir/database.url ]]; then
	export ADCAMP_DATABASE_URL=$(cat "$dir/database.url") ADCAMP_MASTER_KEY_FILE=$dir/master.key
fi
server=$(pgrep -f -- "serve --data-dir $dir " | head -1)
[[ -n $server ]] || { echo "follow-feed: no adcamp serve on $dir" >&2; exit 1; }
"$bin" operator-keys create --name sitting --json --data-dir "$dir" > "$dir/operator-key.json"
key=$(sed -n 's/.*"api_key": "\(.*\)".*/\1/p' "$dir/operator-key.json")
secret=$(sed -n 's/.*"api_secret": "\(.*\)".*/\1/p' "$dir/operator-key.json")
pin=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin="taskset -c 1"; fi
$pin "$adserver" -operator-url "$url" -key "$key" -secret "$secret" -environment production \
	>"$dir/adserver.log" 2>&1 </dev/null &
follower=$!
# The ad server outlives nothing: it stops with the serve it follows.
(while kill -0 "$server" 2>/dev/null; do sleep 0.2; done; kill "$follower" 2>/dev/null) \
	>/dev/null 2>&1 </dev/null &
# The snapshot is taken before the load starts.
for _ in $(seq 1 100); do grep -q '^.*snapshot:' "$dir/adserver.log" && exit 0; sleep 0.1; done
echo "follow-feed: the ad server took no snapshot; see $dir/adserver.log" >&2
exit 1
