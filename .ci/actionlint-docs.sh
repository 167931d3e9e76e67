#!/usr/bin/env bash
# actionlint-docs.sh checks what docs/step-by-step.md promises about actionlint, on its own
# copies of the workflows (the yaml blocks that say "Copy it to .github/workflows/NAME.yml"):
#   - a stock actionlint reports nothing but `unexpected key "queue"` (and says so when it no
#     longer reports even that: then the page's advice can go);
#   - with the one-line .github/actionlint.yaml the page shows, it reports nothing.
# Usage: actionlint-docs.sh [ACTIONLINT]   (default: actionlint on PATH)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
page=docs/step-by-step.md
actionlint=${1:-actionlint}
queue='unexpected key "queue" for "concurrency" section'

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/recess-readme-lint.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo/.github/workflows" "$work/blocks"

# Every ```yaml block of the page, its indentation stripped, as blocks/N.yml.
# (No regex intervals: mawk has none.)
awk -v dir="$work/blocks" '
	!inside && /^ *```yaml$/ { inside = 1; indent = length($0) - 7; fence = substr($0, 1, indent) "```"; n++; next }
	inside && $0 == fence { inside = 0; next }
	inside { print substr($0, indent + 1) > (dir "/" n ".yml") }
' "$root/$page"

config=""
for block in "$work"/blocks/*.yml; do
	[ -e "$block" ] || break
	# "Copy it to .github/workflows/NAME.yml", possibly across two comment lines.
	name=$(head -n 5 "$block" | tr '\n' ' ' |
		sed -n 's/.*Copy it to[ #]*\.github\/workflows\/\([a-z-]*\.yml\).*/\1/p')
	if [ -n "$name" ]; then
		[ ! -e "$work/repo/.github/workflows/$name" ] || fail "$page has two blocks for $name"
		cp "$block" "$work/repo/.github/workflows/$name"
	elif head -n 1 "$block" | grep -q '^paths: .*queue'; then
		[ -z "$config" ] || fail "$page shows two actionlint configurations"
		config=$block
	fi
done
for name in recess.yml agent.yml; do
	[ -e "$work/repo/.github/workflows/$name" ] || fail "$page has no block that says 'Copy it to .github/workflows/$name'"
done
[ -n "$config" ] || fail "$page shows no one-line .github/actionlint.yaml"
[ "$(wc -l <"$config")" -eq 1 ] || fail "the actionlint configuration of $page is not one line: $(cat "$config")"

cd "$work/repo"
git init -q . # actionlint looks for the repository's .github

# Exit 1 means problems found; 2 and 3 mean actionlint itself failed. (actionlint turns the \n of
# -format into a newline.)
status=0
# shellcheck disable=SC2016 # a Go template, not shell
stock=$("$actionlint" -no-color -format '{{range $e := .}}{{$e.Filepath}}: {{$e.Message}}\n{{end}}') || status=$?
[ "$status" -le 1 ] || fail "actionlint failed (exit $status): $stock"
if [ -z "$stock" ]; then
	echo "note: $("$actionlint" -version | head -n 1) passes the workflows of $page without the ignore line: its actionlint advice can go"
else
	others=$(grep -vF "$queue" <<<"$stock" || true)
	[ -z "$others" ] || fail "a stock actionlint reports more than the queue key on the workflows of $page:
$others"
	echo "stock actionlint: only '$queue' ($(wc -l <<<"$stock") times), as $page says"
fi

cp "$config" .github/actionlint.yaml
"$actionlint" -no-color || fail "actionlint with the .github/actionlint.yaml line of $page still reports the above"
echo "actionlint with the one-line .github/actionlint.yaml of $page: clean"
