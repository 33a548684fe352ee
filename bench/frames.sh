#!/usr/bin/env bash
# frames.sh: which B-trees a commit writes on SQLite. Runs `adcamp serve` (default
# settings, pinned to CPU 0) under the shared load generator (CPU 1), traces the
# server's pwrite64 calls with strace for a few seconds in the middle of the load,
# and maps each WAL frame it wrote (its 24-byte header names the page) to the
# table or index that page belongs to in the database the run leaves (SQLite's
# dbstat). Prints frames a commit and a write request, then frames by B-tree.
# A frame is a page of 4 KiB written, checksummed and written again at the
# checkpoint: a commit costs about as many as it dirtied pages, so a B-tree
# that each change touches at a random place costs a frame a change.
#   MIX (default the sitting's mix), C (16), TRACED (seconds, 3)
# Needs strace, sqlite3 (the CLI, with dbstat) and python3 (Debian packages).
# The server runs slower while traced; the frames a commit hardly change.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$root/../shared/bench}
[[ -d $shared ]] || shared=$root/../../shared/bench # from a worktree under wt/
work=${WORK:-$(mktemp -d)}
C=${C:-16} TRACED=${TRACED:-3} MIX=${MIX:-create=1,get=1,list=1,update=1}
mkdir -p "$work/data"
(cd "$root" && go build -o "$work/adcamp" ./cmd/adcamp)
(cd "$shared/load" && go build -o "$work/load" .)
taskset -c 0 "$work/adcamp" serve --data-dir "$work/data" --production-addr 127.0.0.1:18081 \
	--sandbox-addr "" >"$work/serve.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fsS -o /dev/null http://127.0.0.1:18081/healthz 2>/dev/null && break; sleep 0.1; done
"$root/bench/setup-key.sh" "$work/adcamp" "$work/data"
key=$(sed -n 's/^KEY=//p' "$work/data/key.env") secret=$(sed -n 's/^SECRET=//p' "$work/data/key.env")
taskset -c 1 "$work/load" -url http://127.0.0.1:18081 -key "$key" -secret "$secret" \
	-sign-query=false -bodies contract -c "$C" -d "$((TRACED + 6))s" -warmup 2s -mix "$MIX" >"$work/load.out" &
ld=$!
sleep 3
timeout "$TRACED" strace -f -qq -e trace=pwrite64,write -o "$work/strace.txt" -p $srv || true
wait $ld
kill $srv
wait $srv 2>/dev/null || true
trap - EXIT
python3 - "$work/strace.txt" "$work/data/adcamp.db" "$MIX" <<'PY'
import collections, re, subprocess, sys
trace, db, mix = sys.argv[1:4]

def unescape(s):  # strace's C escapes back to bytes
    out, i = bytearray(), 0
    simple = {'n': 10, 't': 9, 'r': 13, 'v': 11, 'f': 12, '\\': 92, '"': 34, 'a': 7, 'b': 8}
    while i < len(s):
        if s[i] != '\\':
            out.append(ord(s[i])); i += 1; continue
        n = s[i + 1]
        if n in '01234567':
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in '01234567':
                j += 1
            out.append(int(s[i + 1:j], 8)); i = j
        elif n == 'x':
            out.append(int(s[i + 2:i + 4], 16)); i += 4
        else:
            out.append(simple[n]); i += 2
    return bytes(out)

pages, commits, responses = [], 0, 0
for line in open(trace):
    m = re.search(r'pwrite64\(\d+, "(.*)", 24, \d+\)', line)
    if m:  # a WAL frame's header: the page number, then the database size if it commits
        h = unescape(m.group(1))
        pages.append(int.from_bytes(h[0:4], 'big'))
        commits += int.from_bytes(h[4:8], 'big') != 0
    elif re.search(r' write\((\d+),', line) and not re.search(r' write\(2,', line):
        responses += 1  # a response to a client (the access log goes to fd 2)
names = {}
for row in subprocess.run(['sqlite3', db, 'SELECT pageno, name, pagetype FROM dbstat'],
                          capture_output=True, text=True, check=True).stdout.splitlines():
    p, name, kind = row.split('|')
    names[int(p)] = f'{name} ({kind})'
weights = dict(kv.split('=') for kv in mix.split(','))
writes = responses * sum(int(v) for k, v in weights.items() if k in ('create', 'update')) / sum(int(v) for v in weights.values())
print(f'{len(pages)} frames in {commits} commits ({len(pages) / max(commits, 1):.1f} a commit), '
      f'{responses} responses, {len(pages) / max(writes, 1):.2f} frames a write request')
for name, n in collections.Counter(names.get(p, '(freed since)') for p in pages).most_common(25):
    print(f'{n:7d}  {n / max(writes, 1):5.2f} a write  {name}')
PY
