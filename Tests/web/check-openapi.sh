#!/usr/bin/env bash
# The server against its description: schemathesis (from PyPI) generates requests from
# docs/openapi.yaml, valid and malformed, for every route, and checks that none gets a 5xx or
# crashes the node, and that every status and body is one the document declares. The node serves
# the web app on a free loopback port; its token goes in as a Bearer header.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v schemathesis >/dev/null || python3 -m pip install --quiet schemathesis
PARLEY="${PARLEY_BIN:-.build/debug/parley}"
work="$(mktemp -d "${TMPDIR:-/tmp}/parley-openapi.XXXXXX")"
node=""
cleanup() {
  [ -n "$node" ] && kill "$node" 2>/dev/null && wait "$node" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
"$PARLEY" keygen fuzz --dir "$work/keys" >/dev/null
port=$((21000 + RANDOM % 10000))
"$PARLEY" node --key "$work/keys/fuzz.key" --data "$work/data" --listen "127.0.0.1:$port" --web 127.0.0.1:0 \
  --log-level warning 2>"$work/node.log" >/dev/null &
node=$!
for _ in $(seq 1 150); do [ -f "$work/data/web-address" ] && break; sleep 0.1; done
[ -f "$work/data/web-address" ] || { echo "the node did not serve the web app:" >&2; cat "$work/node.log" >&2; exit 1; }
address="$(cat "$work/data/web-address")"
# A rule that refuses schema-valid input (an unknown chat, say) answers 4xx by design, and the
# Bearer header goes with every request: those two checks do not apply.
status=0
schemathesis run docs/openapi.yaml --url "http://$address" -H "Authorization: Bearer $(cat "$work/data/web-token")" \
  --max-examples "${OPENAPI_EXAMPLES:-30}" --checks all --exclude-checks positive_data_acceptance,ignored_auth || status=$?
if ! kill -0 "$node" 2>/dev/null; then
  echo "the node died under the generated requests:" >&2
  cat "$work/node.log" >&2
  exit 1
fi
exit "$status"
