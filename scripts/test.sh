#!/usr/bin/env bash
# Install everything the tests need, then run every test: lint, unit, property, AppTest and real-browser.
# Used as-is by CI (.ci/run) and by the README's quick start.
#   bash scripts/test.sh                  everything (about 25 minutes on two cores, quiet)
#   bash scripts/test.sh --fast           everything but the real-browser tests (about 2.5 minutes, quiet)
#   bash scripts/test.sh [--fast] ARGS    ARGS go to pytest as they are (-k, a file, -x, -n 0 ...)
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--fast" ]; then fast=1; else args+=("$arg"); fi
done

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

tier=()
if [ "$fast" = 1 ]; then
  # The browser tests live in tests/browser and carry the `browser` marker: leave out both, so a browser
  # test placed elsewhere stays out too.
  tier=(--ignore=tests/browser -m "not browser")
fi
# ${args[@]+...}: an empty array is "unbound" to `set -u` in older bash.
status=0
python -m pytest -n 2 "${tier[@]+"${tier[@]}"}" "${args[@]+"${args[@]}"}" || status=$?
if [ "$status" = 5 ]; then
  # pytest's 5 is "no tests collected": a selection that matches nothing has proved nothing, so it fails
  # loudly here rather than pass as a green run.
  echo "scripts/test.sh: pytest collected no tests (exit code 5); failing on purpose" >&2
  exit 1
fi
exit "$status"
