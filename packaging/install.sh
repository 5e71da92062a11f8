#!/usr/bin/env bash
# Installs parley like any tool: the release binary, its man pages (parley(1) and one per subcommand,
# from swift-argument-parser's generate-manual plugin), bash, zsh and fish completions, and a systemd
# user unit for `parley node`.
#
#   packaging/install.sh [PREFIX]     PREFIX: /usr/local as root, ~/.local otherwise
#
# PARLEY_BUILD_CONFIGURATION=debug installs the debug build instead (the tests do, to reuse it).
set -euo pipefail
# Absolute, and read before moving to the checkout: the unit's ExecStart needs an absolute path.
if [ $# -gt 0 ]; then prefix=$(realpath -ms -- "$1"); elif [ "$(id -u)" = 0 ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
configuration=${PARLEY_BUILD_CONFIGURATION:-release}
cd "$(dirname "$0")/.."

swift build -c "$configuration" --product parley
install -D -m 0755 "$(swift build -c "$configuration" --show-bin-path)/parley" "$prefix/bin/parley"

# The plugin builds the package, runs `parley --experimental-dump-help` and writes one page per command.
swift package --disable-sandbox generate-manual --configuration "$configuration" --multi-page >/dev/null
install -d "$prefix/share/man/man1"
install -m 0644 .build/plugins/GenerateManual/outputs/ParleyCLI/*.1 "$prefix/share/man/man1/"

# Completions where bash-completion, zsh and fish look under PREFIX.
completion() { "$prefix/bin/parley" --generate-completion-script "$1" | install -D -m 0644 /dev/stdin "$2"; }
completion bash "$prefix/share/bash-completion/completions/parley"
completion zsh "$prefix/share/zsh/site-functions/_parley"
completion fish "$prefix/share/fish/vendor_completions.d/parley.fish"

# systemd looks for user units in PREFIX/lib/systemd/user under /usr and /usr/local, and in
# ~/.local/share/systemd/user for one user's own.
units="$prefix/lib/systemd/user"
[ "$prefix" = "$HOME/.local" ] && units="$prefix/share/systemd/user"
sed "s|/usr/local/bin/parley|$prefix/bin/parley|" packaging/parley-node.service | install -D -m 0644 /dev/stdin "$units/parley-node.service"

echo "installed parley in $prefix/bin, man pages in $prefix/share/man/man1, completions, and $units/parley-node.service"
echo "run a node at login: put PARLEY_KEY=… in ~/.config/parley/node.env, then: systemctl --user enable --now parley-node"
echo "commands reach that node with --data ~/.local/share/parley (or export PARLEY_DATA=~/.local/share/parley), unless node.env moves it"
