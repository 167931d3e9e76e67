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
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/text"
)

// What recess-lab act runs, and the copies it runs: a repository's front
// door and agent workflow, each less what act cannot parse and, when no
// model key is given, with the model step of the lead replaced by the
// scripted lead.

// recessRepo is the action's repository: `uses: recess-action/recess@REF`
// and `uses: recess-action/recess/.github/workflows/X.yml@REF` are served
// from this checkout (act's --local-repository), not cloned from GitHub.
const recessRepo = "recess-action/recess"

// modelActions are the agent actions whose step recess-lab act replaces by
// the scripted lead when their key is not in the environment.
var modelActions = map[string]string{
	"anthropics/claude-code-action":        "ANTHROPIC_API_KEY",
	"google-github-actions/run-gemini-cli": "GEMINI_API_KEY",
}

// servedActions are the actions recess-lab act serves itself (recess's own
// from the checkout, the artifact actions by stand-ins) or act skips
// (actions/checkout of the repository under test).
var servedActions = map[string]bool{
	recessRepo: true, "actions/upload-artifact": true, "actions/download-artifact": true, "actions/checkout": true,
}

// actTarget is what one recess-lab act run works on.
type actTarget struct {
	Repo      string // act's working directory: the repository whose workflows run
	FrontDoor string // the front door's file
	Agent     string // the agent workflow's file
	// AgentName is the file name the front door dispatches (its workflow
	// input), the name the fake GitHub knows the agent workflow by.
	AgentName string
	// Sweep is the sweep's own file when the front door keeps it apart
	// (sweep-only-while-waiting), next to the front door; "" when the
	// front door sweeps itself.
	Sweep string
	// Choices are the front door's choices the story follows.
	Choices setupChoices
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
		t.Repo, dir = repo, filepath.Join(repo, ".github", "workflows")
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
			t.Repo, dir = p, filepath.Join(p, ".github", "workflows")
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
	if t.Choices, err = frontDoorChoices(data); err != nil {
		return t, fmt.Errorf("%s: %w", t.FrontDoor, err)
	}
	t.AgentName = t.Choices.Workflow
	t.Agent = filepath.Join(dir, t.AgentName)
	if agent != "" {
		t.Agent = abs(agent)
	}
	if !fileExists(t.Agent) {
		return t, fmt.Errorf("the agent workflow %s does not exist (the front door dispatches %s)", t.Agent, t.AgentName)
	}
	if t.Choices.SweepApart {
		t.Sweep = filepath.Join(dir, t.Choices.SweepWorkflow)
		if !fileExists(t.Sweep) {
			return t, fmt.Errorf("the sweep workflow %s does not exist (the front door keeps its sweep there: sweep-only-while-waiting)", t.Sweep)
		}
	}
	return t, nil
}

func hasWorkflows(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".github", "workflows"))
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

// workflowUses is a `uses:` of a workflow, a job's (a called workflow) or
// a step's, with its `with:`; node is a step's, which a copy may replace.
type workflowUses struct {
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	job  string
	node *yaml.Node
}

// readWorkflow parses a workflow file: its document and its jobs' and
// steps' uses, in order. A job or step of another shape reads as empty
// (GitHub and actionlint judge it).
func readWorkflow(data []byte) (*yaml.Node, []workflowUses, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("not a workflow: the file is not a YAML mapping")
	}
	var wf struct {
		Jobs yaml.Node `yaml:"jobs"`
	}
	_ = doc.Content[0].Decode(&wf)
	var all []workflowUses
	// The decoded nodes share their children with the tree, so a step
	// replaced through node is replaced in the document.
	for i := 0; wf.Jobs.Kind == yaml.MappingNode && i+1 < len(wf.Jobs.Content); i += 2 {
		var job struct {
			Steps yaml.Node `yaml:"steps"`
		}
		_ = wf.Jobs.Content[i+1].Decode(&job)
		for k, n := range append([]*yaml.Node{wf.Jobs.Content[i+1]}, job.Steps.Content...) {
			u := workflowUses{job: wf.Jobs.Content[i].Value}
			if _ = n.Decode(&u); k > 0 {
				u.node = n
			}
			if u.Uses != "" {
				all = append(all, u)
			}
		}
	}
	return &doc, all, nil
}

// recessRef tells a `uses:` of recess's action or of one of its reusable
// workflows, and returns its ref.
func recessRef(uses string) (ref string, ok bool) {
	name, ref, _ := strings.Cut(uses, "@")
	return ref, ref != "" && (name == recessRepo || strings.HasPrefix(name, recessRepo+"/"))
}

// setupChoices are the front door's choices that shape the story: the
// agent workflow it dispatches, where its sweep lives, its store, and what
// it serves (the story's discussion must be one it serves).
type setupChoices struct {
	Workflow       string // the agent workflow's file name (default agent.yml)
	SweepApart     bool   // sweep-only-while-waiting: the sweep in a file of its own
	SweepWorkflow  string // that file's name (default recess-sweep.yml)
	Store          string // comment (default) or branch
	Categories     []string
	Labels         []string
	WakeOn         string
	MentionHandles []string
}

