#!/usr/bin/env bash
# Set up everything the tests need from scratch and run the whole test suite.
# Usage: scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh dev
# Redis Stack for the Redis tests (the tests start and stop the server themselves).
bash scripts/redis-stack.sh install
# Debian's chromium and its driver for the web page test (never a downloaded browser),
# and openssl for the TLS test's certificate.
bash scripts/chromium.sh install
echo "==> running the tests"
exec .venv/bin/python -m pytest "$@"
