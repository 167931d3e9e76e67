package resume

import (
	"encoding/json"
	"time"
)

// Duration is an ISO-8601 duration as SPEC.md defines it. Years and months
// are calendar arithmetic in UTC, then weeks and days, then the time part.
type Duration struct {
	Years, Months, Weeks, Days int
	// Clock is the time part plus any fraction of the smallest date unit
	// (P1.5D: Days 1, Clock 12h).
	Clock time.Duration
	text  string
}

// DurationError is a refused duration.
type DurationError struct {
	Input  string
	Reason string
}

func (e *DurationError) Error() string { return "duration " + quote(e.Input) + ": " + e.Reason }

// FieldError is refused outside input; Field names it ("trigger.of[1].replies").
type FieldError struct {
	Field  string
	Reason string
	Err    error // underlying error (a *DurationError, a json error), may be nil
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }
func (e *FieldError) Unwrap() error { return e.Err }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// ParseDuration parses an ISO-8601 duration. Errors are *DurationError.
func ParseDuration(s string) (Duration, error) { panic("not built yet") }

// AddTo returns t moved forward by d (in UTC).
func (d Duration) AddTo(t time.Time) time.Time { panic("not built yet") }

// String returns the duration as it was written.
func (d Duration) String() string { return d.text }

// TriggerLimits are the policy bounds a trigger is checked against.
type TriggerLimits struct {
	// MaxRecess bounds every duration (elapsed, expires), measured from At.
	MaxRecess Duration
	// At is the moment the recess would open.
	At time.Time
	// AllowedKinds, when not empty, are the only kinds a trigger may use.
	AllowedKinds []string
}

// ParseTrigger decodes and validates a trigger document strictly. Errors are
// *FieldError naming the field (prefix "trigger").
func ParseTrigger(data []byte, lim TriggerLimits) (*Trigger, error) { panic("not built yet") }

// MarshalJSON writes the trigger in its canonical document form.
func (t *Trigger) MarshalJSON() ([]byte, error) { panic("not built yet") }

// Evaluate evaluates a trigger against what was observed at now. Pure.
func Evaluate(t *Trigger, o Observed, now time.Time) Evaluation { panic("not built yet") }
