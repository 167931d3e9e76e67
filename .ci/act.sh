#!/usr/bin/env bash
# act.sh: the example workflows (.github/workflows/recess.yml and agent.yml) end to end under act,
# against the embedded fake GitHub. It is `go run ./cmd/recess-lab act`, the README's local command:
# intake -> claim -> lead (recess-lab mcp-script over recess mcp) -> recess -> replies -> resume with
# the prompt -> adjourn, checked against the fake's state after every step (see cmd/recess-lab/act.go
# and testdata/act/README.md). It needs Go and bash; no Docker, and no network but the Go module
# proxy (to install act v0.2.89 the first time).
#
# ACT_TEST_KEEP=1 keeps the work directory (logs, events, the workflow copies);
# ACT_TEST_TIMEOUT bounds each act run (a Go duration, default 5m).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")/.."

args=(--timeout "${ACT_TEST_TIMEOUT:-5m}")
[ "${ACT_TEST_KEEP:-}" = 1 ] && args+=(--keep)
exec go run ./cmd/recess-lab act "${args[@]}"
