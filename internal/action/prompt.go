package action

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/recess-action/recess/resume"
)

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
