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

bash "$here/../apt-install.sh" ensure-tools ${missing[@]+"${missing[@]}"}
