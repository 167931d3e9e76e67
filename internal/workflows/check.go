package workflows

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Rule names one promise a setup can break.
type Rule string

const (
	RuleUnreadable        Rule = "unreadable"         // a workflow file the rules cannot read
	RuleWriterGroup       Rule = "writer-group"       // a job that writes a record outside recess-<number>
	RuleWriterQueue       Rule = "writer-queue"       // ... without queue: max
	RuleWriterCancel      Rule = "writer-cancel"      // ... cancelled in progress
	RuleLeadWrites        Rule = "lead-writes"        // a lead job whose token may write
	RuleLeadBesideWriter  Rule = "lead-beside-writer" // the agent and a writing recess command in one job
	RuleMissingPermission Rule = "missing-permission" // a recess job without a permission it needs
	RuleExcessPermission  Rule = "excess-permission"  // a write scope no recess job needs
	RuleAgentInputs       Rule = "agent-inputs"       // an agent workflow without a dispatch input recess sends
	RuleAgentRunName      Rule = "agent-run-name"     // an agent workflow whose run-name hides the correlation id
	RuleAgentJobs         Rule = "agent-jobs"         // an agent workflow without a claim or a verdict
	RuleWorkflowMissing   Rule = "workflow-missing"   // a workflow input naming no file
	RuleVerdictWorkflow   Rule = "verdict-workflow"   // a verdict that would dispatch another file than its own workflow
	RuleTopOfHour         Rule = "schedule-top-of-hour"
	RuleNoSweep           Rule = "no-sweep"
	RuleExpressionInRun   Rule = "expression-in-run" // ${{ }} spliced into a shell script
)

// Finding is one broken promise: where, which rule, what is wrong and how
// to fix it.
type Finding struct {
	File    string // relative to the repository, e.g. .github/workflows/agent.yml
	Line    int    // 1-based; the line to change
	Job     string // the job, when the finding is about one
	Rule    Rule
	Message string
	Fix     string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s (fix: %s)", f.File, f.Line, f.Message, f.Fix)
}

// Dir is where a repository keeps its workflows.
const Dir = ".github/workflows"

// CheckRepo reads every workflow in fsys's .github/workflows (fsys is the
// repository's root) and returns every way the setup breaks recess's
// promises, sorted by file and line. A file that is not a readable workflow
// is a finding; only a missing or unreadable directory is an error.
func CheckRepo(fsys fs.FS) ([]Finding, error) {
	entries, err := fs.ReadDir(fsys, Dir)
	if err != nil {
		return nil, err
	}
	var files []*file
	var out []Finding
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".yaml")) {
			continue
		}
		names[e.Name()] = true
		name := path.Join(Dir, e.Name())
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parseFile(name, data)
		if err != nil {
			out = append(out, unreadable(err))
			continue
		}
		files = append(files, f)
		out = append(out, checkFile(f)...)
	}
	out = append(out, checkSetup(files, names)...)
	sortFindings(out)
	return out, nil
}

// CheckFile returns what one workflow file breaks on its own (the rules
// that need the other files, such as the agent workflow's inputs, are
// CheckRepo's).
func CheckFile(name string, data []byte) []Finding {
	f, err := parseFile(name, data)
	if err != nil {
		return []Finding{unreadable(err)}
	}
	out := checkFile(f)
	sortFindings(out)
	return out
}

func unreadable(err error) Finding {
	pe := err.(*ParseError)
	return Finding{File: pe.File, Line: max(pe.Line, 1), Rule: RuleUnreadable, Message: pe.Reason,
		Fix: "make it a workflow GitHub accepts (actionlint says more)"}
}

func sortFindings(out []Finding) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
}

// agentActions are actions that run a model. A job using one is a lead.
var agentActions = []string{
	"anthropics/claude-code-action",
	"anthropics/claude-code-base-action",
	"openai/codex-action",
	"google-github-actions/run-gemini-cli",
	"actions/ai-inference",
}

// recessAction matches a step that runs the recess action: this repository
// (uses: ./) or OWNER/recess@REF.
var recessAction = regexp.MustCompile(`^(\./?|[A-Za-z0-9_.-]+/recess@.+)$`)

