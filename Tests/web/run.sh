#!/usr/bin/env bash
# The browser tests: Debian's Chromium driven by Playwright (from PyPI; no browser download), against
# real nodes serving the web app (two, four for the secret poll, one over TLS). Installs what is missing;
# expects the debug build.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
fi
python3 -c "import playwright" 2>/dev/null || python3 -m pip install --quiet playwright
python3 -c "import axe_playwright_python" 2>/dev/null || python3 -m pip install --quiet axe-playwright-python
status=0
python3 Tests/web/test_web.py || status=$?
python3 Tests/web/test_secret_poll.py || status=$?
python3 Tests/web/test_tls.py || status=$?
python3 Tests/web/test_web_login.py || status=$?
python3 Tests/web/test_page_behaviour.py || status=$?
python3 Tests/web/test_poll_bars.py || status=$?
python3 Tests/web/test_amendments_page.py || status=$?
python3 Tests/web/test_everyday_page.py || status=$?
python3 Tests/web/test_search_page.py || status=$?
python3 Tests/web/test_files_page.py || status=$?
exit "$status"
