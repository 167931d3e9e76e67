package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/action"
	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
)

// What recess-lab act runs, and the copies it runs: a repository's front
// door and agent workflow, each less what act cannot parse and, when no
// model key is given, with the model step of the lead replaced by the
// scripted lead.

// modelActions are the agent actions whose step recess-lab act replaces by
// the scripted lead when their key is not in the environment.
var modelActions = map[string]string{
	"anthropics/claude-code-action":        "ANTHROPIC_API_KEY",
	"google-github-actions/run-gemini-cli": "GEMINI_API_KEY",
}

// servedActions are the actions besides recess's own (served from the
// checkout) that recess-lab act serves itself (the artifact actions, by
// stand-ins) or act skips (actions/checkout of the repository under test).
var servedActions = map[string]bool{"actions/upload-artifact": true, "actions/download-artifact": true, "actions/checkout": true}

// actTarget is what one recess-lab act run works on.
type actTarget struct {
	Repo      string // act's working directory: the repository whose workflows run
	FrontDoor string // the front door's file
	// Agent is the agent workflow's file; Setup.Workflow the name the
	// front door dispatches, the name the fake GitHub knows it by.
	Agent string
	// Sweep is the sweep's own file when the front door keeps it apart
	// (sweep-only-while-waiting), next to the front door; "" when the
	// front door sweeps itself.
	Sweep string
	// Setup is the front door's setup the story follows.
	Setup action.LabSetup
}

// resolveActTarget finds the front door and the agent workflow. target is
// a repository (its .github/workflows), a directory of workflow files, or
// the front door's file; empty means the repository around cwd. frontDoor
// names the front door inside the directory (default recess.yml); agent,
// when set, is the agent workflow's file, else the front door's `workflow`
// input (default agent.yml) next to it.
func resolveActTarget(cwd, target, frontDoor, agent string) (actTarget, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(cwd, p)
	}
	var t actTarget
	dir := ""
	if target == "" {
		repo, ok := findUp(cwd, hasWorkflows)
		if !ok {
			return t, fmt.Errorf("no .github/workflows in %s or above it: name your repository or workflow directory", cwd)
		}
		t.Repo, dir = repo, filepath.Join(repo, filepath.FromSlash(workflows.Dir))
	} else {
		p := abs(target)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return t, fmt.Errorf("workflows %s: %w", target, err)
		case !fi.IsDir() && frontDoor != "":
			return t, fmt.Errorf("--front-door %s: the front door is already the file %s", frontDoor, target)
		case !fi.IsDir():
			dir, frontDoor = filepath.Dir(p), filepath.Base(p)
		case hasWorkflows(p):
			t.Repo, dir = p, filepath.Join(p, filepath.FromSlash(workflows.Dir))
		default:
			dir = p
		}
		if t.Repo == "" {
			repo, _ := findUp(dir, hasWorkflows)
			t.Repo = cmp.Or(repo, dir)
		}
	}
	t.FrontDoor = filepath.Join(dir, cmp.Or(frontDoor, "recess.yml"))
	data, err := os.ReadFile(t.FrontDoor)
	if err != nil {
		return t, fmt.Errorf("the front door: %w", err)
	}
	if t.Setup, err = frontDoorSetup(t.FrontDoor, data, t.Repo); err != nil {
		return t, fmt.Errorf("%s: %w", t.FrontDoor, err)
	}
	t.Agent = filepath.Join(dir, t.Setup.Workflow)
	if agent != "" {
		t.Agent = abs(agent)
	}
	if !fileExists(t.Agent) {
		return t, fmt.Errorf("the agent workflow %s does not exist (the front door dispatches %s)", t.Agent, t.Setup.Workflow)
	}
	if t.Setup.SweepWorkflow != "" {
		t.Sweep = filepath.Join(dir, t.Setup.SweepWorkflow)
		if !fileExists(t.Sweep) {
			return t, fmt.Errorf("the sweep workflow %s does not exist (the front door keeps its sweep there: sweep-only-while-waiting)", t.Sweep)
		}
	}
	return t, nil
}

func hasWorkflows(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(workflows.Dir)))
	return err == nil && fi.IsDir()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// findUp is the nearest directory from dir up for which is holds.
func findUp(dir string, is func(string) bool) (string, bool) {
	for !is(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	return dir, true
}

// frontDoorSetup is the setup the front door in the workflow file name
// (data) gives recess, read as a run reads it (the policy file in repo
// included). A choice given as an expression is an error: the story
// follows one setup.
func frontDoorSetup(name string, data []byte, repo string) (action.LabSetup, error) {
	w, err := workflows.Read(name, data)
	if err != nil {
		return action.LabSetup{}, err
	}
	inputs := w.FrontDoor
	if inputs == nil {
		return action.LabSetup{}, errors.New("no front door: no job runs recess on a discussion event")
	}
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		if action.LabInput(k) != nil {
			delete(inputs, k) // what one run is about, not the setup
		} else if v := inputs[k]; strings.Contains(v, "${{") {
			return action.LabSetup{}, fmt.Errorf("%s input %q: recess-lab act needs the value itself, not an expression", k, v)
		}
	}
	s, err := action.ReadLabSetup(func(k string) string { return inputs[k] }, repo)
	if err == nil {
		if err = gh.CheckWorkflowFile(s.Workflow); err != nil {
			err = fmt.Errorf("input workflow: %w", err)
		}
	}
	return s, err
}

