#!/usr/bin/env bash
# The main job on the built-in sample, offline (`npm start`): the whole pipeline on the sample release browser
# (hack/sample/releases) and the sample payload folder (hack/sample/payload):
#   resolve -> pin -> payload write -> release new -> release info -> verify
# then the other tools on the same material (promote, a package diff of two builds, and an OS swap of a release with
# release new --from-release). Nothing outside a temp folder is changed.
set -euo pipefail
cd "$(dirname "$0")/.."
export RHCOS_BASE_URL="${RHCOS_BASE_URL:-file://$PWD/hack/sample/releases}"
export RHCOS_DEFAULT_CHANNEL="${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"
export OSIMAGE="$PWD/bin/osimage"
osimage() { node bin/osimage "$@"; }
step() { printf '\n== %s\n' "$*"; }

# OSIMAGE_DEMO_DIR: work in that (empty) folder and keep it, so that a test can check what the steps wrote.
if [ -n "${OSIMAGE_DEMO_DIR:-}" ]; then
  work="$OSIMAGE_DEMO_DIR"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/osimage-demo.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
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

step "release diff: the sample release to the one just built"
osimage release diff oci-archive:hack/sample/release.oci-archive:4.13.1 "$release"

step "promote: the periodic job on an older pin tests the newest build and pins it only if the test passes"
osimage pin --write "$work/release.sh" --build 412.86.202301250001-0
osimage promote --write "$work/release.sh" --meta "$work/rhcos.json" \
  --test 'echo "smoke test of $RHCOS_BUILD_NAME"; test -n "$RHCOS_BUILD_NAME"'

step "today's OS image (2026): layered rhel-coreos + extensions and a second OS stream (rhel-10) in a 4.21 MCO folder"
lay="$work/layered"
mkdir -p "$lay"
cp -r hack/sample/payload/cluster-version-operator "$lay/"
cp -r hack/sample/generations/4.21-two-streams "$lay/machine-config-operator"
# The input images: the sample's, plus the two that MCO folder also names.
{ cat hack/sample/payload/image-references
  printf '  - name: %s\n    from:\n      kind: DockerImage\n      name: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%s\n' \
    keepalived-ipfailover "$(printf 'd%.0s' {1..64})" coredns "$(printf 'e%.0s' {1..64})"; } >"$lay/image-references"
osimage resolve --channel 4.18-9.4/builds -o json | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.build, "OS image:", r.osImage)'
# The default stream (RHEL 9) from its channel; the rhel-10 stream from its own pins (RHCOS_RHEL_10_*).
osimage payload write --dir "$lay/machine-config-operator" --channel 4.18-9.4/builds
RHCOS_RHEL_10_BASE_URL="$RHCOS_BASE_URL" RHCOS_RHEL_10_DEFAULT_CHANNEL=rhel-10.2/builds \
  osimage payload write --dir "$lay/machine-config-operator" --os-stream rhel-10
# The OS images are input images of the release too, from the same builds.
images_of() { (eval "$(osimage resolve --channel "$1" -o env)" && echo "$RHCOS_OS_IMAGE $RHCOS_EXTENSIONS_CONTAINER"); }
read -r os9 ext9 <<<"$(images_of 4.18-9.4/builds)"
read -r os10 ext10 <<<"$(images_of rhel-10.2/builds)"
osimage release new --from-dir "$lay" --name 4.21.0 --to-file "$work/layered.tar" \
  "rhel-coreos=$os9" "rhel-coreos-extensions=$ext9" "rhel-coreos-10=$os10" "rhel-coreos-10-extensions=$ext10"
osimage release info --image-for rhel-coreos-10 "oci-archive:$work/layered.tar:4.21.0"

step "stream: the bootimage stream of every arch (as the installer's data/data/coreos/coreos-rhel-9.json), pinned in a file and checked"
osimage stream --channel 4.16-9.4/builds | node -e 'const s = JSON.parse(require("fs").readFileSync(0, "utf8")); for (const [a, x] of Object.entries(s.architectures)) console.log(a, Object.keys(x.artifacts).join(" "), "| images:", Object.keys(x.images).join(" ") || "-")'
osimage stream --channel 4.16-9.4/builds --target "$work/coreos-rhel-9.json"
osimage stream --channel 4.16-9.4/builds --target "$work/coreos-rhel-9.json"   # a rerun leaves it alone
osimage stream --check --target "$work/coreos-rhel-9.json" --channel 4.16-9.4/builds

step "diff + packages: what changed in the OS between two sample builds (rpm version order, extensions included)"
osimage diff --channel 4.18-9.4/builds 418.94.202604221012-0 418.94.202605101521-0
osimage packages --channel 4.18-9.4/builds --package 'kernel*' --package podman

step "release new --from-release: swap the OS of release 4.16.3 (hack/sample/components.oci-archive) to the newest build of rhcos-4.16"
# The archive holds the release and, by digest, every image it names: the swap reads them there, offline.
osimage release new --from-release oci-archive:hack/sample/components.oci-archive:4.16.3 \
  --base-url "$RHCOS_BASE_URL" --channel rhcos-4.16 --to-file "$work/swapped.tar"
osimage release info "oci-archive:$work/swapped.tar:4.16.3"
osimage verify --base-url "$RHCOS_BASE_URL" --channel rhcos-4.16 --release "oci-archive:$work/swapped.tar:4.16.3"

step "signatures: release new --sign-key signs a release (with a key made here); release verify-signatures checks it"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/signing.key" 2>/dev/null
openssl pkey -in "$work/signing.key" -pubout -out "$work/signing.pub"
osimage release new --from-dir "$work/payload" --name 4.12.99 --to-file "$work/signed.tar" \
  "machine-os-content=$(osimage release info --image-for machine-os-content "$release")" \
  --sign-key "$work/signing.key" --sign-identity quay.io/example/ocp-release:4.12.99
osimage release verify-signatures --key "$work/signing.pub" --require sigstore "oci-archive:$work/signed.tar:4.12.99"

step "done: every step ran offline on the sample"
