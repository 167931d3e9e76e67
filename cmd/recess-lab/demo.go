package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/recess-action/recess/internal/action"
)

//go:embed demo.yaml
var demoScenario []byte

const demoUsage = `usage: recess-lab demo [-v]

Tells the built-in story (a discussion, the agent's question, people
replying, the resume and the answer) against the embedded fake GitHub: no
token, no network. -v adds each recess run's log.
`

const scenarioUsage = `usage: recess-lab scenario [-v] FILE.yaml...

Runs scenario files against the embedded fake GitHub (no token, no network)
and exits 1 when one fails. -v adds each recess run's log. A scenario is
YAML; an unknown key or a value of the wrong kind is refused with its path
and line.

Top level:
  name: TEXT            a title, printed first
  start: TIME           the clock at the first step (RFC 3339;
                        default 2026-11-21T10:00:00Z)
  inputs: {NAME: TEXT}  action inputs for every run (state-store,
                        max-attempts, escalate-to, categories, wake-on, ...;
                        not github-token, command, verdict, verdict-file,
                        correlation-id, discussion, dry-run, config)
  maintainers: [LOGIN]  people with write access (MEMBER); everyone else
                        is a CONTRIBUTOR
  steps: [STEP]         what happens, in order

Each step does exactly one thing:
  discussion: {author, title, body, number}
                        opens the discussion (number: a seeded one);
                        recess gets its event
  comment: {author, body, label, reply_to, lost}
                        comments; label names the comment for reply_to,
                        reply_to answers a labelled comment in its thread,
                        lost: true drops the event (only a sweep sees it)
  agent: {verdict, replies, trigger, summary, fail, refused, lead, run,
          stale, label}
                        the newest dispatched agent run (run: N, the Nth,
                        delivered again) claims, then answers: verdict
                        (recessed, adjourned, ...) with replies [{body,
                        reply_to}], trigger (a trigger document) and
                        summary; or fail: CONCLUSION (failure, cancelled)
                        for a run that ends without one; or lead: true,
                        the workflow's own lead (recess-lab act only).
                        refused: FIELD expects recess to refuse the verdict
                        naming FIELD; any other refusal fails. stale: true
                        expects the claim to find the run stale. label
                        names recess's first reply for reply_to
  wait: DURATION        moves the clock (ISO 8601: PT1H, P2D)
  sweep: true           runs the scheduled sweep
  close: true           closes the discussion; recess gets its event
  expect: {dispatches, open_rfcs, fired_by, history, status, comment, eyes,
           labels, log}
                        checks: agent runs dispatched so far; open recesses
                        the last run reported; the last dispatch's fired_by
                        and its history authors in order ("bob > question":
                        bob's reply to the comment labelled question); text
                        the status comment's first line contains; text some
                        comment by recess contains; recess's EYES on the
                        discussion; its labels, all of them; texts the last
                        step's log contains

Examples: testdata/scenarios/*.yaml, and testdata/act/story.yaml (recess-lab act).

Flags:
`

// runScenarios runs scenario files, or for command demo the built-in story
// (then printing what the resumed agent was handed), and reports each; exit
// 1 when one fails.
func runScenarios(ctx context.Context, command string, args []string, stdout, stderr io.Writer) int {
	demo := command == "demo"
	fs := flag.NewFlagSet("recess-lab "+command, flag.ContinueOnError)
	verbose := fs.Bool("v", false, "also print every recess run's log")
	usage := scenarioUsage
	if demo {
		usage = demoUsage
	}
	if code, ok := action.ParseFlags(fs, args, usage, stdout, stderr); !ok {
		return code
	}
	switch {
	case demo && fs.NArg() > 0:
		fmt.Fprintf(stderr, "recess-lab demo: unexpected argument %q\n", fs.Arg(0))
		return action.ExitRefused
	case !demo && fs.NArg() == 0:
		fmt.Fprintf(stderr, "recess-lab scenario: no scenario file given\n%s", scenarioUsage)
		return action.ExitRefused
	}
	files, read := fs.Args(), os.ReadFile
	if demo {
		files, read = []string{"demo.yaml"}, func(string) ([]byte, error) { return demoScenario, nil }
	}
	failed := 0
	for _, path := range files {
		b, err := read(path)
		var s *scenario
		if err == nil {
			s, err = parseScenario(b)
		}
		if err != nil {
			fmt.Fprintf(stderr, "recess-lab %s: %s: %v\n", command, path, err)
			return action.ExitRefused
		}
		st, err := runScenario(ctx, s, stdout, *verbose)
		switch {
		case err != nil && demo:
			fmt.Fprintf(stderr, "recess-lab demo: %v\n", err)
			return 1
		case err != nil:
			fmt.Fprintf(stdout, "FAIL %s: %v\n\n", path, err)
			failed++
		case demo:
			// Show what the resumed agent run was handed: the point of recess.
			runs, _ := st.runs()
			for i := len(runs) - 1; i >= 0; i-- {
				var b bytes.Buffer
				if rc := runs[i].Inputs["resume_context"]; rc != "" && json.Indent(&b, []byte(rc), "", "  ") == nil {
					fmt.Fprintf(stdout, "\nThe resume_context of agent run %d:\n%s\n", runs[i].ID, b.Bytes())
					break
				}
			}
			fmt.Fprintf(stdout, "\n%d GitHub API requests in all, against the embedded fake GitHub.\n", len(st.gh.Requests()))
		default:
			fmt.Fprintf(stdout, "ok   %s\n\n", path)
		}
	}
	return min(failed, 1)
}
