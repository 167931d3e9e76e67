// Package wait is the trigger language of recess: ISO-8601 durations, the
// triggers a recessed verdict waits on (missing_input, elapsed,
// escalation_needed, any, all, with expires), and their evaluation.
//
// It is a leaf: it imports neither state nor resume, so that the record
// (package state) can hold a typed trigger decoded once where it enters,
// and the engine (package resume) evaluates that value. Everything here is
// pure: no I/O, no wall clock (Evaluate takes now).
//
// Being the leaf, it also holds what every reader of outside input shares:
// FieldError, the one error for refused input, which names the field, and
// DecodeJSON, the thin layer over encoding/json/v2 that reads a JSON
// document strictly and names the field of every refusal.
package wait
