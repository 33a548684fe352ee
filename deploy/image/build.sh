#!/usr/bin/env bash
# build.sh [OUT]: builds adcamp's container image with ko, without a
# Docker daemon or a registry, into the tarball OUT (default
# adcamp-image.tar), then checks it (imagetool check). docs/operations.md,
# "The image", says how to load and run it.
#   VERSION  the image's version label and adcamp version's answer
#            (default: git describe, else "devel")
#   ARCH     the architecture to build for (default: amd64)
# (--image-label splits its value at commas: none in a label.)
# ko and imagetool are built from this module (go.mod pins ko), with
# modules from the Go module proxy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(realpath -m "${1:-adcamp-image.tar}")
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
version=${VERSION:-$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo devel)}
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
work=$(mktemp -d)
# ko names what it saves by its path, which must be in lower case.
layout=$(tr 'A-Z' 'a-z' <<<"$work")-layout
mkdir "$layout"
trap 'rm -rf "$work" "$layout"' EXIT

go -C "$here" build -o "$work/ko" github.com/google/ko
go -C "$here" build -o "$work/imagetool" .

# ko builds on a base image, which it would pull from a registry; but it
# looks a base given by digest up in $KOCACHE/img first, and finds it
# there: imagetool writes it (see base.go).
export KOCACHE=$work/kocache
base=$("$work/imagetool" base -layout "$KOCACHE/img" -arch "${ARCH:-amd64}")

cd "$root"
KO_DEFAULTBASEIMAGE=$base KO_DOCKER_REPO=adcamp.invalid/adcamp "$work/ko" build ./cmd/adcamp \
	--push=false --bare --sbom=none --oci-layout-path "$layout" \
	--image-user 65532:65532 \
	--image-label "org.opencontainers.image.title=adcamp" \
	--image-label "org.opencontainers.image.description=The Campaign Advertising Open API (self-hosted)" \
	--image-label "org.opencontainers.image.version=$version" \
	--image-label "org.opencontainers.image.revision=$commit" \
	--ldflags "-s -w -X main.version=$version -X main.commit=$commit" >/dev/null
"$work/imagetool" pack -layout "$layout" -tag "adcamp:$version" -o "$out"
"$work/imagetool" check -version "$version" "$out"
