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
		Author   string   `yaml:"author"`
		Title    string   `yaml:"title"`
		Body     string   `yaml:"body"`
		Labels   []string `yaml:"labels"`
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

// run parses args, seeds and starts the fake, prints its URLs to out and
// serves until ctx is done.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fakegithub", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	seedFile := fs.String("seed", "", "YAML seed file: tokens, repos, labels, workflows, discussions")
	serverURL := fs.String("server-url", "", "web base for html_url fields (default: the fake's own URL)")
	var tokens, repos listFlag
	fs.Var(&tokens, "token", "TOKEN=LOGIN (repeatable); a login ending in [bot] is a bot")
	fs.Var(&repos, "repo", "OWNER/NAME to create (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
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
		if err := applySeed(g, *seedFile); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "GITHUB_API_URL=%s\n", strings.TrimSuffix(g.URL(), "/"))
	fmt.Fprintf(out, "GITHUB_GRAPHQL_URL=%s\n", g.GraphQLURL())
	fmt.Fprintf(out, "GITHUB_SERVER_URL=%s\n", srv.URL)
	<-ctx.Done()
	return nil
}

func applySeed(g *githubfake.GitHub, path string) error {
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
	for i, t := range s.Tokens {
		if t.Token == "" || t.Login == "" {
			return fmt.Errorf("seed %s: tokens[%d]: token and login are required", path, i)
		}
		kind := githubfake.KindUser
		if t.Bot {
			kind = githubfake.KindBot
		}
		g.AddToken(t.Token, t.Login, kind)
	}
	for i, r := range s.Repos {
		if err := seedRepoInto(g, r); err != nil {
			return fmt.Errorf("seed %s: repos[%d]: %w", path, i, err)
		}
	}
	return nil
}

func seedRepoInto(g *githubfake.GitHub, r seedRepo) error {
	owner, name, ok := strings.Cut(r.Name, "/")
	if !ok || owner == "" || name == "" {
		return fmt.Errorf("name %q: want OWNER/NAME", r.Name)
	}
	g.AddRepo(owner, name)
	for _, l := range r.Labels {
		if _, err := g.AddLabel(r.Name, l); err != nil {
			return err
		}
	}
	for login, assoc := range r.Associations {
		if err := g.SetAssociation(r.Name, login, assoc); err != nil {
			return err
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
			return err
		}
	}
	for _, d := range r.Discussions {
		disc, err := g.CreateDiscussion(r.Name, d.Author, d.Title, d.Body)
		if err != nil {
			return err
		}
		for _, l := range d.Labels {
			if err := g.LabelDiscussion(disc.ID, l); err != nil {
				return err
			}
		}
		for _, c := range d.Comments {
			top, err := g.Comment(disc.ID, c.Author, c.Body)
			if err != nil {
				return err
			}
			for _, rep := range c.Replies {
				if _, err := g.Reply(top.ID, rep.Author, rep.Body); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// inputExpr matches ${{ inputs.X }} and ${{ github.event.inputs.X }}, the
// expressions a workflow's run-name uses for dispatch inputs.
var inputExpr = regexp.MustCompile(`\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z0-9_-]+)\s*\}\}`)

func renderRunName(tmpl string, inputs map[string]string) string {
	return inputExpr.ReplaceAllStringFunc(tmpl, func(m string) string {
		return inputs[inputExpr.FindStringSubmatch(m)[1]]
	})
}
