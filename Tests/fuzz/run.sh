#!/usr/bin/env bash
# Builds the libFuzzer targets with the address sanitizer and runs each for SECONDS (default 60).
#
#   Tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Targets: FuzzDatagram (Packet + Frame decoders), FuzzMessage (Message + ChatInvite decoders),
# FuzzAPIRequest (control-socket request parser). The build has its own scratch path
# (.build-fuzz) so it never disturbs the normal build; the corpus is kept there between runs.
# A crashing input is copied to Tests/fuzz/crashes/TARGET-*; turn it into a regression test.
# Prints one line per target: executions, corpus size, crashes. Exits 1 if any target crashed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzDatagram FuzzMessage FuzzAPIRequest)
scratch="$root/.build-fuzz"
flags=(-c release --package-path "$here" --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address)

mkdir -p "$scratch/logs"
for target in "${targets[@]}"; do
  echo "== building $target" >&2
  swift build "${flags[@]}" --product "$target" >"$scratch/logs/$target.build.log" 2>&1 \
    || { tail -30 "$scratch/logs/$target.build.log" >&2; echo "build of $target failed" >&2; exit 1; }
done
bin="$(swift build "${flags[@]}" --show-bin-path)"

failed=0
printf '%-20s %12s %8s %8s %s\n' target executions corpus crashes seconds
for target in "${targets[@]}"; do
  corpus="$scratch/corpus/$target"
  artifacts="$scratch/artifacts/$target/"
  mkdir -p "$corpus" "$artifacts" "$here/crashes"
  "$bin/$target" --write-seeds "$corpus"
  log="$scratch/logs/$target.log"
  status=0
  "$bin/$target" "$corpus" -max_total_time="$seconds" -timeout=10 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts" >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  size=$(find "$corpus" -type f | wc -l)
  crashes=0
  if [ "$status" -ne 0 ]; then
    failed=1
    for artifact in "$artifacts"*; do
      [ -f "$artifact" ] || continue
      crashes=$((crashes + 1))
      cp "$artifact" "$here/crashes/$target-$(basename "$artifact")"
    done
    [ "$crashes" -gt 0 ] || crashes="exit $status"
    grep -E 'ERROR|Fatal error|invariant broken|SUMMARY' "$log" | head -5 >&2 || true
  fi
  printf '%-20s %12s %8s %8s %s\n' "$target" "$runs" "$size" "$crashes" "$seconds"
done
exit "$failed"
