#!/usr/bin/env bash
# install-recess-test.sh checks cmd/recess/install-recess.sh, the action's first step, against a
# local directory that plays GitHub: GITHUB_SERVER_URL is file://DIR, so DIR/OWNER/REPO is a git
# repository whose tags git ls-remote reads, and DIR/OWNER/REPO/releases/download/TAG/ holds a
# release's assets, fetched by curl. On PATH, only the tools the installer needs, plus stand-ins:
# a `go` that records each build instead of compiling, and (in the cases that want one) a `gh`
# that records its arguments and token and succeeds or fails. Each case checks the exit status,
# the binary handed on (the release asset, the source build, or none), the builds, and the log.
set -euo pipefail
export GOTOOLCHAIN=go1.27.3

root=$(cd "$(dirname "$0")/.." && pwd)
script=$root/cmd/recess/install-recess.sh
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/recess-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The tools the installer may call, and nothing else (so no gh unless a case adds one).
mkdir -p "$work/tools" "$work/go" "$work/gh-ok" "$work/gh-refuses"
for t in bash sh env awk cat chmod curl cut git grep mktemp mv sort tail sha256sum; do
	p=$(command -v "$t") || fail "$t is not installed"
	ln -s "$p" "$work/tools/$t"
done
cat >"$work/go/go" <<GO
#!/bin/sh
# stand-in go: logs the build and writes a binary unlike any release asset
echo "\$*" >>"$work/go.log"
while [ \$# -gt 1 ]; do [ "\$1" = -o ] && printf '#!/bin/sh\n# built from source\n' >"\$2"; shift; done
GO
for result in ok:0 refuses:1; do
	# gh attestation verify FILE --repo R, logged with FILE's sha256 in its place
	printf '#!/bin/sh\necho "GH_TOKEN=$GH_TOKEN $1 $2 $(sha256sum <"$3" | cut -c1-64) $4 $5" >>"%s/gh.log"\nexit %s\n' \
		"$work" "${result#*:}" >"$work/gh-${result%:*}/gh"
done
chmod +x "$work"/go/go "$work"/gh-*/gh

# The action repository octo/recess: three commits and their tags, releases beside them.
srv=$work/srv
repo=$srv/octo/recess
git init -q "$repo"
commit() {
	git -C "$repo" -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "$1"
	git -C "$repo" rev-parse HEAD
}
c_rel=$(commit released)   # v9.10.0 (annotated; a release), v9.9.9 (no release) and v9 (the major tag)
c_none=$(commit untagged)  # no tag
c_norel=$(commit unreleased) # v0.1.0, which has no release
git -C "$repo" tag v9.9.9 "$c_rel"
git -C "$repo" -c user.name=t -c user.email=t@example.com tag -a -m v9.10.0 v9.10.0 "$c_rel"
git -C "$repo" tag v9 "$c_rel"
git -C "$repo" tag v0.1.0 "$c_norel"
printf '#!/bin/sh\n# a release asset\n' >"$work/asset"
sum=$(sha256sum <"$work/asset" | cut -d' ' -f1)
release() { # release TAG CHECKSUMS
	mkdir -p "$repo/releases/download/$1"
	cp "$work/asset" "$repo/releases/download/$1/recess_linux_amd64"
	printf '%s' "$2" >"$repo/releases/download/$1/checksums.txt"
}
release v9.10.0 "$(printf '%s  recess_linux_amd64\n%064d  recess_darwin_arm64\n' "$sum" 0)"
release v1.0.0-bad "$(printf '%064d  recess_linux_amd64\n' 1)"
release v1.0.0-noline "$(printf '%s  recess_darwin_arm64\n' "$sum")"

# install REF [EXTRA_PATH [ACTION_PATH [REPO]]] runs the installer as action.yml does on a Linux x64
# runner; sets status, path (the binary handed on) and log (its stdout and stderr).
install() {
	local out=$work/out.$RANDOM
	: >"$out" >"$work/go.log" >"$work/gh.log"
	status=0
	env -i PATH="$work/go:${2:+$2:}$work/tools" RECESS_ACTION_PATH="${3:-$root}" RECESS_ACTION_REF="$1" \
		RECESS_ACTION_REPOSITORY="${4-octo/recess}" RECESS_TOKEN=ghs_test GITHUB_SERVER_URL="file://$srv" \
		GITHUB_OUTPUT="$out" RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work" \
		bash "$script" >"$work/log" 2>&1 || status=$?
	path=$(sed -n 's/^path=//p' "$out")
	log=$(cat "$work/log")
}

# expect CASE STATUS BINARY(asset|source|none) GH_LOG LOG_LINE
expect() {
	local got_bin=none
	if [ -n "$path" ] && cmp -s "$path" "$work/asset"; then
		got_bin=asset
	elif [ -n "$path" ] && grep -q 'built from source' "$path"; then
		got_bin=source
	elif [ -n "$path" ]; then
		got_bin="unknown file $path"
	fi
	[ "$status" = "$2" ] || fail "$1: exit $status, want $2: $log"
	[ "$got_bin" = "$3" ] || fail "$1: handed on $got_bin, want $3: $log"
	[ "$3" != asset ] || [ -x "$path" ] || fail "$1: $path is not executable"
	local builds
	builds=$(wc -l <"$work/go.log" | tr -d ' ')
	[ "$builds" = "$([ "$3" = source ] && echo 1 || echo 0)" ] || fail "$1: $builds source builds: $log"
	[ "$(cat "$work/gh.log")" = "$4" ] || fail "$1: gh was called with '$(cat "$work/gh.log")', want '$4'"
	grep -qF -- "$5" "$work/log" || fail "$1: the log lacks '$5': $log"
	printf '   ok %s\n' "$1"
}

echo "== install-recess.sh against a local release directory (file://$srv)"
verified="downloaded recess_linux_amd64 from release v9.10.0 of octo/recess: sha256 $sum verified"
gh_call="GH_TOKEN=ghs_test attestation verify $sum --repo octo/recess"
nogh="(gh is not on this runner: its attestation is not checked, its checksum is)"

install v9.10.0
expect "release_tag_without_gh_relies_on_the_checksum" 0 asset "" "$verified $nogh"
install v9
expect "major_tag_takes_the_newest_version_at_its_commit" 0 asset "" "$verified"
install "$c_rel"
expect "commit_sha_takes_the_release_tagged_there" 0 asset "" "$verified"
mkdir -p "$work/runner/_actions/octo/recess"
ln -s "$root" "$work/runner/_actions/octo/recess/v9.10.0"
install "" "" "$work/runner/_actions/octo/recess/v9.10.0" ""
expect "empty_ref_and_repository_are_read_from_the_action_path" 0 asset "" "$verified"

install v9.10.0 "$work/gh-ok"
expect "gh_verifies_the_attestation" 0 asset "$gh_call" "$verified and its attestation"
install v9.10.0 "$work/gh-refuses"
expect "a_refused_attestation_fails_without_a_build" 1 none "$gh_call" \
	"::error title=recess binary::the attestation of recess_linux_amd64 from release v9.10.0 of octo/recess does not verify"

install v1.0.0-bad "$work/gh-ok"
expect "a_checksum_mismatch_fails_without_a_build" 1 none "" \
	"::error title=recess binary::sha256 of recess_linux_amd64 from release v1.0.0-bad of octo/recess is $sum, checksums.txt says $(printf '%064d' 1): refusing the download"
install v1.0.0-noline
expect "a_missing_checksum_line_fails_without_a_build" 1 none "" \
	"::error title=recess binary::checksums.txt of release v1.0.0-noline of octo/recess has no line for recess_linux_amd64: refusing the download"

install main
expect "a_branch_builds_from_source" 0 source "" "no release binary for octo/recess@main: building from source"
install "$c_none"
expect "an_untagged_commit_builds_from_source" 0 source "" "no release binary for octo/recess@$c_none: building from source"
install "$c_norel"
expect "a_tag_without_a_release_builds_from_source" 0 source "" "no release binary for octo/recess@$c_norel (none under tag v0.1.0): building from source"
install "" "" "$root" ""
expect "a_local_action_builds_from_source" 0 source "" "no release binary for this action@local: building from source"

echo "== install-recess-test passed"
