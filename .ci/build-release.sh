#!/usr/bin/env bash
# build-release.sh OUTDIR builds the release binaries recess's action downloads and their
# checksums: OUTDIR/recess_<os>_<arch>[.exe] for linux, darwin and windows on amd64 and arm64,
# and OUTDIR/checksums.txt ("<sha256>  <file>" per line, as sha256sum writes it).
# .github/workflows/release.yml runs it on every v* tag; it works the same on a laptop.
set -euo pipefail
export GOTOOLCHAIN=go1.27.3

out=${1:?usage: build-release.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)

for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	goos=${target%/*}
	goarch=${target#*/}
	name="recess_${goos}_${goarch}"
	[ "$goos" = windows ] && name="$name.exe"
	echo "building $name" >&2
	GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o "$out/$name" ./cmd/recess
done

cd "$out"
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum recess_* >checksums.txt
else
	shasum -a 256 recess_* >checksums.txt
fi
cat checksums.txt >&2
