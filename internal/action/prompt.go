package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
	if code, ok := parseFlags(fs, args, promptUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "recess prompt: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *inline != "" && *file != "" {
		fmt.Fprintln(stderr, "recess prompt: --resume-context and --file: give one, not both")
		return 2
	}
	var data []byte
	var err error
	switch {
	case *inline != "":
		data = []byte(*inline)
	case *file != "" && *file != "-":
		data, err = readBounded(*file)
	default:
		data, err = io.ReadAll(io.LimitReader(stdin, maxResumeContext+1))
	}
	if err != nil {
		fmt.Fprintf(stderr, "recess prompt: %v\n", err)
		return 2
	}
	rc, err := decodeResumeContext(data)
	if err != nil {
		fmt.Fprintf(stderr, "recess prompt: %v\n", err)
		return 2
	}
	fmt.Fprint(stdout, resume.Prompt(*rc, nil))
	return 0
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxResumeContext+1))
}

// decodeResumeContext reads a resume_context strictly: one JSON object with
// only the known fields, each of its type, fired_by present. Errors name the
// field ("resume_context.history_since[2].created_at: ...").
func decodeResumeContext(data []byte) (*resume.Context, error) {
	const root = "resume_context"
	if len(data) > maxResumeContext {
		return nil, &inputError{Field: root, Reason: "longer than " + strconv.Itoa(maxResumeContext) + " bytes"}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &inputError{Field: root, Reason: "empty"}
	}
	if data[0] != '{' {
		return nil, &inputError{Field: root, Reason: "must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rc resume.Context
	if err := dec.Decode(&rc); err != nil {
		return nil, contextDecodeError(root, err)
	}
	if dec.More() {
		return nil, &inputError{Field: root, Reason: "trailing data after the object"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &inputError{Field: root, Reason: "trailing data after the object"}
	}
	if rc.FiredBy == "" {
		return nil, &inputError{Field: root + ".fired_by", Reason: "missing"}
	}
	if rc.Omitted < 0 {
		return nil, &inputError{Field: root + ".omitted", Reason: "negative"}
	}
	if rc.RecessCount < 0 {
		return nil, &inputError{Field: root + ".recess_count", Reason: "negative"}
	}
	if len(rc.Trigger) > 0 && string(rc.Trigger) != "null" {
		if _, err := wait.ParseTrigger(rc.Trigger, wait.TriggerLimits{}); err != nil {
			var fe *wait.FieldError
			if errors.As(err, &fe) {
				return nil, &inputError{Field: root + "." + fe.Field, Reason: fe.Reason}
			}
			return nil, &inputError{Field: root + ".trigger", Reason: err.Error()}
		}
	} else {
		rc.Trigger = nil
	}
	for i, e := range rc.HistorySince {
		if e.ID == "" {
			return nil, &inputError{Field: fmt.Sprintf("%s.history_since[%d].id", root, i), Reason: "missing"}
		}
	}
	return &rc, nil
}

// contextDecodeError names the field encoding/json stumbled on.
func contextDecodeError(root string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := root
		if te.Field != "" {
			field += "." + te.Field
		}
		return &inputError{Field: field, Reason: "must be " + jsonKind(te.Type.Kind().String()) + ", not " + te.Value}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &inputError{Field: root, Reason: fmt.Sprintf("not valid JSON at byte %d", se.Offset)}
	}
	if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &inputError{Field: root + "[" + clipRunes(msg, 66) + "]", Reason: "unknown field"}
	}
	if strings.Contains(err.Error(), "parsing time") {
		return &inputError{Field: root, Reason: "a time is not RFC 3339: " + clipRunes(err.Error(), 200)}
	}
	return &inputError{Field: root, Reason: clipRunes(err.Error(), 200)}
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "int", "int64":
		return "a whole number"
	case "bool":
		return "true or false"
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	}
	return "a " + k
}
