// Package action is the recess GitHub Action and its local CLI (eval,
// status, sweep --dry-run, mcp, prompt, init, check): cmd/recess is its
// process, and the
// local lab (cmd/recess-lab) runs it in-process against the fake GitHub
// (lab.go holds what the lab uses).
//
// With no arguments it runs as the action (reading what GitHub Actions
// provides); with a subcommand it predicts and debugs locally. Every way in
// builds one invocation (from the environment, from flags, or from a
// scenario's step) and hands it to execute, which runs the engine once.
//
//	recess eval --trigger JSON --opened-at T --now T [--replies N] [--signal NAME]... [--max-recess D]
package action
