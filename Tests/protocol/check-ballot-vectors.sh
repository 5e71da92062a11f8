#!/usr/bin/env bash
# Runs the independent Python implementation of secret ballots (Tests/protocol/ballots.py: key
# derivation, LSAG ring signatures, poll, ballot and envelope encodings) and fails unless the test
# vectors it computes are exactly the block written in docs/BALLOTS.md §7, which the Swift tests
# (LSAGTests, SecretBallotTests) read and reproduce. PyNaCl has no ristretto255: the script reaches
# libsodium's through ctypes.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c "import nacl" 2>/dev/null || python3 -m pip install --quiet pynacl
python3 Tests/protocol/ballots.py --check docs/BALLOTS.md
