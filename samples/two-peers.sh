#!/usr/bin/env bash
# Alice and Bob run two nodes on this machine and chat over encrypted UDP.
source "$(dirname "$0")/lib.sh"
ensure_build
start_node alice
start_node bob
introduce alice bob

chat=$(as alice chat create "alice & bob" --member bob)
as alice send "$chat" "Hi Bob, lunch at noon?" >/dev/null
wait_for bob messages "$chat" --tag Text
as bob send "$chat" "Sounds good!" >/dev/null
wait_until alice "Sounds good!" messages "$chat"
echo "== alice sees"
as alice messages "$chat"
echo "== bob sees"
as bob messages "$chat"
