// Package resume is the engine of recess: it decides, and talks to the world
// only through the ports it declares (Clock, Store, Threads, Permissions,
// Dispatcher).
//
// A run of recess is one reconciliation of one discussion (or, for a sweep,
// of every discussion that needs it): the engine reads the discussion record
// and the discussion itself, recomputes what was observed from the
// discussion (never from the event that woke it, so a dropped, repeated or
// reordered event changes nothing), evaluates the open recesses, and then
// performs what is owed: a fresh dispatch, a resume, a retry, an expiry, an
// escalation. Each entry point reads once (a snapshot), decides with a
// function that performs no I/O and returns the decision as a value (a
// plan: the next record, its effects, the dispatch, what else to read
// first), and applies it in one fixed order (see plan): a verdict's replies,
// the waiting label that must precede the write, the record write, then the
// notes, reactions and labels only once it has won (a dry run returns the
// plan instead). Every dispatch is recorded as an intent before it is sent and
// confirmed after, so a crash in between is found and repaired by the next
// run, which looks for the run before dispatching again.
//
// The package is pure: no network, no environment, no wall clock.
//
// # Where SPEC.md's words live
//
// One file each; paths are from the module root.
//
//	read, decide, apply (the decision)    resume/engine.go (Engine.run, decide: snapshot
//	                                        in, plan out; facts, the rules read)
//	effects and their order               resume/effects.go (Engine.apply, plan.describe)
//	intake (fresh dispatch, rate limit)   resume/inbound.go (Engine.Intake, facts.intake)
//	inbound (re-evaluate open recesses)   resume/inbound.go (Engine.Inbound, facts.evaluate)
//	observed (what a trigger sees)        resume/inbound.go (facts.observe, once per
//	                                        decision: observeAll)
//	reading of a comment (a person's      resume/commands.go (facts.reading)
//	  reply, a command, a refusal)
//	slash commands (/recess ...)          resume/commands.go
//	authority (who may command)           resume/authority.go
//	scope (categories, labels, wake-on)   resume/scope.go
//	what differs by kind of thread (the   resume/kinds.go (kinds; bots:
//	  noun, wake-on default, bots;        facts.quiet in commands.go, who
//	  who is heard in history_since)        is heard: reading.heard;
//	  flat: state.Kind.Flat)                flatness: state/record.go)
//	verdict (applying it)                 resume/verdict.go
//	where a verdict reply goes (for the   resume/verdict.go (PlaceReply)
//	  verdict and the agent's tools)
//	scope "thread" on a flat thread (for  resume/verdict.go (CheckScope)
//	  the verdict and the recess tool)
//	verdict document (reading it)         resume/verdict_parse.go
//	claim                                 resume/claim.go
//	a lost status comment: the copies of  resume/restore.go (keepCopy, restore,
//	  the record in recess's comments       unaccountedRun); its deletion's
//	                                        event: resume/inbound.go (Deleted)
//	sweep, plan, visit                    resume/sweep.go
//	sweep switch (what a run asks of it;  resume/sweepswitch.go (sweepSwitchFor),
//	  never off under a hidden record)      resume/sweep.go (Engine.choose, Overlooker)
//	status (comment text, recess status)  resume/status.go
//	a trigger in words (status, prompt)   resume/status.go (triggerWords)
//	escalation, retries, stuck runs       resume/escalate.go
//	a dispatch GitHub refuses (escalated  resume/escalate.go (refused, blocked, lift),
//	  once, tried again on a new setup)     resume/sweep.go (setupChanged)
//	exactly-once dispatch, a failed one   resume/dispatch.go (decideDispatchFailed)
//	correlation id in a run-name          resume/engine.go (RunNameHas, FreshRun)
//	texts and Markdown escaping           resume/texts.go
//	line breaks, first line, one line,    internal/text/text.go
//	  shortening, counting in words
//	resume_context                        resume/context.go
//	prompt (the agent's resumed prompt)   resume/prompt.go
//	intake prompt                         resume/prompt_intake.go
//	what the agent asked (questions)      resume/questions.go
//	ports (Store, Threads, ...), a thread resume/ports.go
//	  addressed by kind and number
//	  (ThreadRef); kinds served           internal/github/discussions.go (served)
//	where a reply sits in its thread      internal/github/discussions.go (Reply)
//	triggers (reading them)               resume/wait/parse.go
//	durations, FieldError                 resume/wait/duration.go
//	trigger evaluation                    resume/wait/evaluate.go
//	strict JSON of outside input          resume/wait/json.go
//	strict YAML of outside input          internal/action/yamlstrict.go
//	discussion record, its thread's kind  state/record.go
//	status comment body, hidden marker    state/codec.go
//	  (trusted only as recess writes it)    (StatusBody, ReadStatus)
//	comment store (state-store: comment)  internal/github/commentstore.go
//	branch store (state-store: branch)    internal/github/branchstore.go
//	what both stores share (stamp,        internal/github/store.go
//	  summary, a changed record's refusal)
//	discussions, labels on GitHub, the    internal/github/discussions.go
//	  repository facts read with them       (resume.Repo)
//	a sweep's look for lost events (the   internal/github/discussions.go
//	  probe, question threads included)     (Client.Activity)
//	dispatch on GitHub                    internal/github/dispatch.go
//	a login's permission, recess's login  internal/github/permission.go
//	action mode (env in, outputs out)     internal/action/action.go
//	inputs and .github/recess.yml         internal/action/config.go
//	event payload, command auto           internal/action/event.go
//	one run of a command (invocation)     internal/action/invocation.go
//	job summary                           internal/action/summary.go
//	recess status, recess sweep           internal/action/cli.go
//	  --dry-run
//	dry run (writes described)            internal/action/dryrun.go
//	recess eval                           internal/action/eval.go
//	recess mcp                            internal/action/mcp.go (tools: mcp_tools.go)
//	recess prompt                         internal/action/prompt.go
//	recess init                           internal/action/init.go
//	recess check (its rules)              internal/workflows/check.go
//	the lab (demo, scenarios, act)        cmd/recess-lab
package resume
