#!/usr/bin/env bash
# A session against `recess mcp` with the official TypeScript MCP SDK, a client nobody here wrote:
# installs the SDK at the version pinned in testdata/mcp-ts/package-lock.json with the machine's
# Node.js and npm, then runs cmd/recess TestMCPTypeScriptClient, which serves the fake GitHub,
# starts `node testdata/mcp-ts/session.mjs` (flags only, a bare environment) and applies the
# verdict file it leaves.
set -euo pipefail
cd "$(dirname "$0")/.."

node --version
npm --version
(cd testdata/mcp-ts && npm ci --no-audit --no-fund)
RECESS_MCP_TS=1 go test -count=1 -run '^TestMCPTypeScriptClient$' -v ./cmd/recess
