package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/githubfake"
)

// seed is the optional seed file (YAML; JSON works too).
type seed struct {
	Tokens []struct {
		Token string `yaml:"token"`
		Login string `yaml:"login"`
		Bot   bool   `yaml:"bot"`
	} `yaml:"tokens"`
	Repos []seedRepo `yaml:"repos"`
}

type seedRepo struct {
	Name         string            `yaml:"name"`
	Labels       []string          `yaml:"labels"`
	Associations map[string]string `yaml:"associations"`
	Workflows    []struct {
		File    string `yaml:"file"`
		RunName string `yaml:"run_name"`
		Inputs  map[string]struct {
			Required bool   `yaml:"required"`
			Default  string `yaml:"default"`
		} `yaml:"inputs"`
	} `yaml:"workflows"`
	Discussions []struct {
		Author string   `yaml:"author"`
		Title  string   `yaml:"title"`
		Body   string   `yaml:"body"`
		Labels []string `yaml:"labels"`
		// Recess puts the discussion in recess (after its comments).
		Recess   *seedRecess `yaml:"recess"`
		Comments []struct {
			Author  string `yaml:"author"`
			Body    string `yaml:"body"`
			Replies []struct {
				Author string `yaml:"author"`
				Body   string `yaml:"body"`
			} `yaml:"replies"`
		} `yaml:"comments"`
	} `yaml:"discussions"`
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

const usage = `usage: fakegithub [--addr HOST:PORT] [--seed FILE] [--token TOKEN=LOGIN]... [--repo OWNER/NAME]... [--server-url URL]

Serves the in-memory GitHub recess's tests use (internal/githubfake) on a
local address, so recess, its CLI and act runs can talk to it without a
token or a network. It prints, one per line and ready for an env file:

  GITHUB_API_URL=http://127.0.0.1:PORT/api/v3
  GITHUB_GRAPHQL_URL=http://127.0.0.1:PORT/api/graphql
  GITHUB_SERVER_URL=http://127.0.0.1:PORT

and serves until interrupted. Every GraphQL document is checked against
GitHub's schema; every request needs a token the fake knows.

Seed file (YAML, or JSON; an unknown key is an error):

  tokens:                         # who may call the fake, and as whom
    - token: ghs_local            # any string; the Authorization header
      login: github-actions       # the account it authenticates as
      bot: true                   # a bot: "github-actions" in GraphQL,
                                  # "github-actions[bot]" in REST/webhooks
  repos:
    - name: octo/hello            # OWNER/NAME
      labels: ["recess:waiting", "recess:escalated"]
      associations: {alice: OWNER, bob: CONTRIBUTOR}
                                  # authorAssociation per login (default NONE)
      workflows:                  # files workflow_dispatch may start
        - file: agent.yml
          run_name: "agent ${{ inputs.correlation_id }}"
                                  # ${{ inputs.X }} is filled from the dispatch
          inputs:
            correlation_id: {required: true}
            discussion_number: {required: true}
            resume_context: {default: ""}
      discussions:                # numbered 1, 2, ... in this order
        - author: alice
          title: "RFC: storage"
          body: "Which backend?"
          labels: []
          comments:
            - author: bob
              body: "Postgres"
              replies: [{author: carol, body: "agreed"}]
          recess:                 # optional: recess waits on this discussion
            trigger: {kind: elapsed, elapsed: P2D}
            question: "Postgres or S3?"   # the agent's question (optional)
            summary: "waiting for the storage owners"  # (optional)

A discussion with recess is played through recess's own engine as the
first bot token (recess's identity): intake dispatches the agent workflow
(which must be declared, with correlation_id and discussion_number), the
run claims and recesses with the trigger. So

  fakegithub --seed testdata/fakegithub/waiting.yml >fake.env &
  env $(cat fake.env) GITHUB_TOKEN=ghs_local recess status --repo octo/hello

shows the waiting discussion and when time alone fires it.

Flags:
`

// run parses args, seeds and starts the fake, prints its URLs to stdout and
// serves until ctx is done. --help prints the usage on stdout and returns
// nil; log receives what the seed set up.
func run(ctx context.Context, args []string, stdout, log io.Writer) error {
	fs := flag.NewFlagSet("fakegithub", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	seedFile := fs.String("seed", "", "YAML seed file: tokens, repos, labels, workflows, discussions (see above)")
	serverURL := fs.String("server-url", "", "web base for html_url fields (default: the fake's own URL)")
	var tokens, repos listFlag
	fs.Var(&tokens, "token", "TOKEN=LOGIN (repeatable); a login ending in [bot] is a bot")
	fs.Var(&repos, "repo", "OWNER/NAME to create (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return fmt.Errorf("%w (see fakegithub --help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (see fakegithub --help)", fs.Args())
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *serverURL == "" {
		*serverURL = "http://" + l.Addr().String()
	}
	g := githubfake.New(githubfake.WithServerURL(*serverURL))
	srv, err := g.StartListener(l)
	if err != nil {
		l.Close()
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
		if err := applySeed(ctx, g, *seedFile, log); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "GITHUB_API_URL=%s\n", strings.TrimSuffix(g.URL(), "/"))
	fmt.Fprintf(stdout, "GITHUB_GRAPHQL_URL=%s\n", g.GraphQLURL())
	fmt.Fprintf(stdout, "GITHUB_SERVER_URL=%s\n", srv.URL)
	<-ctx.Done()
	return nil
}

func applySeed(ctx context.Context, g *githubfake.GitHub, path string, log io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s seed
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	recessToken := ""
	for i, t := range s.Tokens {
		if t.Token == "" || t.Login == "" {
			return fmt.Errorf("seed %s: tokens[%d]: token and login are required", path, i)
		}
		kind := githubfake.KindUser
		if t.Bot {
			kind = githubfake.KindBot
			if recessToken == "" {
				recessToken = t.Token
			}
		}
		g.AddToken(t.Token, t.Login, kind)
	}
	var recesses []pendingRecess
	for i, r := range s.Repos {
		rs, err := seedRepoInto(g, r)
		if err != nil {
			return fmt.Errorf("seed %s: repos[%d]: %w", path, i, err)
		}
		for _, p := range rs {
			p.field = fmt.Sprintf("seed %s: repos[%d].discussions[%d].recess", path, i, p.index)
			recesses = append(recesses, p)
		}
	}
	// Recesses last: the engine reads the repositories as seeded.
	for _, p := range recesses {
		if recessToken == "" {
			return fmt.Errorf("%s: no bot token to be recess's identity (tokens[].bot: true)", p.field)
		}
		if err := playRecess(ctx, g, p.repo, p.number, recessToken, p.spec); err != nil {
			return fmt.Errorf("%s: %w", p.field, err)
		}
		fmt.Fprintf(log, "fakegithub: %s#%d is in recess (recess's token: %s)\n", p.repo, p.number, recessToken)
	}
	return nil
}

// pendingRecess is a seeded discussion to put in recess once everything
// is seeded.
type pendingRecess struct {
	repo   string
	number int
	index  int // in the seed's discussions
	field  string
	spec   *seedRecess
}

func seedRepoInto(g *githubfake.GitHub, r seedRepo) ([]pendingRecess, error) {
	owner, name, ok := strings.Cut(r.Name, "/")
	if !ok || owner == "" || name == "" {
		return nil, fmt.Errorf("name %q: want OWNER/NAME", r.Name)
	}
	g.AddRepo(owner, name)
	for _, l := range r.Labels {
		if _, err := g.AddLabel(r.Name, l); err != nil {
			return nil, err
		}
	}
	for login, assoc := range r.Associations {
		if err := g.SetAssociation(r.Name, login, assoc); err != nil {
			return nil, err
		}
	}
	for _, w := range r.Workflows {
		inputs := map[string]githubfake.InputSpec{}
		for k, v := range w.Inputs {
			inputs[k] = githubfake.InputSpec{Required: v.Required, Default: v.Default}
		}
		var runName func(map[string]string) string
		if w.RunName != "" {
			tmpl := w.RunName
			runName = func(in map[string]string) string { return renderRunName(tmpl, in) }
		}
		if err := g.AddWorkflow(r.Name, w.File, inputs, runName); err != nil {
			return nil, err
		}
	}
	var recesses []pendingRecess
	for i, d := range r.Discussions {
		disc, err := g.CreateDiscussion(r.Name, d.Author, d.Title, d.Body)
		if err != nil {
			return nil, err
		}
		for _, l := range d.Labels {
			if err := g.LabelDiscussion(disc.ID, l); err != nil {
				return nil, err
			}
		}
		for _, c := range d.Comments {
			top, err := g.Comment(disc.ID, c.Author, c.Body)
			if err != nil {
				return nil, err
			}
			for _, rep := range c.Replies {
				if _, err := g.Reply(top.ID, rep.Author, rep.Body); err != nil {
					return nil, err
				}
			}
		}
		if d.Recess != nil {
			recesses = append(recesses, pendingRecess{repo: r.Name, number: disc.Number, index: i, spec: d.Recess})
		}
	}
	return recesses, nil
}

// inputExpr matches ${{ inputs.X }} and ${{ github.event.inputs.X }}, the
// expressions a workflow's run-name uses for dispatch inputs.
var inputExpr = regexp.MustCompile(`\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z0-9_-]+)\s*\}\}`)

func renderRunName(tmpl string, inputs map[string]string) string {
	return inputExpr.ReplaceAllStringFunc(tmpl, func(m string) string {
		return inputs[inputExpr.FindStringSubmatch(m)[1]]
	})
}
