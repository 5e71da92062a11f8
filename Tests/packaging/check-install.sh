#!/usr/bin/env bash
# packaging/install.sh into a scratch prefix, from the debug build the tests use (no release build):
# the binary, the man pages, the three completions and the user unit land where the script says, and
# the unit runs the installed binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
# Quiet when it works; when it fails, what it said (a build error goes to stdout) and that it failed.
if ! output=$(PARLEY_BUILD_CONFIGURATION=debug packaging/install.sh "$prefix" 2>&1); then
  echo "$output" >&2; echo "install.sh failed" >&2; exit 1
fi
for file in bin/parley share/man/man1/parley.1 share/man/man1/parley.node.1 share/bash-completion/completions/parley \
  share/zsh/site-functions/_parley share/fish/vendor_completions.d/parley.fish lib/systemd/user/parley-node.service; do
  [ -s "$prefix/$file" ] || { echo "install.sh did not install $file" >&2; exit 1; }
done
grep -q "^ExecStart=$prefix/bin/parley node " "$prefix/lib/systemd/user/parley-node.service" \
  || { echo "the installed unit does not run $prefix/bin/parley" >&2; exit 1; }
"$prefix/bin/parley" --version >/dev/null
echo "install.sh: the binary, $(ls "$prefix/share/man/man1" | wc -l) man pages, 3 completions and the user unit"
