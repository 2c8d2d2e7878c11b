#!/usr/bin/env bash
# Runs the test suite on another Node.js (default 26.10.0) with the packages
# `npm ci` installed for the machine's Node 20: that Node comes from the npm
# registry's `node-linux-<arch>` package, cached. Every addon the service loads
# on Node 22 and later is built on Node-API (src/database/sqlite-driver.ts), so
# nothing is rebuilt. The environment passes through (CI, TEST_DATABASE_URL,
# TEST_REDIS_URL).
#   scripts/test-on-node.sh [version] [vitest arguments…]   the whole suite, or what the arguments say
#   scripts/test-on-node.sh VERSION --matrix                  what differs between Node versions
#     (.ci/run, docs/testing.md "Other Node versions"): the typecheck, then the fast tier and
#     the faces' smoke (vitest.matrix.config.ts)
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

# First on PATH: the service and CLI processes the tests start run on it too.
export PATH="$NODE_HOME/bin:$PATH"
if [ "${1:-}" = "--matrix" ]; then
  shift
  echo "[node $VERSION] the typecheck"
  node node_modules/typescript/bin/tsc -p tsconfig.check.json
  echo "[node $VERSION] the fast tier and the faces' smoke"
  node node_modules/vitest/vitest.mjs run --config vitest.matrix.config.ts "$@"
else
  echo "[node $VERSION] running the suite"
  node node_modules/vitest/vitest.mjs run "$@"
fi
