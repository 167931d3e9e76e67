package action

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

const evalUsage = `usage: recess eval --trigger JSON --opened-at T [--now T] [--replies N] [--signal NAME]... [--max-recess D]

Evaluates a trigger the way recess would at a moment and prints one line:
  {"fired":BOOL,"reason":"...","due_at":"<RFC 3339 UTC>"|null}
with "fired_by" added when it fired and "cancelled":true when it expired
with on_expire "cancel". Exit status 2 for refused input.

Flags (--flag=value and --flag value both work):
  --trigger JSON    the trigger document; "-" reads it from stdin
  --opened-at T     when the recess opened (RFC 3339)
  --now T           the moment to evaluate at (RFC 3339); default $RECESS_NOW
  --replies N       N synthetic replies, arrived at --opened-at (default 0).
                    They count for every "from" filter and every scope, so the
                    trigger is evaluated with its "from" lists left out.
  --signal NAME     a delivered signal; repeatable; "*" is what
                    "/recess resume" delivers
  --max-recess D    the longest duration the trigger may use (ISO 8601,
                    default P90D)
`

// maxEvalReplies bounds --replies, so a typo cannot allocate without end.
const maxEvalReplies = wait.MaxTriggerReplies

// evalOutput is the line recess eval prints. FiredBy and Cancelled appear
// only when set, so the common shape stays the one SPEC.md shows.
type evalOutput struct {
	Fired     bool    `json:"fired"`
	Reason    string  `json:"reason"`
	DueAt     *string `json:"due_at"`
	FiredBy   string  `json:"fired_by,omitempty"`
	Cancelled bool    `json:"cancelled,omitempty"`
}

func runEval(_ context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	out, err := evalCommand(args, getenv, stdin)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, evalUsage)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "recess eval: %v\n", err)
		return 2
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "recess eval: %v\n", err)
		return 1
	}
	return 0
}

// evalCommand parses the flags, evaluates and returns what to print.
func evalCommand(args []string, getenv func(string) string, stdin io.Reader) (*evalOutput, error) {
	fs := flag.NewFlagSet("recess eval", flag.ContinueOnError) // errors are reported once, by runEval
	var (
		triggerDoc = fs.String("trigger", "", "")
		openedAt   = fs.String("opened-at", "", "")
		nowFlag    = fs.String("now", "", "")
		replies    = fs.String("replies", "0", "")
		maxRecess  = fs.String("max-recess", resume.Defaults().MaxRecess.String(), "")
		signals    []string
	)
	fs.Func("signal", "", func(s string) error {
		signals = append(signals, s)
		return nil
	})
	set, err := parseOnly(fs, args, "see recess eval -h", "see recess eval -h")
	if err != nil {
		return nil, err
	}

	opened, err := parseMoment("--opened-at", *openedAt)
	if err != nil {
		return nil, err
	}
	nowName, nowText := "--now", *nowFlag
	if !set["now"] {
		nowName, nowText = "RECESS_NOW", getenv("RECESS_NOW")
		if nowText == "" {
			return nil, &wait.FieldError{Field: "--now", Reason: "missing (or set RECESS_NOW)"}
		}
	}
	now, err := parseMoment(nowName, nowText)
	if err != nil {
		return nil, err
	}
	if now.Before(opened) {
		return nil, &wait.FieldError{Field: nowName, Reason: "is before --opened-at"}
	}
	n, err := strconv.Atoi(*replies)
	if err != nil || n < 0 || n > maxEvalReplies {
		return nil, &wait.FieldError{Field: "--replies", Reason: "must be a whole number from 0 to " + strconv.Itoa(maxEvalReplies), Err: err}
	}
	for _, s := range signals {
		if s != wait.AnySignal && !wait.ValidSignalName(s) {
			return nil, &wait.FieldError{Field: "--signal", Reason: strconv.Quote(s) + ` is not a signal name (1 to 64 of A-Z, a-z, 0-9, '.', '_', '-'; or "*")`}
		}
	}
	limit, err := wait.ParseDuration(*maxRecess)
	if err != nil {
		return nil, &wait.FieldError{Field: "--max-recess", Reason: "invalid " + err.Error(), Err: err}
	}

	doc := []byte(*triggerDoc)
	switch {
	case !set["trigger"]:
		return nil, &wait.FieldError{Field: "--trigger", Reason: "missing"}
	case *triggerDoc == "-":
		if doc, err = io.ReadAll(io.LimitReader(stdin, wait.MaxTriggerBytes+1)); err != nil {
			return nil, &wait.FieldError{Field: "--trigger", Reason: "reading stdin: " + err.Error(), Err: err}
		}
	}
	trig, err := wait.ParseTrigger(doc, wait.TriggerLimits{MaxRecess: limit, At: opened})
	if err != nil {
		return nil, err // a *wait.FieldError: "trigger.replies: must be at least 1"
	}

	obs := wait.Observed{OpenedAt: opened}
	if n > 0 {
		// Synthetic replies count for every filter: they sit under the
		// recess's own thread and the trigger is evaluated without "from".
		const root = "synthetic-thread"
		obs.ThreadRoots = []string{root}
		obs.Replies = make([]wait.Reply, n)
		for i := range obs.Replies {
			obs.Replies[i] = wait.Reply{ID: "synthetic-" + strconv.Itoa(i+1), Author: "someone", Root: root}
		}
		trig = withoutFrom(trig)
	}
	for _, s := range signals {
		obs.Signals = append(obs.Signals, wait.Signal{Name: s, At: opened})
	}

	ev := wait.Evaluate(trig, obs, now)
	out := &evalOutput{Fired: ev.Fired, Reason: ev.Reason, Cancelled: ev.Cancelled}
	if ev.Fired {
		out.FiredBy = ev.FiredBy
	}
	if ev.DueAt != nil {
		s := ev.DueAt.UTC().Format(time.RFC3339)
		out.DueAt = &s
	}
	return out, nil
}

// withoutFrom returns a copy of t with every "from" list left out.
func withoutFrom(t *wait.Trigger) *wait.Trigger {
	c := *t
	c.From = nil
	if len(t.Of) > 0 {
		c.Of = make([]*wait.Trigger, len(t.Of))
		for i, child := range t.Of {
			c.Of[i] = withoutFrom(child)
		}
	}
	return &c
}