// releases are the releases of recess (OWNER/recess@REF) whose action
// or reusable workflows a workflow uses, sorted.
func releases(w *workflows.Workflow) []string {
	return usedNames(w, func(u workflows.Use) (string, bool) { return u.Release, u.Release != "" && u.Release != "./" })
}

// otherActions are the OWNER/REPO of the remote actions a workflow uses
// that recess-lab act does not serve: act fetches them from github.com.
func otherActions(w *workflows.Workflow) []string {
	return usedNames(w, func(u workflows.Use) (string, bool) {
		name, _, ok := strings.Cut(u.Uses, "@")
		parts := strings.Split(name, "/")
		if !ok || u.Release != "" || strings.HasPrefix(u.Uses, "./") || strings.HasPrefix(u.Uses, "docker://") || len(parts) < 2 || slices.Contains(parts, ".github") {
			return "", false
		}
		return parts[0] + "/" + parts[1], !servedActions[parts[0]+"/"+parts[1]]
	})
}

// usedNames are the names pick finds in a workflow's uses, sorted, each once.
func usedNames(w *workflows.Workflow, pick func(workflows.Use) (string, bool)) []string {
	var names []string
	for _, u := range w.Uses {
		if name, ok := pick(u); ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// actCopy is a workflow file as recess-lab act runs it, and what it changed.
type actCopy struct {
	Data    []byte
	Read    *workflows.Workflow // Data, read
	Changes []string            // each change in words, for the story's output
	// Replaced are the model actions whose step the scripted lead replaced.
	Replaced []string
	// Kept are the keys (modelActions) of the model steps kept as written.
	Kept []string
}

// leadScript says how a replaced model step runs the scripted lead.
type leadScript struct {
	// Lab is the recess-lab binary the step runs.
	Lab string
	// Keys are the environment's values of the model keys (modelActions);
	// a step whose key is set is kept.
	Keys func(string) string
}

// prepareForAct returns the copy of a workflow that recess-lab act runs:
// without its `queue: max` lines (act v0.2.89 validates workflows against a
// schema older than concurrency queue) and, in lead, with every step of a
// model action whose key is not set replaced by a step that runs the
// scripted lead (recess-lab mcp-script) against the same `recess mcp`
// server the model would be given: the step's inputs, however the
// workflow built them (inline, a file a step before wrote, a step's
// output), reach the scripted lead at run time. A copy with a replaced step
// is the file encoded again from its YAML tree: same values and comments,
// act's layout.
func prepareForAct(name string, data []byte, lead leadScript) (actCopy, error) {
	var c actCopy
	w, err := workflows.Read(name, data)
	if err != nil {
		return c, err
	}
	claimJob := "" // the job whose prompt output the scripted lead prints
	for _, u := range w.Uses {
		if u.Command == "claim" {
			claimJob = u.Job
		}
	}
	for _, u := range w.Uses {
		name, _, _ := strings.Cut(u.Uses, "@")
		key, isModel := modelActions[name]
		switch {
		case !isModel || u.Step == nil:
			continue
		case lead.Keys(key) != "":
			c.Changes = append(c.Changes, fmt.Sprintf("job %s: %s runs as written (%s is set)", u.Job, u.Uses, key))
			c.Kept = append(c.Kept, key)
			continue
		}
		n, err := scriptedLeadStep(u.Uses, key, u.With, claimJob, u.Job, lead.Lab)
		if err != nil {
			return c, err
		}
		n.HeadComment, n.LineComment, n.FootComment = u.Step.HeadComment, u.Step.LineComment, u.Step.FootComment
		line := u.Step.Line
		*u.Step = *n
		c.Replaced = append(c.Replaced, u.Uses)
		c.Changes = append(c.Changes, fmt.Sprintf("job %s: the step %s (line %d) is replaced by the scripted lead (recess-lab mcp-script), which starts the recess mcp server the step's inputs configure, as the step would (%s is not set)", u.Job, u.Uses, line, key))
	}
	if len(c.Replaced) > 0 {
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(w.Doc); err != nil {
			return c, err
		}
		data = b.Bytes()
	}
	data, queue := dropQueueLines(data)
	if queue > 0 {
		c.Changes = append([]string{fmt.Sprintf("%s left out (act v%s cannot parse concurrency queue; it ignores concurrency)", text.Count(queue, "`queue: max` line", "`queue: max` lines"), actVersion)}, c.Changes...)
	}
	c.Data = data
	if c.Read, err = workflows.Read(name, c.Data); err != nil {
		return c, fmt.Errorf("the copy for act does not parse: %w", err)
	}
	return c, nil
}

// A replaced model step's inputs reach the scripted lead through the
// environment: stepInputsVar lists their names, and each is in the
// variable stepInputVar names.
const (
	stepInputsVar = "RECESS_STEP_INPUTS"
	stepInputEnv  = "RECESS_STEP_INPUT_"
)

// stepInputVar is the variable holding input name: stepInputEnv and the
// name in upper case, every character but an ASCII letter or digit an
// underscore.
func stepInputVar(name string) string {
	return stepInputEnv + strings.ToUpper(notNameChar.ReplaceAllString(name, "_"))
}

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9]`)

// scriptedLeadStep is the step that stands for a model step: recess-lab
// mcp-script --from-step finds, in the model step's inputs (each passed
// through the environment as written, expressions and all, so act fills
// them in at run time and nothing reaches the script's text), the MCP
// server running `recess mcp`, starts it as the model's host would, and
// makes the calls a model would, scripted.
func scriptedLeadStep(uses, key string, with map[string]string, claimJob, jobID, lab string) (*yaml.Node, error) {
	env := map[string]string{"RECESS_LAB": lab, "RECESS_RESUME_CONTEXT": "${{ inputs.resume_context }}"}
	if claimJob != "" && claimJob != jobID {
		env["RECESS_PROMPT"] = "${{ needs." + claimJob + ".outputs.prompt }}"
	}
	names := slices.Sorted(maps.Keys(with))
	for _, k := range names {
		env[stepInputVar(k)] = with[k]
	}
	env[stepInputsVar] = strings.Join(names, " ")
	var n yaml.Node
	err := n.Encode(struct {
		Name  string            `yaml:"name"`
		Env   map[string]string `yaml:"env"`
		Shell string            `yaml:"shell"`
		Run   string            `yaml:"run"`
	}{fmt.Sprintf("scripted lead in place of %s (recess-lab act: %s is not set)", uses, key), env, "bash", `"$RECESS_LAB" mcp-script --from-step`})
	return &n, err
}

// recessServer is the `recess mcp` server an MCP configuration starts: its
// command and the arguments after mcp.
type recessServer struct {
	Command string
	Args    []string
}

// findRecessServer finds, in a model step's inputs, an MCP configuration
// ({"mcpServers": ...}, as Claude Code's --mcp-config and Gemini CLI's
// settings take it) with a server whose command is recess and whose first
// argument is mcp. A configuration may be written in an input, or be a
// file an input names (read with readFile): a step before may have built
// it, at run time.
func findRecessServer(inputs map[string]string, readFile func(string) ([]byte, error)) (recessServer, error) {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		names = append(names, k)
		texts := []string{inputs[k]}
		for _, word := range strings.Fields(inputs[k]) {
			_, after, _ := strings.Cut(word, "=") // --mcp-config=PATH
			for _, p := range []string{word, after} {
				if p = strings.Trim(p, `'"`); p != "" && !strings.HasPrefix(p, "{") {
					if data, err := readFile(p); err == nil {
						texts = append(texts, string(data))
					}
				}
			}
		}
		for _, text := range texts {
			if srv, ok := recessServerIn(text); ok {
				return srv, nil
			}
		}
	}
	return recessServer{}, fmt.Errorf("no MCP server running `recess mcp` in the inputs of the step (%s), written there or in a file they name: recess-lab act replaces the model by a scripted client of that server", strings.Join(names, ", "))
}

