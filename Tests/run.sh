#!/usr/bin/env bash
# The test command: installs what is missing (libsodium-dev, libturbojpeg0-dev, libpng-dev, iproute2, nftables, tmux,
# systemd), builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
pkg-config --exists libsodium 2>/dev/null || need+=(libsodium-dev pkg-config)
# Pictures' thumbnails (ParleyMedia): JPEG through libturbojpeg, PNG through libpng.
pkg-config --exists libturbojpeg 2>/dev/null || need+=(libturbojpeg0-dev pkg-config)
pkg-config --exists libpng 2>/dev/null || need+=(libpng-dev pkg-config)
command -v ip >/dev/null || need+=(iproute2)
command -v nft >/dev/null || need+=(nftables)
command -v tmux >/dev/null || need+=(tmux)
# systemd-analyze checks the node's user unit (packaging/parley-node.service, PackagingTests).
command -v systemd-analyze >/dev/null || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
swift build --build-tests
if [ $# -eq 0 ]; then
  # The samples are part of the contract: they must run on a fresh checkout too. They run the
  # `parley` just built, not one an earlier install left on the PATH.
  export PARLEY="$(swift build --show-bin-path)/parley"
  # A log of its own (not a fixed name another run or user could share), removed however this ends.
  sample_log=$(mktemp "${TMPDIR:-/tmp}/parley-sample.XXXXXX")
  trap 'rm -f "$sample_log"' EXIT
  for sample in samples/two-peers.sh samples/poll-demo.sh samples/multi-poll-demo.sh samples/reactions-demo.sh samples/history-demo.sh samples/secret-poll-demo.sh samples/everyday-demo.sh samples/files-demo.sh; do
    echo "== $sample"
    "$sample" >"$sample_log" 2>&1 || { cat "$sample_log"; echo "$sample failed" >&2; exit 1; }
    tail -1 "$sample_log"
  done
fi
if [ $# -gt 0 ]; then exec swift test --skip-build "$@"; fi
# docs/ARCHITECTURE.md's module table against Package.swift (Tests/module-table.py --write redraws it).
python3 Tests/module-table.py --check
# The layout (.swift-format): no finding.
Tests/format-check.sh
# The protocol document's worked examples, run as written by an independent (Python) implementation.
Tests/protocol/check-worked-examples.sh
# docs/BALLOTS.md's vectors against an independent Python implementation of secret ballots.
Tests/protocol/check-ballot-vectors.sh
# docs/PROTOCOL.md §4.4's fork proof vectors and checks, by an independent Python implementation.
python3 Tests/protocol/fork_proof.py
# docs/PROTOCOL.md §13d's vectors (edits, deletions, pins, threads, mentions) by an independent Python implementation.
python3 Tests/protocol/amendments.py
# docs/PROTOCOL.md §13e's vectors (manifests, names, hash trees, sealed chunks, file frames) by an independent Python implementation.
python3 Tests/protocol/files.py
# The multi-process suites wait on child processes with blocking calls. In the same process they
# would hold the cooperative pool's threads (two on a 2-core machine) and starve the in-process
# servers and nodes of the other suites, so they run in a test process of their own.
# Their time limits are nets for hangs, wider than each whole run (about 90 s and 6 minutes on 2
# cores): a test another kept waiting for the pool is not failed for it.
swift test --skip-build --skip ParleyCLITests
swift test --skip-build --filter ParleyCLITests
# packaging/install.sh, into a scratch prefix: binary, man pages, completions, the user unit.
Tests/packaging/check-install.sh
# The HTTP front end against docs/openapi.yaml (schemathesis: generated and malformed requests).
Tests/web/check-openapi.sh
# The web app in Debian's Chromium (Playwright), against real nodes serving it (two; three for the secret poll).
Tests/web/run.sh
