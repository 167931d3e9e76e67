// Package wait is the trigger language of recess: ISO-8601 durations, the
// triggers a recessed verdict waits on (missing_input, elapsed,
// escalation_needed, any, all, with expires), and their evaluation.
//
// It is a leaf: it imports neither state nor resume, so that the record
// (package state) can hold a typed trigger decoded once where it enters,
// and the engine (package resume) evaluates that value. Everything here is
// pure: no I/O, no wall clock (Evaluate takes now).
package wait
