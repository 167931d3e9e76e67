package main

import (
	"bytes"
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

	"github.com/recess-action/recess/resume"
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
	"anthropics/claude-code-action": "ANTHROPIC_API_KEY",
}

// actTarget is what one recess-lab act run works on.
type actTarget struct {
	Repo      string // act's working directory: the repository whose workflows run
	FrontDoor string // the front door's file
	Agent     string // the agent workflow's file
	// AgentName is the file name the front door dispatches (its workflow
	// input), the name the fake GitHub knows the agent workflow by.
	AgentName string
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
	var dir string
	switch {
	case target == "":
		repo, ok := repositoryAround(cwd)
		if !ok {
			return t, fmt.Errorf("no .github/workflows in %s or above it: name your repository or workflow directory", cwd)
		}
		t.Repo, dir = repo, filepath.Join(repo, ".github", "workflows")
	default:
		p := abs(target)
		fi, err := os.Stat(p)
		if err != nil {
			return t, fmt.Errorf("workflows %s: %w", target, err)
		}
		switch {
		case !fi.IsDir():
			if frontDoor != "" {
				return t, fmt.Errorf("--front-door %s: the front door is already the file %s", frontDoor, target)
			}
			dir, frontDoor = filepath.Dir(p), filepath.Base(p)
		case isDir(filepath.Join(p, ".github", "workflows")):
			t.Repo, dir = p, filepath.Join(p, ".github", "workflows")
		default:
			dir = p
		}
		if t.Repo == "" {
			t.Repo, _ = repositoryAround(dir)
			if t.Repo == "" {
				t.Repo = dir
			}
		}
	}
	if frontDoor == "" {
		frontDoor = "recess.yml"
	}
	t.FrontDoor = filepath.Join(dir, frontDoor)
	data, err := os.ReadFile(t.FrontDoor)
	if err != nil {
		return t, fmt.Errorf("the front door: %w", err)
	}
	t.AgentName, err = frontDoorWorkflowInput(data)
	if err != nil {
		return t, fmt.Errorf("%s: %w", t.FrontDoor, err)
	}
	if agent != "" {
		t.Agent = abs(agent)
	} else {
		t.Agent = filepath.Join(dir, t.AgentName)
	}
	if !fileExists(t.Agent) {
		return t, fmt.Errorf("the agent workflow %s does not exist (the front door dispatches %s)", t.Agent, t.AgentName)
	}
	return t, nil
}

// repositoryAround is the nearest directory from dir up that holds
// .github/workflows.
func repositoryAround(dir string) (string, bool) {
	return findUp(dir, func(d string) bool { return isDir(filepath.Join(d, ".github", "workflows")) })
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

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// parseWorkflow reads a workflow file as a YAML mapping.
func parseWorkflow(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return workflowRoot(&doc)
}

// workflowRoot is a workflow document's top-level mapping.
func workflowRoot(doc *yaml.Node) (*yaml.Node, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a workflow: the file is not a YAML mapping")
	}
	return doc.Content[0], nil
}

// uses is what recess-lab act reads of a job or a step: its `uses:` and
// `with:`, and for a step its node, which a copy may replace.
type uses struct {
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	node *yaml.Node
}

// job is one job of a workflow: its own `uses:` (a called workflow) and
// its steps'.
type job struct {
	id    string
	call  uses
	steps []uses
}