// recessServerIn finds the recess server in the JSON objects within text.
func recessServerIn(text string) (recessServer, bool) {
	for i, r := range text {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if r != '{' || json.NewDecoder(strings.NewReader(text[i:])).Decode(&cfg) != nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
			srv := cfg.MCPServers[name]
			base := strings.TrimSuffix(path.Base(filepath.ToSlash(srv.Command)), ".exe")
			if base == "recess" && len(srv.Args) > 0 && srv.Args[0] == "mcp" {
				return recessServer{Command: srv.Command, Args: srv.Args[1:]}, true
			}
		}
	}
	return recessServer{}, false
}

// serveRecess writes the copy of recess (this checkout) that act serves for
// recess-action/recess@REF: every file but .git, with the reusable
// workflows less their `queue: max` lines, as for the caller's files.
func serveRecess(root, dst string) (queueLines int, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if filepath.Dir(rel) == filepath.FromSlash(workflows.Dir) {
			var n int
			data, n = dropQueueLines(data)
			queueLines += n
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	return queueLines, err
}

// queueLine is the one line act cannot parse: concurrency `queue: max`.
var queueLine = regexp.MustCompile(`(?m)^[ \t]*queue:[ \t]*max[ \t]*(?:\r?\n|\z)`)

// dropQueueLines is data without its `queue: max` lines, and how many.
func dropQueueLines(data []byte) ([]byte, int) {
	return queueLine.ReplaceAll(data, nil), len(queueLine.FindAll(data, -1))
}