// frontDoorChoices reads the inputs the front door gives recess's reusable
// front door or action (the action's defaults where it gives none). An
// input given two values, or an expression, is an error: the story follows
// one setup.
func frontDoorChoices(data []byte) (setupChoices, error) {
	_, all, err := readWorkflow(data)
	if err != nil {
		return setupChoices{}, err
	}
	given := map[string]string{}
	for _, u := range all {
		if _, ok := recessRef(u.Uses); !ok && !strings.HasPrefix(u.Uses, "./") {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(u.With)) {
			v := strings.TrimSpace(u.With[k])
			switch {
			case v == "" || k == "command" || k == "discussion":
			case given[k] != "" && given[k] != v:
				return setupChoices{}, fmt.Errorf("the front door gives %s two values (%s, %s): recess-lab act runs one setup", k, given[k], v)
			case strings.Contains(v, "${{"):
				return setupChoices{}, fmt.Errorf("%s input %q: recess-lab act needs the value itself, not an expression", k, v)
			default:
				given[k] = v
			}
		}
	}
	list := func(k string) []string {
		var out []string
		for _, v := range strings.Split(given[k], ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	c := setupChoices{
		Workflow:       cmp.Or(given["workflow"], "agent.yml"),
		SweepWorkflow:  cmp.Or(given["sweep-workflow"], "recess-sweep.yml"),
		Store:          strings.ToLower(cmp.Or(given["state-store"], "comment")),
		Categories:     list("categories"),
		Labels:         list("labels"),
		WakeOn:         strings.ToLower(given["wake-on"]),
		MentionHandles: list("mention-handles"),
	}
	c.SweepApart, _ = strconv.ParseBool(given["sweep-only-while-waiting"])
	for _, name := range []string{c.Workflow, c.SweepWorkflow} {
		if strings.ContainsAny(name, `/\`) {
			return c, fmt.Errorf("%q: recess-lab act needs a file name in .github/workflows", name)
		}
	}
	return c, nil
}

// recessRefs are the refs of recess's action and reusable workflows that a
// workflow file uses, sorted.
func recessRefs(data []byte) []string {
	return usedNames(data, recessRef)
}

// otherActions are the OWNER/REPO of the remote actions a workflow uses
// that recess-lab act does not serve: act fetches them from github.com.
func otherActions(data []byte) []string {
	return usedNames(data, func(uses string) (string, bool) {
		name, _, ok := strings.Cut(uses, "@")
		parts := strings.Split(name, "/")
		if !ok || strings.HasPrefix(uses, "./") || strings.HasPrefix(uses, "docker://") || len(parts) < 2 || slices.Contains(parts, ".github") {
			return "", false
		}
		return parts[0] + "/" + parts[1], !servedActions[parts[0]+"/"+parts[1]]
	})
}

// usedNames are the names pick finds in a workflow's uses, sorted, each once.
func usedNames(data []byte, pick func(uses string) (string, bool)) []string {
	var names []string
	_, all, _ := readWorkflow(data)
	for _, u := range all {
		if name, ok := pick(u.Uses); ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// actCopy is a workflow file as recess-lab act runs it, and what it changed.
type actCopy struct {
	Data    []byte
	Changes []string // each change in words, for the story's output
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
func prepareForAct(data []byte, lead leadScript) (actCopy, error) {
	var c actCopy
	doc, all, err := readWorkflow(data)
	if err != nil {
		return c, err
	}
	claimJob := "" // the job whose prompt output the scripted lead prints
	for _, u := range all {
		name, _, _ := strings.Cut(u.Uses, "@")
		if _, recess := recessRef(u.Uses); strings.HasSuffix(name, "/claim.yml") || (recess || u.Uses == "./") && u.With["command"] == "claim" {
			claimJob = u.job
		}
	}
	for _, u := range all {
		name, _, _ := strings.Cut(u.Uses, "@")
		key, isModel := modelActions[name]
		switch {
		case !isModel || u.node == nil:
			continue
		case lead.Keys(key) != "":
			c.Changes = append(c.Changes, fmt.Sprintf("job %s: %s runs as written (%s is set)", u.job, u.Uses, key))
			c.Kept = append(c.Kept, key)
			continue
		}
		n, err := scriptedLeadStep(u.Uses, key, u.With, claimJob, u.job, lead.Lab)
		if err != nil {
			return c, err
		}
		n.HeadComment, n.LineComment, n.FootComment = u.node.HeadComment, u.node.LineComment, u.node.FootComment
		line := u.node.Line
		*u.node = *n
		c.Replaced = append(c.Replaced, u.Uses)
		c.Changes = append(c.Changes, fmt.Sprintf("job %s: the step %s (line %d) is replaced by the scripted lead (recess-lab mcp-script), which starts the recess mcp server the step's inputs configure, as the step would (%s is not set)", u.job, u.Uses, line, key))
	}
	if len(c.Replaced) > 0 {
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return c, err
		}
		data = b.Bytes()
	}
	data, queue := dropQueueLines(data)
	if queue > 0 {
		c.Changes = append([]string{fmt.Sprintf("%s left out (act v%s cannot parse concurrency queue; it ignores concurrency)", text.Count(queue, "`queue: max` line", "`queue: max` lines"), actVersion)}, c.Changes...)
	}
	c.Data = data
	if _, _, err := readWorkflow(c.Data); err != nil {
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
// name in upper case, every character but a letter or digit an underscore.
func stepInputVar(name string) string {
	return stepInputEnv + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}

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
		if filepath.Dir(rel) == filepath.Join(".github", "workflows") {
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
