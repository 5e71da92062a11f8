#!/usr/bin/env bash
# Alice, Bob and Carol use the everyday verbs: a mention, an edit, a reply thread, a pin, a
# deletion by the chat's creator and a search. All three nodes show the same chat.
source "$(dirname "$0")/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "Team" --member bob --member carol)
plan=$(as bob send "$chat" "Lunch at noon, @carol?")
echo "bob: Lunch at noon, @carol?   (the mention travels as carol's id)"
wait_for carol messages "$chat"
wait_until carol '"mentionsMe":true' messages "$chat" --json
echo "carol's node sees she is mentioned"

as bob edit "$chat" "$plan" "Lunch at one, @carol?" >/dev/null && echo "bob edits it: Lunch at one, @carol?"
reply=$(as carol send "$chat" "One works" --ref "$plan")
echo "carol replies in its thread: One works"
rumour=$(as carol send "$chat" "Off-topic rumour")
echo "carol: Off-topic rumour"
wait_until alice "Off-topic" messages "$chat"
as alice pin "$chat" "$plan" >/dev/null && echo "alice pins bob's plan"
as alice delete "$chat" "$rumour" >/dev/null && echo "alice, the chat's creator, deletes carol's rumour for everyone"
if as bob edit "$chat" "$reply" "I hijack carol" 2>/dev/null; then echo "bob edited carol's message?!" >&2; exit 1
else echo "bob tries to edit carol's reply: refused (only its author can)"; fi

for n in alice bob carol; do
  wait_until "$n" '(message deleted by alice)' messages "$chat"
  wait_until "$n" 'Lunch at one, @carol? → .*(edited) 📌 by alice \[1 reply\]\|Lunch at one, @carol? (edited) 📌 by alice \[1 reply\]' messages "$chat"
done
echo
for n in alice bob carol; do
  echo "== $n's view"
  as "$n" messages "$chat"
done
echo
echo "== bob's pins";   as bob pins "$chat"
echo "== carol's thread of the plan"; as carol thread "$chat" "$plan"
echo "== alice searches her own node for \"one\" (nothing leaves it)"; as alice search "one" --chat "$chat"

view() { as "$1" messages "$chat" --json | sed 's/"state":"[a-z]*",//g; s/"localNumber":[0-9]*,//g; s/"deliveredTo":[0-9]*,//g; s/"readBy":[0-9]*,//g; s/"recipients":[0-9]*,//g; s/"mentionsMe":[a-z]*,//g; s/"authorName":[^,]*,//g; s/"name":[^,}]*//g'; }
a=$(view alice); b=$(view bob); c=$(view carol)
if [ "$a" = "$b" ] && [ "$b" = "$c" ]; then echo; echo "all three peers show the same chat: one edit, one pin, one reply, one deletion"
else echo "peers disagree" >&2; diff <(echo "$a") <(echo "$b") >&2; exit 1; fi
