# Shared by the sample scripts: build once, make keys, start and stop nodes on 127.0.0.1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ensure_build() {
  if ! pkg-config --exists libsodium 2>/dev/null; then
    echo "installing libsodium-dev…" >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq libsodium-dev pkg-config >/dev/null
    else sudo apt-get update -qq && sudo apt-get install -y -qq libsodium-dev pkg-config >/dev/null; fi
  fi
  swift build --product parley >&2
  PARLEY="$(swift build --show-bin-path)/parley"
}

ensure_key() {
  local name=$1
  [ -f "keys/$name.key" ] || "$PARLEY" keygen "$name" --dir keys >/dev/null
}

DEMO_DIR="$(mktemp -d "${TMPDIR:-/tmp}/parley-demo.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$DEMO_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_node NAME PORT PEER_PORT… (EXTRA_NODE_ARGS, when set, are passed on, e.g. --web HOST:PORT)
EXTRA_NODE_ARGS=()
start_node() {
  local name=$1 port=$2; shift 2
  local peers=()
  for p in "$@"; do peers+=(--peer "127.0.0.1:$p"); done
  "$PARLEY" node --key "keys/$name.key" --data "$DEMO_DIR/$name" --listen "127.0.0.1:$port" "${peers[@]}" \
    "${EXTRA_NODE_ARGS[@]}" --log-level warning >"$DEMO_DIR/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do [ -S "$DEMO_DIR/$name/control.sock" ] && return 0; sleep 0.1; done
  echo "node $name did not start:" >&2; cat "$DEMO_DIR/$name.log" >&2; exit 1
}

as() { local name=$1; shift; "$PARLEY" "$@" --data "$DEMO_DIR/$name"; }

# wait_for NAME COMMAND… : retries a command until it succeeds (at most 10 s).
wait_for() {
  local name=$1; shift
  for _ in $(seq 1 100); do as "$name" "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  as "$name" "$@"
}

# wait_until NAME PATTERN COMMAND… : retries until the command's output matches PATTERN (at most
# 10 s), and stops the script with a clear line if it never does.
wait_until() {
  local name=$1 pattern=$2; shift 2
  for _ in $(seq 1 100); do as "$name" "$@" 2>/dev/null | grep -q -- "$pattern" && return 0; sleep 0.1; done
  echo "$name: timed out waiting for '$pattern' in: parley $*" >&2
  exit 1
}

# shared_results NAME CHAT POLL: the poll's JSON results without this user's own choices, which
# differ per peer by design; what is left must be identical on every peer.
shared_results() {
  as "$1" poll results "$2" "$3" --json | sed 's/"ownVotes":\[[^]]*\],//; s/"myVote":"[a-z]*",//'
}

# start_trio BASE_PORT: alice, bob and carol on BASE, BASE+1, BASE+2, each a contact of the others.
start_trio() {
  local base=$1
  for n in alice bob carol; do ensure_key "$n"; done
  start_node alice "$base" $((base + 1)) $((base + 2))
  start_node bob $((base + 1)) "$base" $((base + 2))
  start_node carol $((base + 2)) "$base" $((base + 1))
  for me in alice bob carol; do
    for other in alice bob carol; do
      [ "$me" = "$other" ] || as "$me" contacts add "keys/$other.pub" --name "$other" >/dev/null
    done
  done
}
