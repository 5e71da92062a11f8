#!/usr/bin/env bash
# History and receipts: alice posts 25 messages, a link and custom JSON; bob pages back through
# them, reads the chat, and alice sees who has read her last message.
source "$(dirname "$0")/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "History" --member bob --member carol)
for n in $(seq 1 25); do as alice send "$chat" "note $n" >/dev/null; done
as alice send "$chat" "the docs: https://swift.org/documentation/" >/dev/null
last=$(as alice send "$chat" --custom '{"type":"location","lat":52.52,"lon":13.40}')
as alice send "$chat" "hidden" --tag Sticker >/dev/null
wait_until bob "$last" messages "$chat" --json

echo "== bob: the latest 5"
page=$(as bob messages "$chat" --limit 5)
echo "$page"
older=$(sed -n 's/^older: --before \([0-9a-f]*\).*/\1/p' <<<"$page")
echo "== bob: the 5 before those (--before $older, as the hint says)"
as bob messages "$chat" --limit 5 --before "$older"
echo "== bob: everything, unknown tags too, latest 2"
as bob messages "$chat" --all --limit 2
as bob read "$chat"
wait_until alice "bob: delivered.*, read" receipts "$chat" "$last"
echo "== alice: receipts of her custom message"
as alice receipts "$chat" "$last"