// readJobs reads a workflow's jobs in order, each as far as it fits: a
// value of another shape reads as empty (GitHub and actionlint judge it).
func readJobs(root *yaml.Node) []job {
	var wf struct {
		Jobs yaml.Node `yaml:"jobs"`
	}
	_ = root.Decode(&wf)
	var jobs []job
	// The decoded nodes share their children with the tree, so a step
	// replaced through node is replaced in the document.
	for i := 0; wf.Jobs.Kind == yaml.MappingNode && i+1 < len(wf.Jobs.Content); i += 2 {
		j := job{id: wf.Jobs.Content[i].Value}
		var steps struct {
			Steps yaml.Node `yaml:"steps"`
		}
		_ = wf.Jobs.Content[i+1].Decode(&j.call)
		_ = wf.Jobs.Content[i+1].Decode(&steps)
		for _, n := range steps.Steps.Content {
			st := uses{node: n}
			_ = n.Decode(&st)
			j.steps = append(j.steps, st)
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// isRecessUses tells a `uses:` of recess's action or of one of its
// reusable workflows, and returns its ref.
func isRecessUses(uses string) (ref string, ok bool) {
	name, ref, found := strings.Cut(uses, "@")
	if !found || ref == "" {
		return "", false
	}
	if name == recessRepo || strings.HasPrefix(name, recessRepo+"/") {
		return ref, true
	}
	return "", false
}

// frontDoorWorkflowInput is the agent workflow the front door dispatches:
// the `workflow` input it gives recess's reusable front door or action, or
// the action's default, agent.yml. Two different names are an error.
func frontDoorWorkflowInput(data []byte) (string, error) {
	all, err := usesOf(data)
	if err != nil {
		return "", err
	}
	names := map[string]bool{}
	for _, u := range all {
		if _, ok := isRecessUses(u.Uses); (ok || strings.HasPrefix(u.Uses, "./")) && u.With["workflow"] != "" {
			names[u.With["workflow"]] = true
		}
	}
	switch len(names) {
	case 0:
		return "agent.yml", nil
	case 1:
		for n := range names {
			if strings.Contains(n, "${{") || strings.ContainsAny(n, `/\`) {
				return "", fmt.Errorf("workflow input %q: recess-lab act needs a file name in .github/workflows", n)
			}
			return n, nil
		}
	}
	return "", fmt.Errorf("the front door names %d agent workflows (%s): recess-lab act runs one", len(names), strings.Join(slices.Sorted(maps.Keys(names)), ", "))
}

// recessRefs are the refs of recess's action and reusable workflows that a
// workflow file uses, sorted.
func recessRefs(data []byte) []string {
	refs := map[string]bool{}
	all, _ := usesOf(data)
	for _, u := range all {
		if ref, ok := isRecessUses(u.Uses); ok {
			refs[ref] = true
		}
	}
	return slices.Sorted(maps.Keys(refs))
}

// servedActions are the actions recess-lab act serves itself (recess's own
// from the checkout, the artifact actions by stand-ins) or act skips
// (actions/checkout of the repository under test).
var servedActions = map[string]bool{
	recessRepo: true, "actions/upload-artifact": true, "actions/download-artifact": true, "actions/checkout": true,
}

// otherActions are the OWNER/REPO of the remote actions a workflow uses
// that recess-lab act does not serve: act fetches them from github.com.
func otherActions(data []byte) []string {
	found := map[string]bool{}
	all, _ := usesOf(data)
	for _, u := range all {
		name, _, ok := strings.Cut(u.Uses, "@")
		parts := strings.Split(name, "/")
		if !ok || strings.HasPrefix(u.Uses, "./") || strings.HasPrefix(u.Uses, "docker://") || len(parts) < 2 || slices.Contains(parts, ".github") {
			continue
		}
		if repo := parts[0] + "/" + parts[1]; !servedActions[repo] {
			found[repo] = true
		}
	}
	return slices.Sorted(maps.Keys(found))
}

// usesOf are the `uses:` of a workflow's jobs and steps.
func usesOf(data []byte) ([]uses, error) {
	root, err := parseWorkflow(data)
	var out []uses
	if err == nil {
		for _, j := range readJobs(root) {
			out = append(append(out, j.call), j.steps...)
		}
	}
	return out, err
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
// server the model was given. A copy with a replaced step is the file
// encoded again from its YAML tree: same values and comments, act's layout.
func prepareForAct(data []byte, lead leadScript) (actCopy, error) {
	var c actCopy
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return c, err
	}
	root, err := workflowRoot(&doc)
	if err != nil {
		return c, err
	}
	jobs := readJobs(root)
	claimJob := "" // the job whose prompt output the scripted lead prints
	for _, j := range jobs {
		if strings.HasSuffix(strings.SplitN(j.call.Uses, "@", 2)[0], "/claim.yml") {
			claimJob = j.id
		}
		for _, st := range j.steps {
			if _, recess := isRecessUses(st.Uses); (recess || st.Uses == "./") && st.With["command"] == "claim" {
				claimJob = j.id
			}
		}
	}
	for _, j := range jobs {
		for _, st := range j.steps {
			name, _, _ := strings.Cut(st.Uses, "@")
			key, isModel := modelActions[name]
			if !isModel {
				continue
			}
			if lead.Keys(key) != "" {
				c.Changes = append(c.Changes, fmt.Sprintf("job %s: %s runs as written (%s is set)", j.id, st.Uses, key))
				c.Kept = append(c.Kept, key)
				continue
			}
			args, err := recessMCPArgs(st.With)
			if err != nil {
				return c, fmt.Errorf("job %s, step %s (line %d): %w", j.id, st.Uses, st.node.Line, err)
			}
			n, err := scriptedLeadStep(st.Uses, key, args, claimJob, j.id, lead.Lab)
			if err != nil {
				return c, err
			}
			n.HeadComment, n.LineComment, n.FootComment = st.node.HeadComment, st.node.LineComment, st.node.FootComment
			line := st.node.Line
			*st.node = *n
			c.Replaced = append(c.Replaced, st.Uses)
			c.Changes = append(c.Changes, fmt.Sprintf("job %s: the step %s (line %d) is replaced by the scripted lead (recess-lab mcp-script), which starts recess mcp with the flags the step gives it (%s is not set)", j.id, st.Uses, line, key))
		}
	}
	if len(c.Replaced) > 0 {
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&doc); err != nil {
			return c, err
		}
		data = b.Bytes()
	}
	data, queue := dropQueueLines(data)
	if queue > 0 {
		c.Changes = append([]string{fmt.Sprintf("%s left out (act v%s cannot parse concurrency queue; it ignores concurrency)", resume.Count(queue, "`queue: max` line", "`queue: max` lines"), actVersion)}, c.Changes...)
	}
	c.Data = data
	if _, err := parseWorkflow(c.Data); err != nil {
		return c, fmt.Errorf("the copy for act does not parse: %w", err)
	}
	return c, nil
}

// recessMCPArgs are the arguments a model step gives `recess mcp`: the
// step's inputs are searched for an MCP configuration ({"mcpServers": ...},
// as claude-code-action's --mcp-config takes it) with a server whose
// command is recess and whose first argument is mcp.
func recessMCPArgs(with map[string]string) ([]string, error) {
	for _, k := range slices.Sorted(maps.Keys(with)) {
		v := with[k]
		for i := strings.Index(v, "{"); i >= 0; {
			var cfg struct {
				MCPServers map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"mcpServers"`
			}
			if err := json.NewDecoder(strings.NewReader(v[i:])).Decode(&cfg); err == nil {
				for _, srv := range cfg.MCPServers {
					base := strings.TrimSuffix(path.Base(filepath.ToSlash(srv.Command)), ".exe")
					if base == "recess" && len(srv.Args) > 0 && srv.Args[0] == "mcp" {
						return srv.Args[1:], nil
					}
				}
			}
			next := strings.Index(v[i+1:], "{")
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return nil, errors.New("no MCP server running `recess mcp` in the step's inputs: recess-lab act replaces the model by a scripted client of that server")
}

// scriptedLeadStep is the step that stands for a model step: recess-lab
// mcp-script starts `recess mcp` with the model step's flags (each passed
// through the environment, never spliced into the script) and makes the
// calls a model would, scripted.
func scriptedLeadStep(uses, key string, args []string, claimJob, jobID, lab string) (*yaml.Node, error) {
	env := map[string]string{"RECESS_LAB": lab, "RECESS_RESUME_CONTEXT": "${{ inputs.resume_context }}"}
	if claimJob != "" && claimJob != jobID {
		env["RECESS_PROMPT"] = "${{ needs." + claimJob + ".outputs.prompt }}"
	}
	call := `"$RECESS_LAB" mcp-script --`
	for i, a := range args {
		k := fmt.Sprintf("RECESS_MCP_ARG_%d", i+1)
		env[k] = a
		call += ` "$` + k + `"`
	}
	var n yaml.Node
	err := n.Encode(struct {
		Name  string            `yaml:"name"`
		Env   map[string]string `yaml:"env"`
		Shell string            `yaml:"shell"`
		Run   string            `yaml:"run"`
	}{fmt.Sprintf("scripted lead in place of %s (recess-lab act: %s is not set)", uses, key), env, "bash", call})
	return &n, err
}

// serveRecess writes the copy of recess (this checkout) that act serves for
// recess-action/recess@REF: every file but .git, with the reusable
// workflows less their `queue: max` lines, as for the caller's files.
func serveRecess(root, dst string) (queueLines int, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
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
var queueLine = regexp.MustCompile(`^\s*queue:\s*max\s*$`)

// dropQueueLines is data without its `queue: max` lines, and how many.
func dropQueueLines(data []byte) ([]byte, int) {
	var out bytes.Buffer
	n := 0
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if queueLine.MatchString(strings.TrimRight(l, "\r\n")) {
			n++
			continue
		}
		out.WriteString(l)
	}
	return out.Bytes(), n
}
