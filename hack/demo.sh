#!/usr/bin/env bash
# The main job on the built-in sample, offline (`npm start`): the whole pipeline on the sample release browser
# (hack/sample/releases) and the sample payload folder (hack/sample/payload):
#   resolve -> pin -> payload write -> release new -> release info -> verify
# then the other tools on the same material (promote, and a package diff of two builds). Nothing outside a temp folder is changed.
set -euo pipefail
cd "$(dirname "$0")/.."
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-file://$PWD/hack/sample/releases}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
export OSIMAGE="$PWD/bin/osimage"
osimage() { node bin/osimage "$@"; }
step() { printf '\n== %s\n' "$*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/osimage-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp hack/release.sh "$work/release.sh"
cp -r hack/sample/payload "$work/payload"

step "1. resolve: the channel's builds and the newest one"
osimage builds
osimage resolve

step "2. pin: a branch cut pins the newest build in (a copy of) hack/release.sh, with a metadata snapshot; CI checks it"
osimage pin --latest --write "$work/release.sh" --meta "$work/rhcos.json"
osimage pin --check --pins "$work/release.sh" --meta "$work/rhcos.json" --base-url "$RHCOS_BASE_URL"

step "3-6. the release script: payload write -> release new -> release info -> verify"
PAYLOAD_DIR="$work/payload" RELEASE_VERSION=4.12.99 RELEASE_IMAGE="oci-archive:$work/release.tar" \
  bash "$work/release.sh"
release="oci-archive:$work/release.tar:4.12.99"

step "release info --image-for machine-os-content (what the payload ships)"
osimage release info --image-for machine-os-content "$release"

step "payload check: the MCO's references against the release just built"
osimage payload check --dir "$work/payload" --from-release "$release"

step "payload render + merge: the 00-<role>-osimageurl MachineConfigs and the rendered name"
os_image="$(osimage resolve -o oscontainer)"
osimage payload render --os-image "$os_image" --role master --role worker --out "$work/mcs"
osimage payload merge --role master -o name "$work/mcs"

step "verify the shipped sample release against the pinned build: it drifts (exit 1 expected)"
rc=0
osimage verify --pins "$work/release.sh" --base-url "$RHCOS_BASE_URL" \
  --release oci-archive:hack/sample/release.oci-archive:4.13.1 || rc=$?
[ "$rc" -eq 1 ]

step "release info --changes-from: the sample release to the one just built"
osimage release info --changes-from oci-archive:hack/sample/release.oci-archive:4.13.1 "$release"

step "promote: the periodic job on an older pin tests the newest build and pins it only if the test passes"
osimage pin --write "$work/release.sh" --build 412.86.202301250001-0
osimage promote --write "$work/release.sh" --meta "$work/rhcos.json" \
  --test 'echo "smoke test of $RHCOS_BUILD_NAME"; test -n "$RHCOS_BUILD_NAME"'

step "diff + packages: what changed in the OS between two sample builds (rpm version order, extensions included)"
osimage diff --channel 4.18-9.4/builds 418.94.202604221012-0 418.94.202605101521-0
osimage packages --channel 4.18-9.4/builds --package 'kernel*' --package podman

step "done: every step ran offline on the sample"
