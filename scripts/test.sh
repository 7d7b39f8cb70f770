#!/usr/bin/env bash
# Install everything the tests need, then run every test: lint, unit, property, AppTest and real-browser.
# Used as-is by CI (.ci/run) and by the README's quick start.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python -m ruff check .
python -m pytest -n 2 "$@"
