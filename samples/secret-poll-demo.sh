#!/usr/bin/env bash
# A secret ballot: alice, bob, carol and dave vote on alice's poll; each ballot is ring-signed for
# the four of them and travels through two others, so no node can tell who voted what (a secret
# poll needs three electors besides its creator: the creator handles every ballot before publishing
# it, so a vote hides only among the others). After the closing time alice's node publishes every
# ballot in one batch and closes the poll (25 s after it); every node then shows the same counts,
# and no voters. At the close each voter's node erases its choice and keeps only "you voted";
# dave asked to keep his (--keep-choice).
source "$(dirname "$0")/lib.sh"
ensure_build
for n in alice bob carol dave; do start_node "$n"; done
introduce alice bob carol dave

chat=$(as alice chat create "Board" --member bob --member carol --member dave)
for n in bob carol dave; do wait_for "$n" messages "$chat"; done
poll=$(as alice poll create "$chat" "Raise the dues?" --secret --closes-at +12s)
echo "alice asks, by secret ballot: Raise the dues?  (poll ${poll:0:12}, closes in 12 s)"
for n in bob carol dave; do wait_for "$n" poll results "$chat" "$poll"; done
as alice poll results "$chat" "$poll"
echo

for pair in alice:up bob:up carol:down dave:up; do
  n=${pair%%:*}; choice=${pair#*:}
  keep=(); [ "$n" = dave ] && keep=(--keep-choice)
  echo "$n: $(as "$n" poll vote "$chat" "$poll" "$choice" ${keep[@]+"${keep[@]}"})"
done
if as bob poll vote "$chat" "$poll" down 2>/dev/null; then echo "bob's second ballot was accepted?!" >&2; exit 1
else echo "bob tries to vote again: refused"; fi

echo; echo "waiting for the closing time and the creator's close…"
for n in alice bob carol dave; do
  for _ in $(seq 1 60); do as "$n" poll results "$chat" "$poll" --json | grep -q '"phase":"closed"' && break; sleep 1; done
done
for n in alice bob carol dave; do echo "== $n's result"; as "$n" poll results "$chat" "$poll"; done
a=$(shared_results alice "$chat" "$poll" | sed 's/"ownBallot":"[a-zA-Z]*",//')
b=$(shared_results bob "$chat" "$poll" | sed 's/"ownBallot":"[a-zA-Z]*",//')
c=$(shared_results carol "$chat" "$poll" | sed 's/"ownBallot":"[a-zA-Z]*",//')
d=$(shared_results dave "$chat" "$poll" | sed 's/"ownBallot":"[a-zA-Z]*",//')
if [ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$c" = "$d" ] && grep -q '"up":3' <<<"$a" && grep -q '"down":1' <<<"$a" \
  && grep -q '"voters":\[\]' <<<"$a"; then
  echo; echo "all four peers agree: up 3, down 1, and none can say who voted what"
else echo "peers disagree or the count is wrong:"$'\n'"$a"$'\n'"$b"$'\n'"$c"$'\n'"$d" >&2; exit 1; fi

# After the close: carol's node says she voted and was counted, without her choice; dave's kept his.
for _ in $(seq 1 10); do as carol poll results "$chat" "$poll" --json | grep -q '"ownVotes":\[\]' && break; sleep 1; done
if as carol poll results "$chat" "$poll" --json | grep -q '"ownVotes":\[\]' \
  && as carol poll results "$chat" "$poll" --json | grep -q '"ownBallot":"counted"' \
  && as dave poll results "$chat" "$poll" --json | grep -q '"ownVotes":\["up"\]'; then
  echo "carol's node kept only that she voted; dave's kept his choice, as he asked"
else echo "a voter's choice was kept, or dave's was lost" >&2; exit 1; fi