// recessCall matches a job that calls one of recess's reusable workflows,
// published (OWNER/recess/.github/workflows/NAME.yml@REF) or local.
var recessCall = regexp.MustCompile(`^(?:[A-Za-z0-9_.-]+/recess/|\./)\.github/workflows/(front-door|claim|verdict)\.ya?ml(?:@.+)?$`)

// recessGroup is the one-writer group: recess- and an expression that names
// the discussion (its number, the dispatch input, a visit's matrix entry).
var recessGroup = regexp.MustCompile(`^recess-\$\{\{[^}]*discussion[^}]*\}\}$`)

// role is what a job does for recess.
type role struct {
	lead     bool
	call     string   // front-door, claim or verdict: the reusable workflow it calls
	commands []string // the recess commands its steps run
	branch   bool     // state-store: branch
	workflow *yaml.Node
}

// writes says whether a direct recess step writes a discussion's record.
func (r role) writes() bool {
	for _, c := range r.commands {
		if !readOnly[c] {
			return true
		}
	}
	return false
}

func (r role) recess() bool { return r.call != "" || len(r.commands) > 0 || r.lead }

// readOnly are recess commands that write no record.
var readOnly = map[string]bool{"install": true, "status": true, "plan": true}

func roleOf(j *job) role {
	var r role
	if j.id == "lead" {
		r.lead = true
	}
	if m := recessCall.FindStringSubmatch(j.uses); m != nil {
		r.call = m[1]
		r.branch = strings.EqualFold(value(j.with["state-store"]), "branch")
		r.workflow = j.with["workflow"]
	}
	for _, s := range j.steps {
		if strings.Contains(s.run, "recess mcp") {
			r.lead = true
		}
		for _, a := range agentActions {
			if strings.HasPrefix(s.uses, a+"@") {
				r.lead = true
			}
		}
		if recessAction.MatchString(s.uses) {
			cmd := strings.ToLower(value(s.with["command"]))
			if cmd == "" {
				cmd = "auto"
			}
			r.commands = append(r.commands, cmd)
			if strings.EqualFold(value(s.with["state-store"]), "branch") {
				r.branch = true
			}
			if w := s.with["workflow"]; w != nil && cmd != "install" {
				r.workflow = w
			}
		}
	}
	return r
}

// needs is the token a job's recess work needs: scope to level.
func (r role) needs() map[string]level {
	need := map[string]level{}
	add := func(scope string, l level) {
		if l > need[scope] {
			need[scope] = l
		}
	}
	writes := func() {
		add("discussions", write)
		if r.branch {
			add("contents", write)
		}
	}
	switch r.call {
	case "front-door":
		writes()
		add("actions", write)
		add("contents", read) // the policy file's checkout
	case "claim":
		writes()
		add("contents", read) // the policy file's checkout
	case "verdict":
		writes()
		add("actions", write)
		add("contents", read) // the policy file's checkout
	}
	for _, c := range r.commands {
		switch c {
		case "install":
		case "plan", "status":
			add("discussions", read)
			if r.branch {
				add("contents", read)
			}
		case "claim":
			writes()
		default: // auto, intake, inbound, sweep, visit, verdict
			writes()
			add("actions", write)
		}
	}
	return need
}

