// Package workflows checks the workflow files the project ships
// (.github/workflows/*.yml and .github/examples/*.yml), which users copy:
// that a job which runs the agent holds no token that can write, that every
// job which writes a discussion's record runs in that discussion's
// concurrency group (recess-<number>, queue: max), and that no event or
// model text is spliced into a shell script.
//
// Check is the rule; the package's tests run it over every shipped file and
// over hand-made workflows that break each rule.
package workflows
