// Package workflows holds the rules a repository's recess setup must keep,
// read from its workflow files (SPEC "Who uses it and how"): every job that
// writes a thread's record runs in that thread's concurrency group
// (recess-<number>, the same expression everywhere, queue: max), under no
// workflow-level group that cancels; a job that runs the model (an agent
// action, an agent CLI, recess mcp: the lead, whatever its name) holds no
// token that can write, waits for claim and never runs when claim says
// stale, and starts recess mcp only with flags it knows; every recess job
// has the permissions its work needs and no write it does not; every input
// handed to the action or a reusable workflow is one it declares, with a
// value a run accepts; one front door, with the triggers its threads need,
// and claim and verdict on its store, its choices and its recess release;
// the agent workflow it names exists and takes recess's three dispatch
// inputs, with a claim and a verdict; something sweeps on a five-field
// cron, off the top of the hour; no event text is spliced into a shell
// script, and no pull_request_target job checks out a pull request's code.
//
// CheckRepo applies them to a repository's .github/workflows and returns
// typed findings with the line to change and a fix that, applied, breaks
// nothing else; `recess check` prints them. What recess declares comes
// from the files it ships (the action's and the reusable workflows' inputs,
// embedded by package recess) and from the code that reads them (Known:
// the inputs' choices, recess mcp's flags, a run's own check of its
// inputs), never from a second list here. It understands setups that call
// recess's reusable workflows (front-door.yml, claim.yml, verdict.yml) and
// setups that run the action step by step.
package workflows
