package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recess-action/recess/internal/githubfake"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

const fakeGitHubUsage = `usage: recess-lab fakegithub [--addr HOST:PORT] [--seed FILE] [--token TOKEN=LOGIN]... [--repo OWNER/NAME]...

Serves recess's in-memory GitHub (GraphQL and the REST calls recess makes) on
a local address, prints GITHUB_API_URL, GITHUB_GRAPHQL_URL and
GITHUB_SERVER_URL, and serves until interrupted. The seed file's format is
documented in testdata/act/README.md.

`

// runFakeGitHub parses args, seeds and starts the fake, prints its URLs to out and
// serves until ctx is done.
func runFakeGitHub(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("recess-lab fakegithub", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	seedFile := fs.String("seed", "", "YAML seed file: tokens, repos, labels, workflows, discussions")
	serverURL := fs.String("server-url", "", "web base for html_url fields (default: the fake's own URL)")
	var tokens, repos listFlag
	fs.Var(&tokens, "token", "TOKEN=LOGIN (repeatable); a login ending in [bot] is a bot")
	fs.Var(&repos, "repo", "OWNER/NAME to create (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), fakeGitHubUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	g, err := githubfake.Listen(*addr, *serverURL)
	if err != nil {
		return err
	}
	defer g.Close()
	for _, t := range tokens {
		tok, login, ok := strings.Cut(t, "=")
		if !ok || tok == "" || login == "" {
			return fmt.Errorf("--token %q: want TOKEN=LOGIN", t)
		}
		g.AddToken(tok, login, githubfake.KindUser)
	}
	for _, r := range repos {
		owner, name, ok := strings.Cut(r, "/")
		if !ok || owner == "" || name == "" {
			return fmt.Errorf("--repo %q: want OWNER/NAME", r)
		}
		g.AddRepo(owner, name)
	}
	if *seedFile != "" {
		if err := applySeed(ctx, g, *seedFile); err != nil {
			return err
		}
	}
	env := g.Env()
	for _, k := range []string{"GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "GITHUB_SERVER_URL"} {
		fmt.Fprintf(out, "%s=%s\n", k, env[k])
	}
	<-ctx.Done()
	return nil
}

func applySeed(ctx context.Context, g *githubfake.GitHub, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s, err := githubfake.ParseSeed(data)
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	if err := g.ApplySeed(s); err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	// Recesses last, through recess's engine, as recess's identity: the
	// first bot token.
	token := ""
	for _, t := range s.Tokens {
		if t.Bot && token == "" {
			token = t.Token
		}
	}
	for i, r := range s.Repos {
		for j, d := range r.Discussions {
			if d.Recess == nil {
				continue
			}
			field := fmt.Sprintf("seed %s: repos[%d].discussions[%d].recess", path, i, j)
			if token == "" {
				return fmt.Errorf("%s: no bot token to be recess's identity (tokens[].bot: true)", field)
			}
			spec := seedRecess(*d.Recess)
			if err := playRecess(ctx, g, r.Name, j+1, token, &spec); err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
		}
	}
	return nil
}
