#!/usr/bin/env bash
# The code's layout against .swift-format (swift-format, bundled with the toolchain); exits non-zero on
# any finding. `swift format --in-place --parallel -r Sources Tests` fixes all but what only a person
# can: a comment running past the line length, a call or a name the lint rules question.
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict --parallel -r Sources Tests
