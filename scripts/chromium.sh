#!/usr/bin/env bash
# The browser of the console tests: Debian's `chromium`, installed when /usr/bin/chromium is missing.
# Playwright drives it with executable_path=/usr/bin/chromium; `playwright install` (a download) is never used.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
echo "chromium.sh: installing Debian's chromium" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
test -x /usr/bin/chromium
