#!/usr/bin/env bash
# The long reliability runs of issue #6, on a LAN of network namespaces (needs root, iproute2, nftables):
#   - 10,000 messages and 3 polls voted on by 3 nodes, at 10% and then 30% random loss on every host;
#   - kill -9 of a node in the middle of a 2,000-message burst, restart, convergence;
#   - a partition with 2,000 messages posted on each side, then healed;
#   - the fork property: 5 nodes, a member forking at random slots, random partitions, 2,000 seeds;
#   - 100 real nodes on 127.0.0.1 in one chat, each voting once: time until all 100 tallies agree,
#     idle CPU per node and total RSS (HundredMembersTests; PARLEY_MEMBERS=N for another size);
#   - each libFuzzer target to FUZZ_RUNS executions (default 10,000,000; built without ASan, both
#     cores), then FUZZ_ASAN_SECONDS (default 60; 0 skips it) each with the address sanitizer.
# The nodes are a release build of `parley`; the tests are the same as in `swift test`, scaled up by
# PARLEY_LONG=1. Figures (FIGURE lines) are collected in .build/reliability/figures.txt.
#
#   Tests/reliability/run-long.sh            # everything
#   SKIP_FUZZ=1 Tests/reliability/run-long.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "run as root: the LAN is made of network namespaces" >&2; exit 1; }
need=()
pkg-config --exists libsodium 2>/dev/null || need+=(libsodium-dev pkg-config)
pkg-config --exists libturbojpeg 2>/dev/null || need+=(libturbojpeg0-dev pkg-config)
pkg-config --exists libpng 2>/dev/null || need+=(libpng-dev pkg-config)
command -v ip >/dev/null || need+=(iproute2)
command -v nft >/dev/null || need+=(nftables)
if [ ${#need[@]} -gt 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; fi

out=.build/reliability
mkdir -p "$out"
figures="$out/figures.txt"
: >"$figures"
swift build --build-tests
swift build -c release --product parley
export PARLEY_BIN="$(swift build -c release --show-bin-path)/parley"
export PARLEY_LONG=1 PARLEY_FIGURES="$PWD/$figures"
# A crashed or interrupted test run skips the tests' own teardown: remove their namespaces and nodes.
cleanup_namespaces() {
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^pl-[0-9a-f]{8}-' || true); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
}
trap cleanup_namespaces EXIT
started=$(date +%s)
status=0
set +e
swift test --skip-build --filter "LANReliabilityTests|HundredMembersTests" 2>&1 | tee "$out/tests.log" | grep -E "FIGURE|✘|✔ Test|Test run"
tests=${PIPESTATUS[0]}
# The fork property (ForkConvergenceTests) over 2,000 seeds instead of run.sh's 50; a failure names its seed.
PARLEY_FORK_SEEDS=2000 swift test --skip-build --filter ForkConvergenceTests 2>&1 | tee "$out/forks.log" | grep -E "✘|test cases|Test run"
[ "${PIPESTATUS[0]}" -eq 0 ] && ! grep -q "✘" "$out/forks.log" || tests=1
set -e
{ [ "$tests" -eq 0 ] && ! grep -q "✘" "$out/tests.log"; } || status=1
echo "tests: $(( $(date +%s) - started )) s" | tee -a "$figures"

if [ -z "${SKIP_FUZZ:-}" ]; then
  fuzz_started=$(date +%s)
  rm -f "$out/fuzz-asan.txt"
  Tests/fuzz/run.sh --runs "${FUZZ_RUNS:-10000000}" | tee "$out/fuzz.txt" || status=1
  if [ "${FUZZ_ASAN_SECONDS:-60}" != 0 ]; then
    Tests/fuzz/run.sh --asan --seconds "${FUZZ_ASAN_SECONDS:-60}" | tee "$out/fuzz-asan.txt" || status=1
  fi
  { sed 's/^/fuzz: /' "$out/fuzz.txt"; [ ! -f "$out/fuzz-asan.txt" ] || sed 's/^/fuzz (asan): /' "$out/fuzz-asan.txt"
    echo "fuzz: $(( $(date +%s) - fuzz_started )) s"; } >>"$figures"
fi
echo "== figures ($figures)"
cat "$figures"
exit "$status"
