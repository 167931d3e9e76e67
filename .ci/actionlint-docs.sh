#!/usr/bin/env bash
# actionlint-readme.sh checks what the README promises about actionlint, on the README's own
# copies of the workflows (the yaml blocks that say "Copy it to .github/workflows/NAME.yml"):
#   - a stock actionlint reports nothing but `unexpected key "queue"` (and says so when it no
#     longer reports even that: then the README's advice can go);
#   - with the one-line .github/actionlint.yaml the README shows, it reports nothing.
# Usage: actionlint-readme.sh [ACTIONLINT]   (default: actionlint on PATH)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
actionlint=${1:-actionlint}
queue='unexpected key "queue" for "concurrency" section'

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/recess-readme-lint.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo/.github/workflows" "$work/blocks"

# Every ```yaml block of the README, its indentation stripped, as blocks/N.yml.
# (No regex intervals: mawk has none.)
awk -v dir="$work/blocks" '
	!inside && /^ *```yaml$/ { inside = 1; indent = length($0) - 7; fence = substr($0, 1, indent) "```"; n++; next }
	inside && $0 == fence { inside = 0; next }
	inside { print substr($0, indent + 1) > (dir "/" n ".yml") }
' "$root/README.md"

config=""
for block in "$work"/blocks/*.yml; do
	[ -e "$block" ] || break
	# "Copy it to .github/workflows/NAME.yml", possibly across two comment lines.
	name=$(head -n 5 "$block" | tr '\n' ' ' |
		sed -n 's/.*Copy it to[ #]*\.github\/workflows\/\([a-z-]*\.yml\).*/\1/p')
	if [ -n "$name" ]; then
		[ ! -e "$work/repo/.github/workflows/$name" ] || fail "README.md has two blocks for $name"
		cp "$block" "$work/repo/.github/workflows/$name"
	elif head -n 1 "$block" | grep -q '^paths: .*queue'; then
		[ -z "$config" ] || fail "README.md shows two actionlint configurations"
		config=$block
	fi
done
for name in recess.yml agent.yml; do
	[ -e "$work/repo/.github/workflows/$name" ] || fail "README.md has no block that says 'Copy it to .github/workflows/$name'"
done
[ -n "$config" ] || fail "README.md shows no one-line .github/actionlint.yaml"
[ "$(wc -l <"$config")" -eq 1 ] || fail "the README's actionlint configuration is not one line: $(cat "$config")"

cd "$work/repo"
git init -q . # actionlint looks for the repository's .github

# Exit 1 means problems found; 2 and 3 mean actionlint itself failed. (actionlint turns the \n of
# -format into a newline.)
status=0
# shellcheck disable=SC2016 # a Go template, not shell
stock=$("$actionlint" -no-color -format '{{range $e := .}}{{$e.Filepath}}: {{$e.Message}}\n{{end}}') || status=$?
[ "$status" -le 1 ] || fail "actionlint failed (exit $status): $stock"
if [ -z "$stock" ]; then
	echo "note: $("$actionlint" -version | head -n 1) passes the README's workflows without the ignore line: the README's actionlint advice can go"
else
	others=$(grep -vF "$queue" <<<"$stock" || true)
	[ -z "$others" ] || fail "a stock actionlint reports more than the queue key on the README's workflows:
$others"
	echo "stock actionlint: only '$queue' ($(wc -l <<<"$stock") times), as the README says"
fi

cp "$config" .github/actionlint.yaml
"$actionlint" -no-color || fail "actionlint with the README's .github/actionlint.yaml line still reports the above"
echo "actionlint with the README's one-line .github/actionlint.yaml: clean"
