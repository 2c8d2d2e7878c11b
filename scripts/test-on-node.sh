#!/usr/bin/env bash
# Runs the test suite on another Node.js (default 26.10.0) with the packages
# `npm ci` installed for the machine's Node 20: that Node comes from the npm
# registry's `node-linux-<arch>` package, cached. Every addon the service loads
# on Node 22 and later is built on Node-API (src/store/sqlite-driver.ts), so
# nothing is rebuilt. The environment passes through (CI, TEST_DATABASE_URL,
# TEST_REDIS_URL).
#   scripts/test-on-node.sh [version] [vitest arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${1:-26.10.0}"
shift || true

case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64) ARCH=arm64 ;;
  *) echo "[node $VERSION] no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
PKG="node-linux-$ARCH"
TOOLS="${NODE_VERSIONS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mps-node}/$VERSION"
NODE_HOME="$TOOLS/node_modules/$PKG"
if [ ! -x "$NODE_HOME/bin/node" ]; then
  echo "[node $VERSION] installing $PKG@$VERSION from the npm registry"
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$PKG@$VERSION"
fi
"$NODE_HOME/bin/node" -e "if (process.version !== 'v$VERSION') { console.error('got ' + process.version); process.exit(1); }"
[ -d node_modules ] || { echo "[node $VERSION] run npm ci first" >&2; exit 1; }

echo "[node $VERSION] running the suite"
# First on PATH: the service and CLI processes the tests start run on it too.
PATH="$NODE_HOME/bin:$PATH" node node_modules/vitest/vitest.mjs run "$@"
