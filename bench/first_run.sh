#!/bin/bash
# The first run as a newcomer meets it (issue 56): a fresh clone's `make run`, timed until
# `GET /api/v1` answers, then until a game's page does (its pages come after the first
# answer), then until the background process is done; the build's stage lines and the load
# average beside. Nothing else should run meanwhile; the clone and its server are removed
# after.
#
#   bench/first_run.sh [REPO] [PORT]     (default: this checkout's HEAD, port 9310)
#
# Prints one block of lines; README.md#the-first-run lists runs of it.
set -u
REPO=${1:-$(git rev-parse --show-toplevel)}
PORT=${2:-9310}
DIR=$(mktemp -d /tmp/first-run.XXXXXX)
trap 'kill -TERM -- -$MK 2>/dev/null; rm -rf "$DIR"' EXIT
git clone -q "$REPO" "$DIR/clone"
cd "$DIR/clone"
load() { cut -d' ' -f1 /proc/loadavg; }
since() { echo "$(date +%s.%N) - $t0" | bc; }
echo "$(git rev-parse --short HEAD): start $(date -u +%T) UTC, load $(load)"
t0=$(date +%s.%N)
setsid make run PORT="$PORT" > "$DIR/run.log" 2>&1 &
MK=$!
wait_for() {  # a description, a bound in seconds, a command: poll every 0.5 s until it holds
  local what=$1 bound=$2; shift 2
  for _ in $(seq 1 $((bound * 2))); do "$@" && return 0; sleep 0.5; done
  echo "$what: not within $bound s"; tail -5 "$DIR/run.log"; exit 1
}
answers() { curl -s -o /dev/null "http://127.0.0.1:$PORT/api/v1"; }
page() { [ "$(curl -s -o /dev/null -w '%{http_code}' -L "http://127.0.0.1:$PORT/game/620")" = 200 ]; }
done_() { grep -q "kept stages:" var/background.log 2>/dev/null; }
wait_for "first answer" 900 answers
echo "first answer: $(since) s (load $(load))"
wait_for "a game page" 600 page
echo "a game page answers 200: $(since) s"
wait_for "the background process" 600 done_
echo "background done: $(since) s"
grep "^stage " "$DIR/run.log"
