#!/usr/bin/env bash
# Debian's headless Chromium and chromedriver, for the web page test of `ragline serve`
# (tests/serve/test_page.py drives /usr/bin/chromium with selenium; nothing downloads a
# browser).
#
# Usage: scripts/chromium.sh install     install chromium and chromium-driver if missing
# Skipped when both are already installed, so running it twice is cheap. Needs root (or
# sudo) the first time, as apt-get does.
set -euo pipefail

log() { echo "chromium: $*" >&2; }

case "${1:-install}" in
install)
    if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
        exit 0
    fi
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || { log "error: installing chromium needs root or sudo"; exit 1; }
        sudo=(sudo)
    fi
    log "installing Debian's chromium and chromium-driver"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium chromium-driver >/dev/null
    [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]] || { log "error: chromium did not install"; exit 1; }
    ;;
*)
    log "usage: scripts/chromium.sh install"
    exit 2
    ;;
esac
