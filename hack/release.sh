#!/usr/bin/env bash
# Example release script: the RHCOS pins below say, in git, exactly which OS image this branch ships.
# Copy it into your repository as hack/release.sh. The pins are managed by osimage:
#
#   osimage pin --write hack/release.sh --latest                # branch cut: pin the newest build
#   osimage pin --check --pins hack/release.sh                 # CI: the pinned build still exists
#   osimage promote --test 'make e2e' --write hack/release.sh   # periodic job: newest build, if it passes
#
# The ${VAR:-pin} form lets one run override a pin from the environment, e.g. offline on the sample:
#   RHCOS_BASE_URL="file://$PWD/hack/sample/releases" hack/release.sh
set -euo pipefail

export RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-412.86.202301250001-0}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-https://rhcos.mirror.openshift.com/art/storage/releases}"

# A release that ships a second OS stream (e.g. rhel-10 beside the default RHEL 9) pins it in its own variables,
# RHCOS_<STREAM>_BUILD_NAME, _DEFAULT_CHANNEL and _BASE_URL, one stream per run:
#   osimage pin --os-stream rhel-10 --write hack/release.sh --channel rhel-10.2/builds --latest
#   osimage pin --check --os-stream rhel-10 --pins hack/release.sh
# which adds, in the osimage pins block after the comments at the top, lines such as
#   export RHCOS_RHEL_10_BUILD_NAME="${RHCOS_RHEL_10_BUILD_NAME:-10.2.20260217-0}"

# osimage: $OSIMAGE, else the one on PATH, else the one of this repository.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "${OSIMAGE:-}" ]; then
  if command -v osimage >/dev/null 2>&1; then OSIMAGE=osimage; else OSIMAGE="$here/../bin/osimage"; fi
fi

# 1. Resolve the pinned build against the release browser (this fails if the pin is gone) and show it.
"$OSIMAGE" resolve "$@"

# 2. With PAYLOAD_DIR (a `release new --from-dir` folder: image-references of the input images, one folder per
#    operator), write the pinned OS container into the payload and assemble it. The folder is edited in place.
#    RELEASE_VERSION names the release; RELEASE_IMAGE is where it goes: a registry reference, or
#    oci-archive:FILE for a file. REGISTRY_FLAGS (e.g. "--insecure -a auth.json") go to every registry call.
if [ -n "${PAYLOAD_DIR:-}" ]; then
  : "${RELEASE_VERSION:?set RELEASE_VERSION, e.g. 4.12.99}"
  : "${RELEASE_IMAGE:?set RELEASE_IMAGE, e.g. quay.io/me/release:4.12.99 or oci-archive:release.tar}"
  read -r -a registry_flags <<<"${REGISTRY_FLAGS:-}"
  mco="$PAYLOAD_DIR/machine-config-operator"
  os_image="$("$OSIMAGE" resolve -o oscontainer)"

  # machine-os-content in the MCO's image-references and the osimageurl ConfigMap, byte-identical; the bootimage.
  "$OSIMAGE" payload write --dir "$mco" --os-image "$os_image"
  "$OSIMAGE" payload bootimages --dir "$mco"

  # Assemble: the OS container is an input image too (without it: "no input image tag named machine-os-content").
  case "$RELEASE_IMAGE" in
    oci-archive:*) file="${RELEASE_IMAGE#oci-archive:}"; file="${file%%:*}"; to=(--to-file "$file"); read_as="oci-archive:$file:$RELEASE_VERSION" ;;
    *) to=(--to-image "$RELEASE_IMAGE"); read_as="$RELEASE_IMAGE" ;;
  esac
  "$OSIMAGE" release new "${registry_flags[@]}" --from-dir "$PAYLOAD_DIR" --name "$RELEASE_VERSION" \
    "machine-os-content=$os_image" "${to[@]}"

  # Read it back, and check that the payload ships the OS image of the pinned bootimage.
  "$OSIMAGE" release info "${registry_flags[@]}" "$read_as"
  "$OSIMAGE" verify "${registry_flags[@]}" --pins "$here/$(basename "${BASH_SOURCE[0]}")" --base-url "$RHCOS_BASE_URL" --release "$read_as"
fi
