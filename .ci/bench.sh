#!/usr/bin/env bash
# bench.sh runs recess's cost and speed measurements and prints every figure
# BENCHMARKS.md records, each under the command that produced it:
#
#   1. GitHub cost per event and per sweep, both stores (go test -bench in
#      internal/recesstest: requests, GraphQL points and writes per operation
#      are exact counts on the fake GitHub; ns/op and B/op include the fake,
#      which serves in the same process);
#   2. engine CPU per trigger evaluation (resume's BenchmarkEvaluate10k);
#   3. the binary: cold build time (an empty GOCACHE), size stripped and
#      unstripped, the largest packages, and the size of the local lab
#      (cmd/recess-lab, which links the fake GitHub the action's binary does
#      not);
#   4. start-up: the mean wall time of `recess eval` over RUNS runs.
#
# Usage: .ci/bench.sh [section...]   sections: cost evaluate binary startup
# (default: all). Environment: EVENTS (benchtime of the event benchmarks,
# default 20x), SWEEPS (of the sweep benchmarks, default 3x), RUNS (start-up
# runs, default 200), SKIP_COLD=1 skips the cold build (a minute on two
# cores).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")/.."

events=${EVENTS:-20x}
sweeps=${SWEEPS:-3x}
runs=${RUNS:-200}
sections=${*:-cost evaluate binary startup}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say() { printf '\n## %s\n' "$*"; }
cmd() {
	printf '$ %s\n' "$*"
	"$@"
}

printf '# recess benchmarks\n'
printf 'machine: %s cores (%s), %s, %s\n' "$(nproc 2>/dev/null || sysctl -n hw.ncpu)" \
	"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //' || uname -m)" \
	"$(go version | cut -d' ' -f3-)" "$(date -u +%Y-%m-%dT%H:%MZ)"

has() { [[ " $sections " == *" $1 "* ]]; }

if has cost; then
	say "GitHub cost per event"
	cmd go test -run '^$' -bench 'BenchmarkEvent' -benchtime "$events" ./internal/recesstest
	say "GitHub cost per sweep"
	cmd go test -run '^$' -bench 'BenchmarkSweep' -benchtime "$sweeps" -timeout 60m ./internal/recesstest
fi

if has evaluate; then
	say "engine CPU per evaluation"
	cmd go test -run '^$' -bench 'BenchmarkEvaluate10k' -benchmem ./resume
fi

size() { wc -c <"$1" | tr -d ' '; }

if has binary; then
	flags=(-trimpath -ldflags "-s -w")
	if [ -z "${SKIP_COLD:-}" ]; then
		say "cold build (empty GOCACHE, module cache warm)"
		cache=$(mktemp -d)
		start=$(date +%s.%N)
		GOCACHE=$cache go build "${flags[@]}" -o "$tmp/cold" ./cmd/recess
		end=$(date +%s.%N)
		rm -rf "$cache"
		printf '$ GOCACHE=$(mktemp -d) go build -trimpath -ldflags "-s -w" ./cmd/recess\n'
		printf '%.1f s\n' "$(echo "$end - $start" | bc)"
	fi
	say "binary size"
	go build "${flags[@]}" -o "$tmp/recess" ./cmd/recess
	go build -trimpath -o "$tmp/recess.sym" ./cmd/recess
	go build "${flags[@]}" -o "$tmp/recess-lab" ./cmd/recess-lab
	printf '$ go build -trimpath -ldflags "-s -w" ./cmd/recess\n%s bytes\n' "$(size "$tmp/recess")"
	printf '$ go build -trimpath ./cmd/recess   (with symbols)\n%s bytes\n' "$(size "$tmp/recess.sym")"
	printf '$ go build -trimpath -ldflags "-s -w" ./cmd/recess-lab   (the local lab, with the fake GitHub)\n%s bytes\n' "$(size "$tmp/recess-lab")"
	printf 'the lab'"'"'s embedded schema: %s bytes, gzip -9: %s bytes\n' \
		"$(size internal/githubfake/schema.strict.graphql)" "$(gzip -9 -c internal/githubfake/schema.strict.graphql | wc -c | tr -d ' ')"
	say "largest packages (go tool nm -size: code and data symbols by package; embedded files have no symbol)"
	go tool nm -size "$tmp/recess.sym" | awk '
		$3 ~ /^[TtRrDd]$/ && $2 < 8000000 {
			name = $4
			sub(/^go:(string|func)\..*/, "(go: strings and funcs)", name)
			if (name !~ /^\(/) {
				n = split(name, parts, "/")
				last = parts[n]
				sub(/\..*/, "", last)
				pkg = ""
				for (i = 1; i < n; i++) pkg = pkg parts[i] "/"
				name = pkg last
			}
			size[name] += $2
		}
		END { for (p in size) printf "%9d %s\n", size[p], p }' | sort -rn | sed -n '1,25p'
fi

if has startup; then
	say "start-up: recess eval, mean over $runs runs"
	[ -x "$tmp/recess" ] || go build -trimpath -ldflags "-s -w" -o "$tmp/recess" ./cmd/recess
	args=(eval --trigger '{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}'
		--opened-at 2026-11-21T10:00:00Z --now 2026-11-22T10:00:00Z --replies 1)
	for bin in recess; do
		"$tmp/$bin" "${args[@]}" >/dev/null
		start=$(date +%s%N)
		for _ in $(seq "$runs"); do "$tmp/$bin" "${args[@]}" >/dev/null; done
		end=$(date +%s%N)
		printf '$ %s eval ...  x%s\n%s: %.2f ms per run\n' "$bin" "$runs" "$bin" "$(echo "($end - $start) / $runs / 1000000" | bc -l)"
	done
	printf '$ GODEBUG=inittrace=1 recess eval ...   (package initialisation, slowest five)\n'
	GODEBUG=inittrace=1 "$tmp/recess" "${args[@]}" 2>&1 >/dev/null | sort -t' ' -k5 -rn | sed -n '1,5p'
fi
