#!/usr/bin/env bash
# Debian's headless Chromium and chromedriver, for the web page test of `ragline serve`
# (tests/serve/test_page.py drives /usr/bin/chromium with selenium; nothing downloads a
# browser), and openssl, which makes the self-signed certificate of the `--server`
# client's TLS test (tests/serve/test_light_client.py).
#
# Usage: scripts/chromium.sh install     install chromium, chromium-driver, openssl if missing
# Skipped when all are already installed, so running it twice is cheap. Needs root (or
# sudo) the first time, as apt-get does.
set -euo pipefail

log() { echo "chromium: $*" >&2; }

case "${1:-install}" in
install)
    if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver && -x /usr/bin/openssl ]]; then
        exit 0
    fi
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || { log "error: installing chromium needs root or sudo"; exit 1; }
        sudo=(sudo)
    fi
    log "installing Debian's chromium, chromium-driver and openssl"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium chromium-driver openssl >/dev/null
    [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver && -x /usr/bin/openssl ]] || { log "error: chromium or openssl did not install"; exit 1; }
    ;;
*)
    log "usage: scripts/chromium.sh install"
    exit 2
    ;;
esac
