#!/usr/bin/env bash
# Alice, Bob and Carol each run a node that serves the web app; open the printed URLs in a browser
# (one per person: each logs in as that node's user). Ctrl-C stops the nodes.
source "$(dirname "$0")/lib.sh"
ensure_build
base=${WEB_DEMO_PORT:-47310}
for name in alice bob carol; do ensure_key "$name"; done
ports=(alice:0 bob:1 carol:2)
for entry in "${ports[@]}"; do
  name=${entry%%:*} offset=${entry##*:}
  EXTRA_NODE_ARGS=(--web "127.0.0.1:$((base + 10 + offset))")
  peers=()
  for other in 0 1 2; do [ "$other" = "$offset" ] || peers+=($((base + other))); done
  start_node "$name" $((base + offset)) "${peers[@]}"
done
EXTRA_NODE_ARGS=()
for me in alice bob carol; do
  for other in alice bob carol; do
    [ "$me" = "$other" ] || as "$me" contacts add "keys/$other.pub" --name "$other" >/dev/null
  done
done

chat=$(as alice chat create "Lunch" --member bob --member carol)
as alice send "$chat" "Welcome to Parley on the web: vote below, react, reply." >/dev/null
as alice poll create "$chat" "Where shall we eat?" --option Lake --option Hills --option Harbour --allow-answers --allow-suggestions --closes-at +1h >/dev/null
wait_for bob messages "$chat"

for name in alice bob carol; do
  for _ in $(seq 1 100); do [ -f "$DEMO_DIR/$name/web-address" ] && break; sleep 0.1; done
  echo "$name: $(as "$name" web)"
done
echo "Press Ctrl-C to stop the nodes."
wait
