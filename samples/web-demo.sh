#!/usr/bin/env bash
# Alice, Bob and Carol each run a node that serves the web app; open the printed links in a browser
# (all three in one browser if you like: each logs in as that node's user and stays logged in beside
# the others). Each link works once, within a minute. Ctrl-C stops the nodes.
source "$(dirname "$0")/lib.sh"
ensure_build
for name in alice bob carol; do start_node "$name" --web 127.0.0.1:0; done
introduce alice bob carol

chat=$(as alice chat create "Lunch" --member bob --member carol)
as alice send "$chat" "Welcome to Parley on the web: vote below, react, reply." >/dev/null
as alice poll create "$chat" "Where shall we eat?" --option Lake --option Hills --option Harbour --allow-answers --allow-suggestions --closes-at +1h >/dev/null
wait_for bob messages "$chat"

# A node serves its web app before it answers `status`, so each is listening by now.
for name in alice bob carol; do echo "$name: $(as "$name" web)"; done
echo "Each link works once, within a minute: '$PARLEY web --data $DEMO_DIR/NAME' prints a new one. Press Ctrl-C to stop the nodes."
wait
