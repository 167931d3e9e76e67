package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
)

const fakeGitHubUsage = `usage: recess-lab fakegithub [--addr HOST:PORT] [--seed FILE] [--token TOKEN=LOGIN]... [--repo OWNER/NAME]...

Serves recess's in-memory GitHub (GraphQL and the REST calls recess makes) on
a local address, prints GITHUB_API_URL, GITHUB_GRAPHQL_URL and
GITHUB_SERVER_URL, and serves until interrupted. The seed file's format is
documented in testdata/act/README.md.

Flags:
`

// runFakeGitHub parses args, seeds and starts the fake, prints its URLs to
// stdout and serves until ctx is done.
func runFakeGitHub(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess-lab fakegithub", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	seedFile := fs.String("seed", "", "YAML seed file: tokens, repos, labels, workflows, discussions")
	serverURL := fs.String("server-url", "", "web base for html_url fields (default: the fake's own URL)")
	var tokens, repos []string
	fs.Func("token", "TOKEN=LOGIN (repeatable); a login ending in [bot] is a bot", func(v string) error { tokens = append(tokens, v); return nil })
	fs.Func("repo", "OWNER/NAME to create (repeatable)", func(v string) error { repos = append(repos, v); return nil })
	if code, ok := action.ParseFlags(fs, args, fakeGitHubUsage, stdout, stderr); !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "recess-lab fakegithub:", err)
		return 1
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	g, err := githubfake.Listen(*addr, *serverURL)
	if err != nil {
		return fail(err)
	}
	defer g.Close()
	for _, t := range tokens {
		tok, login, ok := strings.Cut(t, "=")
		if !ok || tok == "" || login == "" {
			return fail(fmt.Errorf("--token %q: want TOKEN=LOGIN", t))
		}
		g.AddToken(tok, login, githubfake.KindUser)
	}
	for _, r := range repos {
		owner, name, ok := strings.Cut(r, "/")
		if !ok || owner == "" || name == "" {
			return fail(fmt.Errorf("--repo %q: want OWNER/NAME", r))
		}
		g.AddRepo(owner, name)
	}
	if *seedFile != "" {
		if err := applySeed(ctx, g, *seedFile, nil); err != nil {
			return fail(err)
		}
	}
	env := g.Env()
	for _, k := range []string{"GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "GITHUB_SERVER_URL"} {
		fmt.Fprintf(stdout, "%s=%s\n", k, env[k])
	}
	<-ctx.Done()
	return 0
}

// applySeed gives g the state of the seed file at path, changed first by
// adjust when it is not nil; its recesses are played through recess.
func applySeed(ctx context.Context, g *githubfake.GitHub, path string, adjust func(*githubfake.Seed)) error {
	return g.ApplySeedFile(path, adjust, func(repo string, number int, token string, r *githubfake.SeedRecess) error {
		return playRecess(ctx, g, repo, number, token, r)
	})
}

// playRecess puts discussion number of repo in recess, as if the agent had
// asked its question and recessed: a seed's way to start from a waiting
// discussion. It is played through recess's action against the fake
// (intake, the agent run's claim, a recessed verdict) as the account of
// token, so the status comment and the record are exactly what recess
// writes. The repository must declare the agent workflow.
func playRecess(ctx context.Context, g *githubfake.GitHub, repo string, number int, token string, r *githubfake.SeedRecess) error {
	if r.Trigger == nil {
		return errors.New("trigger: missing")
	}
	a := &agentStep{Verdict: resume.VerdictRecessed, Trigger: r.Trigger, Summary: r.Summary}
	if r.Question != "" {
		a.Replies = []agentReply{{Body: r.Question}}
	}
	st, done, err := inprocStory(g, &inproc{token: token, serverURL: g.Env()["GITHUB_SERVER_URL"]}, repo, "", resume.ClockFunc(time.Now), io.Discard, false)
	if err != nil {
		return err
	}
	defer done()
	// Refuse a verdict recess would refuse before anything is written; the
	// error names the field (trigger.kind, verdict.replies[0].body, ...).
	doc, err := st.verdictDoc(a, resume.NewCorrelationID(), number)
	if err != nil {
		return err
	}
	if _, err := (&resume.Engine{Clock: st.clock}).ParseVerdict(doc); err != nil {
		return err
	}
	if err := st.step(ctx, step{Discussion: &discussionStep{Number: number}}); err != nil {
		return err
	}
	return st.step(ctx, step{Agent: a})
}
