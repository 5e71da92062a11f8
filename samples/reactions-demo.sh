#!/usr/bin/env bash
# Alice, Bob and Carol react to a message: emoji and words, a score, a unique replacement and an
# unreact. All three nodes compute the same reaction groups from the same messages.
source "$(dirname "$0")/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "Release" --member bob --member carol)
msg=$(as alice send "$chat" "Ship 2.0 today?")
echo "alice asks: Ship 2.0 today?"
wait_for bob reactions "$chat" "$msg"
wait_for carol reactions "$chat" "$msg"

as alice react "$chat" "$msg" 👍 >/dev/null && echo "alice reacts 👍"
as alice react "$chat" "$msg" 🚀 --score 5 >/dev/null && echo "alice reacts 🚀 (score 5)"
as bob react "$chat" "$msg" 👍 >/dev/null && echo "bob reacts 👍"
as bob react "$chat" "$msg" 🎉 >/dev/null && echo "bob reacts 🎉"
as carol react "$chat" "$msg" ❤️ >/dev/null && echo "carol reacts ❤️"
as carol react "$chat" "$msg" lgtm >/dev/null && echo "carol reacts with the word lgtm"
if as carol react "$chat" "$msg" lgtm 2>/dev/null; then echo "a repeated reaction was accepted?!" >&2; exit 1
else echo "carol reacts lgtm again: refused (already chosen)"; fi
as bob react "$chat" "$msg" 🚀 --unique >/dev/null && echo "bob reacts 🚀 --unique: it replaces his 👍 and 🎉"
as carol unreact "$chat" "$msg" ❤️ >/dev/null && echo "carol removes ❤️"

# Exactly three groups: 🚀 ×2 (score 6) first, then lgtm and 👍 once each (equal counts: by type bytes)
for n in alice bob carol; do
  wait_until "$n" '"groups":\[{"count":2,[^}]*"score":6,"type":"🚀"},{"count":1,[^}]*"type":"lgtm"},{"count":1,[^}]*"type":"👍"}\]' \
    reactions "$chat" "$msg" --json
done

echo
for n in alice bob carol; do
  echo "== $n's view"
  as "$n" reactions "$chat" "$msg"
done
# `mine` differs per user by design; the rest must be identical.
shared() { as "$1" reactions "$chat" "$msg" --json | sed 's/"mine":[a-z]*,//g'; }
a=$(shared alice); b=$(shared bob); c=$(shared carol)
groups=$(as alice reactions "$chat" "$msg" --json | grep -o '"count":[0-9]*' | wc -l)
if [ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$groups" = 3 ]; then echo; echo "all three peers agree: 🚀 2 (score 6), lgtm 1, 👍 1"
else echo "peers disagree" >&2; exit 1; fi
