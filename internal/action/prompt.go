package action

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// maxResumeContext bounds a resume_context read from outside: GitHub's
// inputs limit is far below it.
const maxResumeContext = 1 << 20

const promptUsage = `usage: recess prompt [--resume-context JSON | --file PATH]
(with neither, the resume_context is read from stdin)
`

// runPrompt is `recess prompt`: render a resume_context (the agent
// workflow's input) as the markdown the resumed agent reads.
func runPrompt(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess prompt", flag.ContinueOnError)
	inline := fs.String("resume-context", "", "the resume_context JSON")
	file := fs.String("file", "", "read the resume_context from this file (- for stdin)")
	refuse := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "recess prompt: "+format+"\n", args...)
		return ExitRefused
	}
	if code, ok := ParseFlags(fs, args, promptUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return refuse("unexpected argument %q", fs.Arg(0))
	}
	if *inline != "" && *file != "" {
		return refuse("--resume-context and --file: give one, not both")
	}
	var data []byte
	var err error
	switch {
	case *inline != "":
		data = []byte(*inline)
	case *file != "" && *file != "-":
		data, err = readBounded(*file, maxResumeContext)
	default:
		data, err = io.ReadAll(io.LimitReader(stdin, maxResumeContext+1))
	}
	if err != nil {
		return refuse("%v", err)
	}
	rc, err := DecodeResumeContext(data)
	if err != nil {
		return refuse("%v", err)
	}
	fmt.Fprint(stdout, resume.Prompt(*rc, nil))
	return 0
}

// DecodeResumeContext reads a resume_context strictly: one JSON object with
// only the known fields, each of its type, fired_by present. Errors name the
// field ("resume_context.history_since[2].created_at: ...").
func DecodeResumeContext(data []byte) (*resume.Context, error) {
	const root = "resume_context"
	if len(data) > maxResumeContext {
		return nil, &wait.FieldError{Field: root, Reason: "longer than " + strconv.Itoa(maxResumeContext) + " bytes"}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &wait.FieldError{Field: root, Reason: "empty"}
	}
	var rc resume.Context
	if err := wait.DecodeJSON(data, root, &rc, wait.JSONLimits{}); err != nil {
		return nil, err
	}
	if rc.FiredBy == "" {
		return nil, &wait.FieldError{Field: root + ".fired_by", Reason: "missing"}
	}
	if rc.Omitted < 0 {
		return nil, &wait.FieldError{Field: root + ".omitted", Reason: "negative"}
	}
	if rc.RecessCount < 0 {
		return nil, &wait.FieldError{Field: root + ".recess_count", Reason: "negative"}
	}
	if len(rc.Trigger) > 0 && string(rc.Trigger) != "null" {
		if _, err := wait.ParseTrigger(rc.Trigger, wait.TriggerLimits{}); err != nil {
			var fe *wait.FieldError
			if errors.As(err, &fe) {
				return nil, &wait.FieldError{Field: root + "." + fe.Field, Reason: fe.Reason}
			}
			return nil, &wait.FieldError{Field: root + ".trigger", Reason: err.Error()}
		}
	} else {
		rc.Trigger = nil
	}
	for i, e := range rc.HistorySince {
		if e.ID == "" {
			return nil, &wait.FieldError{Field: fmt.Sprintf("%s.history_since[%d].id", root, i), Reason: "missing"}
		}
	}
	return &rc, nil
}
