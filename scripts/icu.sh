#!/usr/bin/env bash
# What PyICU builds against (server/domain/actions.py: the Unicode TR39 skeleton of action names): Debian's
# libicu-dev, pkg-config and a C++ compiler, installed when missing. `make venv` runs it before pip.
set -euo pipefail
if command -v pkg-config >/dev/null && pkg-config --exists icu-i18n && command -v g++ >/dev/null; then
  exit 0
fi
echo "icu.sh: installing Debian's libicu-dev, pkg-config and g++ (PyICU builds against them)" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null
else
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null
fi
pkg-config --exists icu-i18n
