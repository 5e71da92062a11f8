# Shared by the sample scripts: find (or build) `parley`, then start and stop nodes on 127.0.0.1.
# Keys, data and logs live in a temporary directory, removed at exit, and every node listens on a
# port the system picks, so samples run side by side, and beside the tests, without colliding.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# $PARLEY as given is relative to where the sample started, or a command on the PATH: made absolute
# before the samples move into their own directory.
case ${PARLEY:-} in
  "") ;;
  */*) PARLEY="$(realpath -ms -- "$PARLEY")" ;;
  *) PARLEY="$(command -v -- "$PARLEY" || echo "$PARLEY")" ;;
esac
DEMO_DIR="$(mktemp -d "${TMPDIR:-/tmp}/parley-demo.XXXXXX")"
cd "$DEMO_DIR"

# Sets PARLEY: $PARLEY when set, else `parley` on the PATH, else built from this checkout (with
# libsodium-dev, libturbojpeg0-dev and libpng-dev installed first when missing: Debian/Ubuntu, via apt).
ensure_build() {
  if [ -n "${PARLEY:-}" ]; then
    [ -x "$PARLEY" ] || { echo "PARLEY=$PARLEY is not an executable file" >&2; exit 1; }
    return 0
  fi
  if PARLEY="$(command -v parley)"; then return 0; fi
  local need=()
  pkg-config --exists libsodium 2>/dev/null || need+=(libsodium-dev)
  pkg-config --exists libturbojpeg 2>/dev/null || need+=(libturbojpeg0-dev)
  pkg-config --exists libpng 2>/dev/null || need+=(libpng-dev)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]}…" >&2
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need[@]}" pkg-config >/dev/null
  fi
  (cd "$ROOT" && swift build --product parley >&2)
  PARLEY="$(cd "$ROOT" && swift build --show-bin-path)/parley"
}

ensure_key() {
  local name=$1
  # keygen says what it wrote on stderr: shown only if it fails.
  [ -f "keys/$name.key" ] || "$PARLEY" keygen "$name" --dir keys >/dev/null 2>"$DEMO_DIR/keygen.log" || { cat "$DEMO_DIR/keygen.log" >&2; exit 1; }
}

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$DEMO_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_node NAME [NODE_OPTION…]: NAME's node on a free port (PORT[NAME] once it answers), its
# output in NAME.log; the options are passed on (e.g. --web 127.0.0.1:0).
declare -A PORT=()
start_node() {
  local name=$1 listen=""; shift
  ensure_key "$name"
  "$PARLEY" node --key "keys/$name.key" --data "$DEMO_DIR/$name" --listen 127.0.0.1:0 "$@" \
    --log-level warning >"$DEMO_DIR/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    # The node reports the port it bound: `status --json` says `"listen":"127.0.0.1:PORT"`.
    listen=$("$PARLEY" status --data "$DEMO_DIR/$name" --json 2>/dev/null | sed -n 's/.*"listen":"\([^"]*\)".*/\1/p') || true
    if [ -n "$listen" ]; then PORT[$name]=${listen##*:}; return 0; fi
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "node $name did not start:" >&2; cat "$DEMO_DIR/$name.log" >&2; exit 1
}

# introduce NAME…: makes each of them a contact of every other, with the address it listens on.
introduce() {
  local me other
  for me in "$@"; do
    for other in "$@"; do
      [ "$me" = "$other" ] || as "$me" contacts add "keys/$other.pub" --name "$other" --addr "127.0.0.1:${PORT[$other]}" >/dev/null
    done
  done
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

# start_trio: alice, bob and carol, each a contact of the others.
start_trio() {
  for n in alice bob carol; do start_node "$n"; done
  introduce alice bob carol
}
