#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each, one target after the other, for a time or to a number
# of executions.
#
#   Tests/fuzz/run.sh [SECONDS] [TARGET...]                 # address sanitizer, SECONDS each (default 60)
#   Tests/fuzz/run.sh --runs N [TARGET...]                  # no sanitizer but libFuzzer's, to N executions each
#   options (before the targets): --runs N, --seconds S, --jobs J, --asan, --no-asan
#
# Targets: FuzzDatagram (Packet + Frame decoders), FuzzMessage (Message + ChatInvite decoders, poll
# tally), FuzzBallot (secret poll + secret ballot decoders, ring-signature check, secret tally),
# FuzzRingSignature (RingSignature decoder, LSAG verification, ristretto255 point decoders),
# FuzzBallotEnvelope (BallotEnvelope decoder, ballotRelay frames), FuzzBallotCommitment (ballot
# commitment and reveal decoders, the suppression rule), FuzzAPIRequest (control-socket
# request parser), FuzzFileManifest (FileManifest decoder, file name sanitising), FuzzChunkFrames
# (chunk envelopes, hash tree proofs, file frames driving a chunk fetch).
#
# --runs N stops a target after N executions in all; the default build for it has no address
# sanitizer (Swift code is bounds-checked anyway, and ASan makes each input 2-6 times slower), and
# the seconds mode keeps it. --asan / --no-asan choose explicitly. --jobs J runs J fuzzing processes per
# target on one shared corpus (libFuzzer reloads the directory, so they learn from each other); the
# default is 1 with a time budget and the number of cores with --runs, each job running N/J.
# Each build has its own scratch path (.build-fuzz with ASan, .build-fuzz/fast without) so it never
# disturbs the normal build; the corpus (.build-fuzz/corpus/TARGET) is shared and kept between runs,
# unless the target's seeds changed.
# A crashing input is copied to Tests/fuzz/crashes/TARGET-*; turn it into a regression test.
# Prints one line per target: executions, exec/s, corpus size, crashes, wall seconds, build.
# Exits 1 if any target crashed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
all=(FuzzDatagram FuzzMessage FuzzBallot FuzzRingSignature FuzzBallotEnvelope FuzzBallotCommitment FuzzAPIRequest FuzzFileManifest FuzzChunkFrames)
seconds=60 runs="" jobs="" asan=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --asan) asan=1; shift ;;
    --no-asan) asan=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    [0-9]*) seconds="$1"; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
cores=$(nproc 2>/dev/null || echo 1)
if [ -n "$runs" ]; then
  : "${jobs:=$cores}" "${asan:=0}"
  limit=(-runs=$(( (runs + jobs - 1) / jobs )))
else
  : "${jobs:=1}" "${asan:=1}"
  limit=(-max_total_time="$seconds")
fi
if [ "$asan" = 1 ]; then
  scratch="$root/.build-fuzz" sanitizers=fuzzer,address
else
  scratch="$root/.build-fuzz/fast" sanitizers=fuzzer
fi
data="$root/.build-fuzz"
flags=(-c release --package-path "$here" --scratch-path "$scratch" -Xswiftc "-sanitize=$sanitizers")
# SwiftPM keeps the build plan of the path dependency (Parley itself) and misses source files added
# since: drop the plan so each run lists Parley's files afresh (what is compiled stays cached).
rm -f "$scratch/release/description.json"

mkdir -p "$data/logs"
for target in "${targets[@]}"; do
  echo "== building $target (-sanitize=$sanitizers)" >&2
  swift build "${flags[@]}" --product "$target" >"$data/logs/$target.build.log" 2>&1 \
    || { tail -30 "$data/logs/$target.build.log" >&2; echo "build of $target failed" >&2; exit 1; }
done
bin="$(swift build "${flags[@]}" --show-bin-path)"

# The executions one libFuzzer log reports (its final stats, or the last status line if it had none).
executions() {
  local n
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$1" | grep -o '[0-9]*$' | tail -1)
  [ -n "$n" ] || n=$(grep -oE '^#[0-9]+' "$1" | tail -1 | tr -d '#')
  echo "${n:-0}"
}

failed=0
printf '%-20s %12s %8s %8s %8s %9s %s\n' target executions exec/s corpus crashes seconds build
for target in "${targets[@]}"; do
  corpus="$data/corpus/$target"
  artifacts="$data/artifacts/$target/"
  mkdir -p "$corpus" "$artifacts" "$here/crashes"
  rm -f "$artifacts"* "$data/logs/$target".[0-9]*.log
  # A corpus grown from other seeds is dropped: the ballot and ring-signature targets only accept
  # signatures they made themselves, from a fixed stream, so old signatures would read as forgeries.
  seeds="$data/seeds/$target"
  rm -rf "$seeds.new" && mkdir -p "$seeds.new"
  "$bin/$target" --write-seeds "$seeds.new"
  if ! diff -rq "$seeds" "$seeds.new" >/dev/null 2>&1; then
    rm -rf "$corpus" "$seeds" && mkdir -p "$corpus"
    mv "$seeds.new" "$seeds"
  fi
  rm -rf "$seeds.new"
  cp "$seeds"/* "$corpus"/
  started=$(date +%s.%N)
  pids=()
  for job in $(seq 0 $((jobs - 1))); do
    # Swift's crash backtracer would take SIGABRT and SIGILL (a failed invariant, a trap) before
    # libFuzzer, which then neither saves the input nor prints its stack: switch it off.
    SWIFT_BACKTRACE=enable=no "$bin/$target" "$corpus" "${limit[@]}" -timeout=10 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$artifacts" >"$data/logs/$target.$job.log" 2>&1 &
    pids+=($!)
  done
  # The first job to fail (a crash) stops the others: the input is saved, the rest would only repeat it.
  status=0 running=${#pids[@]}
  while [ "$running" -gt 0 ]; do
    sleep 1
    for index in "${!pids[@]}"; do
      pid=${pids[$index]}
      [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || continue
      code=0
      wait "$pid" || code=$?
      pids[$index]="" running=$((running - 1))
      if [ "$code" -ne 0 ] && [ "$status" -eq 0 ]; then
        status=$code
        for other in "${pids[@]}"; do [ -z "$other" ] || kill "$other" 2>/dev/null || true; done
      fi
    done
  done
  elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  total=0
  for job in $(seq 0 $((jobs - 1))); do total=$((total + $(executions "$data/logs/$target.$job.log"))); done
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
    cat "$data/logs/$target".*.log | grep -E 'ERROR|Fatal error|invariant broken|SUMMARY' | head -5 >&2 || true
  fi
  rate=$(awk -v n="$total" -v t="$elapsed" 'BEGIN { printf "%d", (t > 0 ? n / t : 0) }')
  printf '%-20s %12s %8s %8s %8s %9.0f %s\n' "$target" "$total" "$rate" "$size" "$crashes" "$elapsed" \
    "$([ "$asan" = 1 ] && echo asan || echo plain)x$jobs"
done
exit "$failed"
