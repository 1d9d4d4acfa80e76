#!/usr/bin/env bash
# Example release script: the RHCOS pins below say, in git, exactly which OS image this branch ships.
# Copy it into your repository as hack/release.sh. The pins are managed by osimage:
#
#   osimage pin --write hack/release.sh --latest                # branch cut: pin the newest build
#   osimage pin --check --write hack/release.sh                 # CI: the pinned build still exists
#   osimage promote --test 'make e2e' --write hack/release.sh   # periodic job: newest build, if it passes
#
# The ${VAR:-pin} form lets one run override a pin from the environment, e.g. offline on the sample:
#   RHCOS_BASE_URL="file://$PWD/hack/sample/releases" hack/release.sh
set -euo pipefail

export RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-412.86.202301250001-0}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-https://rhcos.mirror.openshift.com/art/storage/releases}"

# osimage: $OSIMAGE, else the one on PATH, else the one of this repository.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "${OSIMAGE:-}" ]; then
  if command -v osimage >/dev/null 2>&1; then OSIMAGE=osimage; else OSIMAGE="$here/../bin/osimage"; fi
fi

# Resolve the pinned build against the release browser (this fails if the pin is gone) and show it.
"$OSIMAGE" resolve "$@"

# Payload steps come here once osimage has them: write the OS container into the payload manifests
# (machine-os-content in image-references, the osimageurl ConfigMap, the 00-<role>-osimageurl
# MachineConfigs, coreos-bootimages), then assemble and push the release payload.