// checkFile applies the rules that one file decides alone.
func checkFile(f *file) []Finding {
	var out []Finding
	called := f.has("workflow_call") && len(f.triggers()) == 1
	anyRecess := false
	for _, j := range f.jobs {
		r := roleOf(j)
		if !r.recess() {
			continue
		}
		anyRecess = true
		if r.lead && r.writes() {
			out = append(out, Finding{File: f.name, Line: j.line, Job: j.id, Rule: RuleLeadBesideWriter,
				Message: fmt.Sprintf("job %s runs the agent and a recess command that writes", j.id),
				Fix:     "split it into three jobs: claim, a read-only lead, verdict"})
		}
		if r.lead {
			out = append(out, leadPermissions(f, j)...)
		} else if !called {
			// A called workflow's jobs get the caller's grant; the caller's file is judged.
			out = append(out, missingPermissions(f, j, r)...)
		}
		if r.writes() {
			out = append(out, writerGroup(f, j)...)
		}
	}
	if !anyRecess {
		return out
	}
	if !called {
		out = append(out, excessPermissions(f)...)
	}
	for _, j := range f.jobs {
		for i, s := range j.steps {
			if strings.Contains(s.run, "${{") {
				out = append(out, Finding{File: f.name, Line: s.runLine, Job: j.id, Rule: RuleExpressionInRun,
					Message: fmt.Sprintf("job %s step %d (%s) splices ${{ }} into a shell script", j.id, i+1, stepName(s)),
					Fix:     "pass the value through the step's env: and use \"$NAME\" in the script"})
			}
		}
	}
	for _, c := range crons(f) {
		if TopOfHour(value(c)) {
			out = append(out, Finding{File: f.name, Line: c.Line, Rule: RuleTopOfHour,
				Message: fmt.Sprintf("the schedule %q runs at the top of the hour, when GitHub's scheduler is busiest and drops runs", value(c)),
				Fix:     `start off the hour, e.g. cron: "2-59/5 * * * *"`})
		}
	}
	return out
}

