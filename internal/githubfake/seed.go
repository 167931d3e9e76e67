package githubfake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Seed is a starting state for the fake, read from YAML (JSON works too) by
// ApplySeed: `fakegithub --seed FILE` and `recess act` use it. Every key is
// documented in testdata/act/README.md; unknown keys are errors.
//
//	tokens:                    # who may call the fake, and as whom
//	  - {token: ghs_x, login: github-actions, bot: true}
//	repos:
//	  - name: octo/hello       # OWNER/NAME
//	    labels: [recess:waiting]
//	    associations: {alice: OWNER}   # authorAssociation per login
//	    permissions: {mia: read}       # repository permission (role name) per login
//	    categories: [Ideas]            # discussion categories besides General
//	    workflows:             # files workflow_dispatch may start
//	      - file: agent.yml
//	        run_name: "agent ${{ inputs.correlation_id }}"
//	        inputs: {correlation_id: {required: true}, resume_context: {default: ""}}
//	    discussions:           # numbered 1, 2, ... in order
//	      - {author: alice, title: RFC, body: "...", category: Ideas, labels: [], comments: [{author: bob, body: "...", replies: [...]}]}
//	    issues:                # numbered after the discussions, in order
//	      - {author: alice, title: Crash, body: "...", pull_request: false, labels: [], comments: [{author: bob, body: "..."}], state: open, locked: false}
type Seed struct {
	Tokens []SeedToken `yaml:"tokens"`
	Repos  []SeedRepo  `yaml:"repos"`
}

// SeedToken is one API token and the account it authenticates as.
type SeedToken struct {
	Token string `yaml:"token"`
	Login string `yaml:"login"`
	// Bot makes the account a bot (GraphQL login "github-actions" is
	// "github-actions[bot]" in REST and webhooks).
	Bot bool `yaml:"bot"`
}

// SeedRepo is one repository with its labels, workflows and discussions.
type SeedRepo struct {
	Name         string            `yaml:"name"`
	Labels       []string          `yaml:"labels"`
	Associations map[string]string `yaml:"associations"`
	// Permissions are repository permissions by login (admin, maintain,
	// write, triage, read, none); without one a login's association
	// stands for it (see SetPermission).
	Permissions map[string]string `yaml:"permissions"`
	// Categories are discussion categories besides General.
	Categories  []string         `yaml:"categories"`
	Workflows   []SeedWorkflow   `yaml:"workflows"`
	Discussions []SeedDiscussion `yaml:"discussions"`
	// Issues are issues and pull requests, numbered after the
	// discussions.
	Issues []SeedIssue `yaml:"issues"`
}

// SeedIssue is an issue, or a pull request's conversation, with its flat
// comments.
type SeedIssue struct {
	Author      string      `yaml:"author"`
	Title       string      `yaml:"title"`
	Body        string      `yaml:"body"`
	PullRequest bool        `yaml:"pull_request"`
	Labels      []string    `yaml:"labels"`
	Comments    []SeedReply `yaml:"comments"`
	// State is open (the default), closed, or merged (a pull request).
	State  string `yaml:"state"`
	Locked bool   `yaml:"locked"`
}

// SeedWorkflow declares a workflow file that can be dispatched.
type SeedWorkflow struct {
	File string `yaml:"file"`
	// RunName is the workflow's run-name; ${{ inputs.X }} and
	// ${{ github.event.inputs.X }} are replaced by the dispatch's inputs.
	RunName string                   `yaml:"run_name"`
	Inputs  map[string]SeedInputSpec `yaml:"inputs"`
	// State is the workflow's state (active when empty; disabled_manually,
	// disabled_inactivity, ...: a sweep workflow recess switches).
	State string `yaml:"state"`
}

// SeedInputSpec is one workflow_dispatch input.
type SeedInputSpec struct {
	Required bool   `yaml:"required"`
	Default  string `yaml:"default"`
}

// SeedDiscussion is a discussion with its comments.
type SeedDiscussion struct {
	Author string `yaml:"author"`
	Title  string `yaml:"title"`
	Body   string `yaml:"body"`
	// Category is the discussion's category by name or slug (default
	// General).
	Category string        `yaml:"category"`
	Labels   []string      `yaml:"labels"`
	Comments []SeedComment `yaml:"comments"`
	// Recess puts the discussion in recess after its comments, as if the
	// agent had asked and recessed. The fake cannot run recess's engine:
	// ApplySeed leaves it to its caller (recess-lab fakegithub plays it through
	// the action).
	Recess *SeedRecess `yaml:"recess"`
}

