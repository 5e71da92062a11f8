#!/usr/bin/env bash
# Alice and Bob run two nodes on this machine and chat over encrypted UDP.
source "$(dirname "$0")/lib.sh"
ensure_build
ensure_key alice
ensure_key bob

start_node alice 47201 47202
start_node bob 47202 47201
as alice contacts add keys/bob.pub --name bob >/dev/null
as bob contacts add keys/alice.pub --name alice >/dev/null

chat=$(as alice chat create "alice & bob" --member bob)
as alice send "$chat" "Hi Bob, lunch at noon?" >/dev/null
wait_for bob messages "$chat" --tag Text
as bob send "$chat" "Sounds good!" >/dev/null
wait_until alice "Sounds good!" messages "$chat"
echo "== alice sees"
as alice messages "$chat"
echo "== bob sees"
as bob messages "$chat"
