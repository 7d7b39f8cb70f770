#!/usr/bin/env bash
# Install everything the tests need, then run every test: lint, unit, property, AppTest and real-browser.
# Used as-is by CI (.ci/run) and by the README's quick start.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests run for real: Chromium (browser tests), redis-server (the shared room
# store) and haproxy (deploy/haproxy.cfg in front of two app processes).
missing=()
{ command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; } || missing+=(chromium)
{ command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]; } || missing+=(redis-server)
{ command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; } || missing+=(haproxy)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python -m ruff check .
python -m scripts.input_inventory --check      # docs/INPUTS.md and assets/lessons/control_labels.toml match the pages
python -m pytest -n 2 "$@"
