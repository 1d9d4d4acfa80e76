#!/usr/bin/env bash
# The main job on the built-in sample, offline: resolve a build from the sample release browser.
set -euo pipefail
cd "$(dirname "$0")/.."
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-file://$PWD/hack/sample/releases}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
osimage() { node bin/osimage "$@"; }

echo "== builds"
osimage builds
echo
echo "== resolve"
osimage resolve
