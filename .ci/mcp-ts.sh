#!/usr/bin/env bash
# A session against `recess mcp` with the official TypeScript MCP SDK, a client nobody here wrote:
# installs the SDK at the version pinned in testdata/mcp-ts/package-lock.json with the machine's
# Node.js and npm, then runs internal/action's TestMCPTypeScriptClient, which serves the fake GitHub,
# starts `node testdata/mcp-ts/session.mjs` (flags only, a bare environment) and applies the
# verdict file it leaves.
set -euo pipefail
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")/.."

node --version
npm --version
(cd testdata/mcp-ts && npm ci --no-audit --no-fund)
out=$(RECESS_MCP_TS=1 go test -count=1 -run '^TestMCPTypeScriptClient$' -v ./internal/action 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# A run that matched no test would pass silently: the session must have run.
grep -q -- '--- PASS: TestMCPTypeScriptClient' <<<"$out" || { echo "mcp-ts: TestMCPTypeScriptClient did not run"; exit 1; }
