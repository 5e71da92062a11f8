#!/usr/bin/env bash
# Runs the Python worked examples of docs/PROTOCOL.md §15 as written: an independent implementation
# (PyNaCl) that must agree with the test vectors of §4.3, which the Swift tests check too.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c "import nacl" 2>/dev/null || python3 -m pip install --quiet pynacl
python3 - <<'PY'
import re, subprocess, sys
doc = open("docs/PROTOCOL.md", encoding="utf-8").read()
section = doc[doc.index("## 15. Worked example"):doc.index("## 16. Rejection counters")]
blocks = re.findall(r"```python\n(.*?)```", section, re.S)
assert len(blocks) == 2, f"expected 2 Python examples in §15, found {len(blocks)}"
for number, code in enumerate(blocks, 1):
    subprocess.run([sys.executable, "-c", code], check=True)
    print(f"PROTOCOL §15 example {number}: ok")
PY
