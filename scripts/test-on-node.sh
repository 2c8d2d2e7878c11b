#!/usr/bin/env bash
# Runs the test suite on another Node.js (default 26.10.0) beside the
# machine's Node 20, which stays the one `npm ci` builds for: that Node comes
# from the npm registry (its `node-linux-<arch>` package carries Node's
# headers), the project is copied to a scratch folder, and better-sqlite3,
# the one addon not built on Node-API, is rebuilt there for that Node.
# The environment passes through (CI, TEST_DATABASE_URL, TEST_REDIS_URL).
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
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mps-node-$VERSION-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# The tracked files as they are in the work tree, and the installed packages.
git ls-files -z --cached --others --exclude-standard --deduplicate | xargs -0 cp --parents -t "$WORK"
cp -a node_modules "$WORK/"

echo "[node $VERSION] building better-sqlite3 for it"
NODE_GYP="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
(cd "$WORK/node_modules/better-sqlite3" && rm -rf build && PATH="$NODE_HOME/bin:$PATH" "$NODE_HOME/bin/node" "$NODE_GYP" rebuild --release --nodedir="$NODE_HOME" --loglevel=error >/dev/null)

echo "[node $VERSION] running the suite"
cd "$WORK"
PATH="$NODE_HOME/bin:$PATH" node node_modules/vitest/vitest.mjs run "$@"