// crons are the cron nodes of a file's schedule.
func crons(f *file) []*yaml.Node {
	s := f.triggers()["schedule"]
	if s == nil || s.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, e := range s.Content {
		if c := lookup(e, "cron"); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// TopOfHour says whether a cron expression's minute field includes 0, when
// GitHub's scheduler is busiest. A field it cannot read is not judged.
func TopOfHour(cron string) bool {
	fields := strings.Fields(cron)
	if len(fields) == 0 {
		return false
	}
	for _, item := range strings.Split(fields[0], ",") {
		rng, stepText, stepped := strings.Cut(item, "/")
		if stepped {
			if _, err := strconv.Atoi(stepText); err != nil {
				return false
			}
		}
		if rng == "*" {
			return true
		}
		lo, _, _ := strings.Cut(rng, "-")
		n, err := strconv.Atoi(lo)
		if err != nil {
			return false
		}
		if n == 0 {
			return true
		}
	}
	return false
}

type level int

const (
	none level = iota
	read
	write
)

func (l level) String() string { return [...]string{"none", "read", "write"}[l] }

// grant is the permissions a job's token gets: the job's own, else the
// workflow's; set is false when neither says (the repository's default,
// which may be read-only or write-all).
type grant struct {
	node   *yaml.Node
	where  string // "job" or "workflow"
	line   int
	set    bool
	all    level // read-all, write-all
	scopes map[string]level
	lines  map[string]int
}

func grantOf(f *file, j *job) grant {
	g := grant{node: j.permissions, where: "job"}
	if g.node == nil {
		g.node, g.where = f.permissions, "workflow"
	}
	if g.node == nil {
		g.line = j.line
		return g
	}
	g.set, g.line = true, g.node.Line
	g.scopes, g.lines = map[string]level{}, map[string]int{}
	switch g.node.Kind {
	case yaml.ScalarNode:
		switch g.node.Value {
		case "read-all":
			g.all = read
		case "write-all":
			g.all = write
		}
	case yaml.MappingNode:
		for k, v := range pairs(g.node) {
			switch v.Value {
			case "read":
				g.scopes[k.Value] = read
			case "write":
				g.scopes[k.Value] = write
			}
			g.lines[k.Value] = k.Line
		}
	}
	return g
}

func (g grant) level(scope string) level {
	if l, ok := g.scopes[scope]; ok {
		return l
	}
	return g.all
}

// leadPermissions: a lead's token may write nothing.
func leadPermissions(f *file, j *job) []Finding {
	g := grantOf(f, j)
	if !g.set {
		return []Finding{{File: f.name, Line: j.line, Job: j.id, Rule: RuleLeadWrites,
			Message: fmt.Sprintf("lead job %s sets no permissions: the repository's default token may write", j.id),
			Fix:     "give the job permissions: {discussions: read} (and contents: read if it checks out code)"}}
	}
	if g.all == write {
		return []Finding{{File: f.name, Line: g.line, Job: j.id, Rule: RuleLeadWrites,
			Message: fmt.Sprintf("lead job %s: %s permissions write-all let the model write", j.id, g.where),
			Fix:     "give the job permissions: {discussions: read}"}}
	}
	var out []Finding
	for scope, l := range g.scopes {
		if l == write {
			out = append(out, Finding{File: f.name, Line: g.lines[scope], Job: j.id, Rule: RuleLeadWrites,
				Message: fmt.Sprintf("lead job %s: %s permission %s: write lets the model write", j.id, g.where, scope),
				Fix:     fmt.Sprintf("lower %s to read or none; a lead only reads (claim and verdict write)", scope)})
		}
	}
	sortFindings(out)
	return out
}

// missingPermissions: the job's token holds every scope its recess work
// needs.
func missingPermissions(f *file, j *job, r role) []Finding {
	need := r.needs()
	if len(need) == 0 {
		return nil
	}
	scopes := make([]string, 0, len(need))
	for s := range need {
		scopes = append(scopes, s)
	}
	sort.Strings(scopes)
	want := make([]string, 0, len(scopes))
	for _, s := range scopes {
		want = append(want, s+": "+need[s].String())
	}
	g := grantOf(f, j)
	if !g.set {
		return []Finding{{File: f.name, Line: j.line, Job: j.id, Rule: RuleMissingPermission,
			Message: fmt.Sprintf("job %s sets no permissions: the repository's default token may be read-only", j.id),
			Fix:     fmt.Sprintf("give the job (or the workflow) permissions: {%s}", strings.Join(want, ", "))}}
	}
	var missing []string
	for _, s := range scopes {
		if g.level(s) < need[s] {
			missing = append(missing, s+": "+need[s].String())
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return []Finding{{File: f.name, Line: g.line, Job: j.id, Rule: RuleMissingPermission,
		Message: fmt.Sprintf("job %s lacks %s (%s permissions)", j.id, strings.Join(missing, ", "), g.where),
		Fix:     fmt.Sprintf("add %s to the %s's permissions", strings.Join(missing, ", "), g.where)}}
}

// excessPermissions: a grant (a job's own, or the workflow's for the jobs
// that set none) gives no write scope that none of its recess jobs needs.
// issues: write is allowed beside any writer: recess creates its labels with
// it. A grant a lead or a job recess does not run shares is not judged here
// (the lead has its own rule; the other job's needs are unknown).
func excessPermissions(f *file) []Finding {
	type use struct {
		g     grant
		jobs  []string
		need  map[string]level
		judge bool
	}
	uses := map[*yaml.Node]*use{}
	var order []*yaml.Node
	for _, j := range f.jobs {
		g := grantOf(f, j)
		if !g.set {
			continue
		}
		u, ok := uses[g.node]
		if !ok {
			u = &use{g: g, need: map[string]level{}, judge: true}
			uses[g.node] = u
			order = append(order, g.node)
		}
		r := roleOf(j)
		if !r.recess() || r.lead {
			u.judge = false
			continue
		}
		u.jobs = append(u.jobs, j.id)
		for scope, l := range r.needs() {
			u.need[scope] = max(u.need[scope], l)
		}
		if r.writes() || r.call != "" {
			u.need["issues"] = write
		}
	}
	// The job of a job's own grant; a workflow's grant has none.
	jobOf := func(u *use) string {
		if u.g.where == "job" && len(u.jobs) == 1 {
			return u.jobs[0]
		}
		return ""
	}
	var out []Finding
	for _, n := range order {
		u := uses[n]
		if !u.judge {
			continue
		}
		if u.g.all == write {
			out = append(out, Finding{File: f.name, Line: u.g.line, Job: jobOf(u), Rule: RuleExcessPermission,
				Message: fmt.Sprintf("%s permissions write-all give %s every write scope", u.g.where, strings.Join(u.jobs, ", ")),
				Fix:     "grant only what recess needs (see the README's Permissions)"})
			continue
		}
		var excess []string
		for scope, l := range u.g.scopes {
			if l == write && u.need[scope] < write {
				excess = append(excess, scope)
			}
		}
		sort.Strings(excess)
		for _, scope := range excess {
			out = append(out, Finding{File: f.name, Line: u.g.lines[scope], Job: jobOf(u), Rule: RuleExcessPermission,
				Message: fmt.Sprintf("%s permission %s: write is more than %s needs", u.g.where, scope, strings.Join(u.jobs, ", ")),
				Fix:     fmt.Sprintf("lower %s to read or drop it", scope)})
		}
	}
	return out
}

// writerGroup: a job that writes a record runs in recess-<number> with
// queue: max and is never cancelled in progress.
func writerGroup(f *file, j *job) []Finding {
	c := j.concurrency
	if c == nil {
		c = f.concurrency
	}
	const fix = "give the job concurrency: {group: recess-${{ <the discussion's number> }}, cancel-in-progress: false, queue: max}"
	if c == nil || c.Kind != yaml.MappingNode {
		return []Finding{{File: f.name, Line: j.line, Job: j.id, Rule: RuleWriterGroup,
			Message: fmt.Sprintf("job %s writes a discussion's record outside the discussion's concurrency group", j.id),
			Fix:     fix}}
	}
	line := c.Line
	var out []Finding
	if g := value(lookup(c, "group")); !recessGroup.MatchString(g) {
		out = append(out, Finding{File: f.name, Line: max(keyLine(c, "group"), line), Job: j.id, Rule: RuleWriterGroup,
			Message: fmt.Sprintf("job %s writes a discussion's record in concurrency group %q", j.id, g),
			Fix:     "group: recess-${{ <the discussion's number> }} (never github.workflow: in a called workflow it is the caller's)"})
	}
	if q := value(lookup(c, "queue")); q != "max" {
		out = append(out, Finding{File: f.name, Line: max(keyLine(c, "queue"), line), Job: j.id, Rule: RuleWriterQueue,
			Message: fmt.Sprintf("job %s: concurrency queue is %q: GitHub keeps one pending run per group and cancels the rest", j.id, q),
			Fix:     "queue: max"})
	}
	if v := value(lookup(c, "cancel-in-progress")); v != "" && v != "false" {
		out = append(out, Finding{File: f.name, Line: keyLine(c, "cancel-in-progress"), Job: j.id, Rule: RuleWriterCancel,
			Message: fmt.Sprintf("job %s: cancel-in-progress %s would cut a write short", j.id, v),
			Fix:     "cancel-in-progress: false"})
	}
	return out
}

// checkSetup applies the rules that need every file: the front door names
// an agent workflow that exists and takes recess's three inputs, and
// something sweeps.
func checkSetup(files []*file, names map[string]bool) []Finding {
	var out []Finding
	var doors []*file
	sweeps := false
	byName := map[string]*file{}
	for _, f := range files {
		byName[path.Base(f.name)] = f
	}
	type target struct {
		door *file
		line int
		name string
	}
	var targets []target
	for _, f := range files {
		door := false
		for _, j := range f.jobs {
			r := roleOf(j)
			dispatches := r.call == "front-door"
			for _, c := range r.commands {
				switch c {
				case "auto", "intake", "inbound":
					dispatches = true
					if f.has("schedule") {
						sweeps = sweeps || c == "auto"
					}
				case "sweep", "visit":
					dispatches = true
					sweeps = sweeps || f.has("schedule")
				}
			}
			if r.call == "front-door" && f.has("schedule") {
				sweeps = true
			}
			if !dispatches {
				continue
			}
			if f.has("discussion") || f.has("discussion_comment") {
				door = true
			}
			name, line := "agent.yml", j.usesLine
			if r.workflow != nil {
				name, line = value(r.workflow), r.workflow.Line
			} else if line == 0 {
				line = j.line
			}
			if !strings.Contains(name, "${{") {
				targets = append(targets, target{door: f, line: line, name: name})
			}
		}
		if door {
			doors = append(doors, f)
		}
	}
	seen := map[string]bool{}
	for _, t := range targets {
		key := t.door.name + "\x00" + t.name
		if seen[key] {
			continue
		}
		seen[key] = true
		if agent, ok := byName[t.name]; ok {
			out = append(out, checkAgent(agent)...)
		} else if !names[t.name] { // an unreadable file is reported as such
			out = append(out, Finding{File: t.door.name, Line: t.line, Rule: RuleWorkflowMissing,
				Message: fmt.Sprintf("the agent workflow %s does not exist in %s", t.name, Dir),
				Fix:     fmt.Sprintf("add %s/%s (recess init writes one) or set workflow: to the agent workflow's file name", Dir, t.name)})
		}
	}
	if len(doors) > 0 && !sweeps {
		d := doors[0]
		out = append(out, Finding{File: d.name, Line: max(d.onLine, 1), Rule: RuleNoSweep,
			Message: "nothing sweeps: elapsed triggers never fire and lost events are never caught up",
			Fix:     `add schedule: [{cron: "2-59/5 * * * *"}] to the front door (its plan and visit jobs sweep)`})
	}
	return out
}

// agentInputs are the workflow_dispatch inputs recess sends.
var agentInputs = []string{"correlation_id", "discussion_number", "resume_context"}

// checkAgent: the agent workflow takes recess's dispatch inputs, names its
// runs by the correlation id, and has a claim and a verdict.
func checkAgent(f *file) []Finding {
	var out []Finding
	wd, ok := f.triggers()["workflow_dispatch"]
	if !ok {
		return []Finding{{File: f.name, Line: max(f.onLine, 1), Rule: RuleAgentInputs,
			Message: "the agent workflow has no workflow_dispatch trigger: recess cannot start it",
			Fix:     "on: workflow_dispatch with inputs correlation_id, discussion_number, resume_context"}}
	}
	inputs := lookup(wd, "inputs")
	line := max(keyLine(f.on, "workflow_dispatch"), f.onLine)
	if inputs != nil {
		line = keyLine(wd, "inputs")
	}
	var missing []string
	for _, in := range agentInputs {
		if lookup(inputs, in) == nil {
			missing = append(missing, in)
		}
	}
	if len(missing) > 0 {
		out = append(out, Finding{File: f.name, Line: line, Rule: RuleAgentInputs,
			Message: fmt.Sprintf("the agent workflow lacks the input %s: GitHub refuses recess's dispatch", strings.Join(missing, ", ")),
			Fix:     "declare workflow_dispatch inputs correlation_id and discussion_number (required) and resume_context (default \"\")"})
	}
	if rn := value(f.runName); !strings.Contains(rn, "inputs.correlation_id") {
		line := f.line
		if f.runName != nil {
			line = f.runName.Line
		}
		out = append(out, Finding{File: f.name, Line: max(line, 1), Rule: RuleAgentRunName,
			Message: "the agent workflow's run-name does not carry the correlation id: recess cannot find its runs",
			Fix:     "run-name: agent ${{ inputs.correlation_id }}"})
	}
	claim, verdict := false, false
	for _, j := range f.jobs {
		r := roleOf(j)
		claim = claim || r.call == "claim" || slices.Contains(r.commands, "claim")
		v := r.call == "verdict" || slices.Contains(r.commands, "verdict")
		verdict = verdict || v
		// An adjourned verdict dispatches again for comments written meanwhile: its
		// workflow input must name this file.
		if v {
			name, got, line := path.Base(f.name), "agent.yml", j.line
			if r.workflow != nil {
				got, line = value(r.workflow), r.workflow.Line
			}
			if got != name && !strings.Contains(got, "${{") {
				out = append(out, Finding{File: f.name, Line: line, Job: j.id, Rule: RuleVerdictWorkflow,
					Message: fmt.Sprintf("job %s would dispatch follow-up runs to %s, not to this workflow", j.id, got),
					Fix:     fmt.Sprintf("give the verdict workflow: %s", name)})
			}
		}
	}
	if !claim || !verdict {
		var lack []string
		if !claim {
			lack = append(lack, "claim")
		}
		if !verdict {
			lack = append(lack, "verdict")
		}
		out = append(out, Finding{File: f.name, Line: max(f.line, 1), Rule: RuleAgentJobs,
			Message: fmt.Sprintf("the agent workflow has no %s job", strings.Join(lack, " and no ")),
			Fix:     "call recess's claim.yml first and verdict.yml last (or run the action with command: claim / verdict)"})
	}
	return out
}

func stepName(s step) string {
	switch {
	case s.name != "":
		return s.name
	case s.uses != "":
		return s.uses
	}
	return "run"
}
