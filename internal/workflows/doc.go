// Package workflows holds the rules a repository's recess setup must keep,
// read from its workflow files: every job that writes a discussion's record
// runs in that discussion's concurrency group (recess-<number>, queue: max);
// a job that runs the agent holds no token that can write; every recess job
// has the permissions its work needs; the front door names an agent
// workflow that exists and takes recess's three dispatch inputs, with a
// claim and a verdict; something sweeps, off the top of the hour; no event
// or model text is spliced into a shell script.
//
// CheckRepo applies them to a repository's .github/workflows and returns
// typed findings with the line to change and the fix; `recess check` prints
// them, and the package's tests run them over the shipped files, the
// README's quick start and broken copies of both. It understands setups
// that call recess's reusable workflows (front-door.yml, claim.yml,
// verdict.yml) and setups that run the action step by step.
package workflows
