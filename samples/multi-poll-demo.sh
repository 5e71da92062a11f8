#!/usr/bin/env bash
# Alice, Bob and Carol plan an offsite with an options poll: two choices each, a suggestion,
# comments, a refused third vote, then Alice closes it. All three nodes print the same result.
source "$(dirname "$0")/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "Offsite" --member bob --member carol)
poll=$(as alice poll create "$chat" "Where should we go?" --option Lake --option Hills --option Beach \
  --max-votes 2 --allow-answers --allow-suggestions --description "Pick up to two")
echo "alice asks: Where should we go? (options Lake, Hills, Beach; up to two each)"
wait_for bob poll results "$chat" "$poll"
wait_for carol poll results "$chat" "$poll"

as alice poll vote "$chat" "$poll" Lake Hills >/dev/null && echo "alice votes Lake + Hills"
as bob poll vote "$chat" "$poll" Hills >/dev/null && echo "bob votes Hills"
as carol poll suggest "$chat" "$poll" City >/dev/null && echo "carol suggests City"
wait_for carol poll vote "$chat" "$poll" City && echo "carol votes City"
as bob poll answer "$chat" "$poll" "Hills, if it does not rain" >/dev/null && echo "bob comments"
if as alice poll vote "$chat" "$poll" Beach 2>/dev/null; then echo "a third vote was accepted?!" >&2; exit 1
else echo "alice tries a third choice: refused (two at most)"; fi

for n in alice bob carol; do wait_until "$n" '"answersCount":1.*"totalVotes":4' poll results "$chat" "$poll" --json; done
as alice poll close "$chat" "$poll" >/dev/null && echo "alice closes the poll"
if as carol poll vote "$chat" "$poll" Lake 2>/dev/null; then echo "a vote after the close was accepted?!" >&2; exit 1
else echo "carol votes after the close: refused"; fi
for n in alice bob carol; do wait_until "$n" '"isClosed":true' poll results "$chat" "$poll" --json; done

echo
for n in alice bob carol; do
  echo "== $n's view"
  as "$n" poll results "$chat" "$poll"
done
a=$(shared_results alice "$chat" "$poll")
b=$(shared_results bob "$chat" "$poll")
c=$(shared_results carol "$chat" "$poll")
if [ "$a" = "$b" ] && [ "$b" = "$c" ]; then echo; echo "all three peers agree: Hills wins, the poll is closed"
else echo "peers disagree" >&2; exit 1; fi