// SeedRecess is a recess a seeded discussion starts in.
type SeedRecess struct {
	// Trigger is the trigger document the agent recessed with.
	Trigger map[string]any `yaml:"trigger"`
	// Question is the reply recess posts for the agent (optional).
	Question string `yaml:"question"`
	// Summary is why it waits, for people (optional).
	Summary string `yaml:"summary"`
}

// SeedComment is a top-level comment with its replies.
type SeedComment struct {
	Author  string      `yaml:"author"`
	Body    string      `yaml:"body"`
	Replies []SeedReply `yaml:"replies"`
}

// SeedReply is a reply under a top-level comment, or an issue comment.
type SeedReply struct {
	Author string `yaml:"author"`
	Body   string `yaml:"body"`
}

// ParseSeed reads a seed strictly: an unknown key is an error that names it.
func ParseSeed(data []byte) (*Seed, error) {
	var s Seed
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &s, nil
}

// PlayRecess puts discussion number of repo in recess as the account of
// token: what the fake cannot do itself (it runs no recess engine).
type PlayRecess func(repo string, number int, token string, r *SeedRecess) error

// ApplySeedFile gives g the state of the seed file at path, changed first
// by adjust when it is not nil, then hands each seeded recess to play, as
// the seed's first bot token (recess's identity). Errors name the file and
// the field.
func (g *GitHub) ApplySeedFile(path string, adjust func(*Seed), play PlayRecess) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s, err := ParseSeed(data)
	if err == nil && adjust != nil {
		adjust(s)
	}
	if err == nil {
		err = g.ApplySeed(s)
	}
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
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
			if err := play(r.Name, j+1, token, d.Recess); err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
		}
	}
	return nil
}

// ApplySeed creates what s describes. Errors name the seed's field
// ("repos[0].workflows[1]: ...").
func (g *GitHub) ApplySeed(s *Seed) error {
	for i, t := range s.Tokens {
		if t.Token == "" || t.Login == "" {
			return fmt.Errorf("tokens[%d]: token and login are required", i)
		}
		kind := KindUser
		if t.Bot {
			kind = KindBot
		}
		g.AddToken(t.Token, t.Login, kind)
	}
	for i, r := range s.Repos {
		if err := g.seedRepo(r); err != nil {
			return fmt.Errorf("repos[%d]: %w", i, err)
		}
	}
	return nil
}

func (g *GitHub) seedRepo(r SeedRepo) error {
	owner, name, ok := strings.Cut(r.Name, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("name %q: want OWNER/NAME", r.Name)
	}
	g.AddRepo(owner, name)
	for i, l := range r.Labels {
		if _, err := g.AddLabel(r.Name, l); err != nil {
			return fmt.Errorf("labels[%d]: %w", i, err)
		}
	}
	for login, assoc := range r.Associations {
		if err := g.SetAssociation(r.Name, login, assoc); err != nil {
			return fmt.Errorf("associations[%s]: %w", login, err)
		}
	}
	for login, role := range r.Permissions {
		if err := g.SetPermission(r.Name, login, role); err != nil {
			return fmt.Errorf("permissions[%s]: %w", login, err)
		}
	}
	for i, c := range r.Categories {
		if err := g.AddCategory(r.Name, c); err != nil {
			return fmt.Errorf("categories[%d]: %w", i, err)
		}
	}
	for i, w := range r.Workflows {
		if w.File == "" {
			return fmt.Errorf("workflows[%d].file: missing", i)
		}
		inputs := map[string]InputSpec{}
		for k, v := range w.Inputs {
			inputs[k] = InputSpec{Required: v.Required, Default: v.Default}
		}
		var runName func(map[string]string) string
		if w.RunName != "" {
			tmpl := w.RunName
			runName = func(in map[string]string) string { return RenderRunName(tmpl, in) }
		}
		if err := g.AddWorkflow(r.Name, w.File, inputs, runName); err != nil {
			return fmt.Errorf("workflows[%d]: %w", i, err)
		}
		if w.State != "" {
			if err := g.SetWorkflowState(r.Name, w.File, w.State); err != nil {
				return fmt.Errorf("workflows[%d].state: %w", i, err)
			}
		}
	}
	for i, d := range r.Discussions {
		disc, err := g.CreateDiscussion(r.Name, d.Author, d.Title, d.Body)
		if err != nil {
			return fmt.Errorf("discussions[%d]: %w", i, err)
		}
		if d.Category != "" {
			if err := g.MoveDiscussion(disc.ID, d.Category); err != nil {
				return fmt.Errorf("discussions[%d].category: %w", i, err)
			}
		}
		for j, l := range d.Labels {
			if err := g.LabelDiscussion(disc.ID, l); err != nil {
				return fmt.Errorf("discussions[%d].labels[%d]: %w", i, j, err)
			}
		}
		for j, c := range d.Comments {
			top, err := g.Comment(disc.ID, c.Author, c.Body)
			if err != nil {
				return fmt.Errorf("discussions[%d].comments[%d]: %w", i, j, err)
			}
			for k, rep := range c.Replies {
				if _, err := g.Reply(top.ID, rep.Author, rep.Body); err != nil {
					return fmt.Errorf("discussions[%d].comments[%d].replies[%d]: %w", i, j, k, err)
				}
			}
		}
	}
	for i, is := range r.Issues {
		if field, err := g.seedIssue(r.Name, is); err != nil {
			return fmt.Errorf("issues[%d]%s: %w", i, field, err)
		}
	}
	return nil
}

