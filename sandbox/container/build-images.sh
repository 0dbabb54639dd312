#!/bin/sh
# build-images.sh builds the local images the Docker runner uses. No registry is needed:
#
#   faultline/python:bookworm  a Debian bookworm root filesystem made by
#                              `debootstrap --variant=minbase --include=python3-pytest`,
#                              pruned (docs, man pages, locales, apt lists; byte code kept)
#                              and imported
#                              with `docker import`.
#   faultline/go:bookworm      the python image plus the host's Go toolchain (GOROOT of the
#                              `go` on PATH) at /usr/local/go, CGO disabled, GOTOOLCHAIN=local.
#
# It is idempotent: an image that already exists is left alone unless FORCE=1. Needs root
# (debootstrap), a reachable Docker engine (DOCKER_HOST is honoured by the docker CLI) and a
# Debian mirror (MIRROR, default http://deb.debian.org/debian). Usage:
#
#   sh sandbox/container/build-images.sh            # both images
#   sh sandbox/container/build-images.sh python     # only the python image
#   FORCE=1 sh sandbox/container/build-images.sh go # rebuild the go image
set -eu

PY_IMAGE=${PY_IMAGE:-faultline/python:bookworm}
GO_IMAGE=${GO_IMAGE:-faultline/go:bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
FORCE=${FORCE:-0}
what=${1:-all}

have_image() {
	[ "$FORCE" != 1 ] && docker image inspect "$1" >/dev/null 2>&1
}

build_python() {
	if have_image "$PY_IMAGE"; then
		echo "build-images: $PY_IMAGE exists"
		return
	fi
	command -v debootstrap >/dev/null 2>&1 || {
		echo "build-images: debootstrap not found (apt-get install -y debootstrap)" >&2
		exit 1
	}
	dir=$(mktemp -d /tmp/faultline-rootfs.XXXXXX)
	trap 'rm -rf "$dir"' EXIT INT TERM
	debootstrap --variant=minbase --include=python3-pytest bookworm "$dir" "$MIRROR"
	# Prune what a test run never needs.
	rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
		"$dir"/usr/share/locale/* "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/* \
		"$dir"/var/log/*
	# Keep (and complete) the byte-code caches: runs set PYTHONDONTWRITEBYTECODE, so without
	# them every run would compile pytest from source (about a second per run).
	chroot "$dir" /usr/bin/python3 -m compileall -q /usr/lib/python3 /usr/lib/python3.11 >/dev/null 2>&1 || true
	tar -C "$dir" -c . | docker import \
		-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		-c 'ENV LANG=C.UTF-8' \
		-c 'CMD ["/bin/sh"]' \
		- "$PY_IMAGE"
	rm -rf "$dir"
	trap - EXIT INT TERM
	echo "build-images: built $PY_IMAGE"
}

build_go() {
	if have_image "$GO_IMAGE"; then
		echo "build-images: $GO_IMAGE exists"
		return
	fi
	build_python
	goroot=$(go env GOROOT)
	ctx=$(mktemp -d /tmp/faultline-goctx.XXXXXX)
	trap 'rm -rf "$ctx"' EXIT INT TERM
	cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $PY_IMAGE
COPY go /usr/local/go
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY=off GOFLAGS=-mod=mod
DOCKERFILE
	# Copy the toolchain without its test data and docs to keep the image small.
	mkdir "$ctx/go"
	(cd "$goroot" && tar -c --exclude=./test --exclude=./doc --exclude='*/testdata' .) | tar -C "$ctx/go" -x
	docker build -q -t "$GO_IMAGE" "$ctx"
	rm -rf "$ctx"
	trap - EXIT INT TERM
	echo "build-images: built $GO_IMAGE"
}

case "$what" in
python) build_python ;;
go) build_go ;;
all) build_python; build_go ;;
*) echo "usage: build-images.sh [python|go|all]" >&2; exit 2 ;;
esac
