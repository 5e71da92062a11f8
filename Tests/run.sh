#!/usr/bin/env bash
# The test command: installs what is missing (libsodium-dev), builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
pkg-config --exists libsodium 2>/dev/null || need+=(libsodium-dev pkg-config)
command -v ip >/dev/null || need+=(iproute2)
command -v nft >/dev/null || need+=(nftables)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
swift build --build-tests
swift test --skip-build "$@"
