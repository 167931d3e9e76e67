// Package resume is the engine of recess: it decides, and talks to the world
// only through the ports it declares (Clock, Store, Discussions, Dispatcher).
//
// A run of recess is one reconciliation of one discussion (or, for a sweep,
// of every discussion that needs it): the engine reads the discussion record
// and the discussion itself, recomputes what was observed from the
// discussion (never from the event that woke it, so a dropped, repeated or
// reordered event changes nothing), evaluates the open recesses, and then
// performs what is owed: a fresh dispatch, a resume, a retry, an expiry, an
// escalation. Every dispatch is recorded as an intent before it is sent and
// confirmed after, so a crash in between is found and repaired by the next
// run, which looks for the run before dispatching again.
//
// The package is pure: no network, no environment, no wall clock.
package resume