// seedIssue opens an issue or pull request with its comments, then
// closes, merges and locks it as told. A failure names the field under the
// issue that caused it.
func (g *GitHub) seedIssue(repoName string, is SeedIssue) (field string, err error) {
	open := g.CreateIssue
	if is.PullRequest {
		open = g.CreatePullRequest
	}
	d, err := open(repoName, is.Author, is.Title, is.Body)
	if err != nil {
		return "", err
	}
	for j, l := range is.Labels {
		if err := g.LabelDiscussion(d.ID, l); err != nil {
			return fmt.Sprintf(".labels[%d]", j), err
		}
	}
	for j, c := range is.Comments {
		if _, err := g.Comment(d.ID, c.Author, c.Body); err != nil {
			return fmt.Sprintf(".comments[%d]", j), err
		}
	}
	switch {
	case is.State == "" || is.State == "open":
	case is.State == "closed":
		err = g.CloseIssue(d.ID, "")
	case is.State == "merged" && is.PullRequest:
		err = g.MergePullRequest(d.ID)
	default:
		err = fmt.Errorf("%w: %q (open, closed, or merged for a pull request)", ErrInvalid, is.State)
	}
	if err != nil {
		return ".state", err
	}
	return ".locked", g.LockIssue(d.ID, is.Locked)
}

// inputExpr matches ${{ inputs.X }} and ${{ github.event.inputs.X }}, the
// expressions a workflow's run-name uses for dispatch inputs.
var inputExpr = regexp.MustCompile(`\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z0-9_-]+)\s*\}\}`)

// RenderRunName fills a run-name template with a dispatch's inputs.
func RenderRunName(tmpl string, inputs map[string]string) string {
	return inputExpr.ReplaceAllStringFunc(tmpl, func(m string) string {
		return inputs[inputExpr.FindStringSubmatch(m)[1]]
	})
}

// WorkflowFromFile declares the workflow file data, named file in
// .github/workflows, as GitHub reads it to dispatch it: its run-name and
// its workflow_dispatch inputs.
func WorkflowFromFile(file string, data []byte) (SeedWorkflow, error) {
	w := SeedWorkflow{File: file, Inputs: map[string]SeedInputSpec{}}
	var wf struct {
		RunName string    `yaml:"run-name"`
		On      yaml.Node `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return w, err
	}
	w.RunName = wf.RunName
	var on map[string]yaml.Node
	_ = wf.On.Decode(&on) // on: NAME or on: [NAMES] has no inputs
	dispatch, ok := on["workflow_dispatch"]
	if !ok {
		return w, errors.New("on: no workflow_dispatch with inputs: recess starts the agent workflow by dispatching it")
	}
	var d struct {
		Inputs map[string]struct {
			Required string `yaml:"required"`
			Default  string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := dispatch.Decode(&d); err != nil {
		return w, fmt.Errorf("on.workflow_dispatch: %w", err)
	}
	for name, in := range d.Inputs {
		spec := SeedInputSpec{Default: in.Default}
		if in.Required != "" {
			b, err := strconv.ParseBool(in.Required)
			if err != nil {
				return w, fmt.Errorf("on.workflow_dispatch.inputs.%s.required: %q is not true or false", name, in.Required)
			}
			spec.Required = b
		}
		w.Inputs[name] = spec
	}
	return w, nil
}
