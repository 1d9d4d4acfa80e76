#!/usr/bin/env bash
# Make sure the tools `npm run bench` runs are installed: the distribution registry (via
# hack/ensure-registry.sh), skopeo (the baseline), GNU time (peak RSS) and tar. Installs with apt-get only
# what is missing, so on a machine that has them it costs nothing. `oc` is never installed: the bench uses
# it only when it is already on PATH.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/../ensure-registry.sh"

missing=()
command -v skopeo >/dev/null 2>&1 || missing+=(skopeo)
[ -x /usr/bin/time ] || missing+=(time)
command -v tar >/dev/null 2>&1 || missing+=(tar)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "ensure-tools: need ${missing[*]} but not root and no sudo; install them and rerun" >&2
    exit 1
  fi
fi

echo "ensure-tools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
