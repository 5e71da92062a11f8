#!/usr/bin/env bash
# Alice, Bob and Carol run three nodes on this machine. Alice creates a poll, each votes over
# encrypted UDP, then every node computes the tally from its own store: the three agree.
source "$(dirname "$0")/lib.sh"
ensure_build
start_trio

chat=$(as alice chat create "Lunch" --member bob --member carol)
echo "alice created chat ${chat:0:12}"
poll=$(as alice poll create "$chat" "Pizza on Friday?")
echo "alice asks: Pizza on Friday?  (poll ${poll:0:12})"
wait_for bob poll results "$chat" "$poll"
wait_for carol poll results "$chat" "$poll"

as alice poll vote "$chat" "$poll" up >/dev/null && echo "alice votes up"
as bob poll vote "$chat" "$poll" up >/dev/null && echo "bob votes up"
as carol poll vote "$chat" "$poll" down >/dev/null && echo "carol votes down"
if as bob poll vote "$chat" "$poll" down 2>/dev/null; then echo "bob's second vote was accepted?!" >&2; exit 1
else echo "bob tries to vote again: refused"; fi

# Each node tallies on its own; wait until all three have all three votes.
for n in alice bob carol; do wait_until "$n" '"down":1,.*"up":2' poll results "$chat" "$poll" --json; done
echo
for n in alice bob carol; do
  echo "== $n's tally"
  as "$n" poll results "$chat" "$poll"
done
a=$(shared_results alice "$chat" "$poll")
b=$(shared_results bob "$chat" "$poll")
c=$(shared_results carol "$chat" "$poll")
if [ "$a" = "$b" ] && [ "$b" = "$c" ]; then echo; echo "all three peers agree: up 2, down 1"
else echo "peers disagree" >&2; exit 1; fi
