package workflows

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
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
	var r report
	byName := map[string]*file{}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".yaml")) {
			continue
		}
		name := path.Join(Dir, e.Name())
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, bad := parseFile(name, data)
		byName[e.Name()] = f
		if bad != nil {
			r = append(r, *bad)
			continue
		}
		files = append(files, f)
		r.check(f)
	}
	r.setup(files, byName)
	slices.SortStableFunc(r, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line)
	})
	return r, nil
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
	workflow yaml.Node
}

func roleOf(j *job) role {
	r := role{lead: j.id == "lead"}
	if m := recessCall.FindStringSubmatch(value(j.Uses)); m != nil {
		r.call = m[1]
		r.branch = strings.EqualFold(value(j.With["state-store"]), "branch")
		r.workflow = j.With["workflow"]
	}
	for _, s := range j.Steps {
		uses := strings.TrimSpace(s.Uses)
		r.lead = r.lead || strings.Contains(s.Run.Value, "recess mcp") ||
			slices.ContainsFunc(agentActions, func(a string) bool { return strings.HasPrefix(uses, a+"@") })
		if !recessAction.MatchString(uses) {
			continue
		}
		cmd := cmp.Or(strings.ToLower(value(s.With["command"])), "auto")
		r.commands = append(r.commands, cmd)
		r.branch = r.branch || strings.EqualFold(value(s.With["state-store"]), "branch")
		if w := s.With["workflow"]; w.Kind != 0 && cmd != "install" {
			r.workflow = w
		}
	}
	return r
}

// target is the agent workflow a job's recess work dispatches: the file its
// workflow input names, at that input's line, else agent.yml (line 0).
func (r role) target() (string, int) {
	if r.workflow.Kind != 0 {
		return value(r.workflow), r.workflow.Line
	}
	return "agent.yml", 0
}

func (r role) recess() bool { return r.call != "" || len(r.commands) > 0 || r.lead }

// writes says whether a direct recess step writes a discussion's record:
// every command but install, status and plan does.
func (r role) writes() bool {
	return slices.ContainsFunc(r.commands, func(c string) bool { return c != "install" && c != "status" && c != "plan" })
}

// does says whether the job calls the reusable workflow or runs the command c.
func (r role) does(c string) bool { return r.call == c || slices.Contains(r.commands, c) }

type level int

const (
	none level = iota
	read
	write
)

var levels = []string{"none", "read", "write"}

func (l level) String() string { return levels[l] }

// levelOf reads a permission's level; anything but read and write is none.
func levelOf(s string) level { return level(max(slices.Index(levels, s), 0)) }

// needs is the token a job's recess work needs: scope to level. A reusable
// workflow needs what the command of the same name does (auto for the front
// door) and contents: read for the policy file's checkout.
func (r role) needs() map[string]level {
	need := map[string]level{}
	add := func(scope string, l level) {
		if l > need[scope] {
			need[scope] = l
		}
	}
	work := r.commands
	if r.call != "" {
		add("contents", read)
		work = append([]string{r.call}, work...)
	}
	for _, c := range work {
		record, actions := write, write // the record's store, dispatches
		switch c {
		case "install":
			continue
		case "plan", "status":
			record, actions = read, none
		case "claim":
			actions = none
		}
		add("discussions", record)
		if r.branch {
			add("contents", record)
		}
		add("actions", actions)
	}
	return need
}

// report collects findings. add's fix comes before the message's format so
// that the format's arguments can follow it.
type report []Finding

func (r *report) add(f *file, line int, job string, rule Rule, fix, format string, args ...any) {
	*r = append(*r, Finding{File: f.name, Line: line, Job: job, Rule: rule, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// check applies the rules that one file decides alone.
func (r *report) check(f *file) {
	// A called workflow's jobs get the caller's grant; the caller's file is judged.
	called := len(f.events) > 0 && !slices.ContainsFunc(f.events, func(e entry[yaml.Node]) bool { return e.key != "workflow_call" })
	anyRecess := false
	for _, j := range f.jobs {
		if !j.role.recess() {
			continue
		}
		anyRecess = true
		if j.role.lead && j.role.writes() {
			r.add(f, j.line, j.id, RuleLeadBesideWriter, "split it into three jobs: claim, a read-only lead, verdict",
				"job %s runs the agent and a recess command that writes", j.id)
		}
		if j.role.lead {
			r.leadPermissions(f, j)
		} else if !called {
			r.missingPermissions(f, j)
		}
		if j.role.writes() {
			r.writerGroup(f, j)
		}
	}
	if !anyRecess {
		return
	}
	if !called {
		r.excessPermissions(f)
	}
	for _, j := range f.jobs {
		for i, s := range j.Steps {
			if strings.Contains(s.Run.Value, "${{") {
				r.add(f, s.Run.Line, j.id, RuleExpressionInRun, `pass the value through the step's env: and use "$NAME" in the script`,
					"job %s step %d (%s) splices ${{ }} into a shell script", j.id, i+1, cmp.Or(s.Name, strings.TrimSpace(s.Uses), "run"))
			}
		}
	}
	var schedule []struct{ Cron yaml.Node }
	if e, ok := f.events.get("schedule"); ok {
		_ = e.val.Decode(&schedule)
	}
	for _, s := range schedule {
		if TopOfHour(value(s.Cron)) {
			r.add(f, s.Cron.Line, "", RuleTopOfHour, `start off the hour, e.g. cron: "2-59/5 * * * *"`,
				"the schedule %q runs at the top of the hour, when GitHub's scheduler is busiest and drops runs", value(s.Cron))
		}
	}
}

// TopOfHour says whether a cron expression's minute field includes 0, when
// GitHub's scheduler is busiest. A field it cannot read is not judged.
func TopOfHour(cron string) bool {
	fields := strings.Fields(cron)
	if len(fields) == 0 {
		return false
	}
	for _, item := range strings.Split(fields[0], ",") {
		rng, step, stepped := strings.Cut(item, "/")
		if _, err := strconv.Atoi(step); stepped && err != nil {
			return false
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

// grant is the permissions a job's token gets: the job's own, else the
// workflow's. node is nil when neither says: the token is then the
// repository's default, which may be read-only or write-all.
type grant struct {
	node   *yaml.Node
	where  string // "job" or "workflow"
	all    level  // read-all, write-all
	scopes keyed[string]
}

func grantOf(f *file, j *job) grant {
	g := grant{node: &j.Permissions, where: "job"}
	if g.node.Kind == 0 {
		g.node, g.where = &f.permissions, "workflow"
	}
	if g.node.Kind == 0 {
		return grant{}
	}
	if all, ok := strings.CutSuffix(g.node.Value, "-all"); ok {
		g.all = levelOf(all)
	}
	_ = g.node.Decode(&g.scopes)
	return g
}

func (g grant) level(scope string) level {
	if s, ok := g.scopes.get(scope); ok {
		return levelOf(s.val)
	}
	return g.all
}

// writesBeyond are the scopes g lets write that need does not, by name.
func (g grant) writesBeyond(need map[string]level) []entry[string] {
	var out []entry[string]
	for _, s := range g.scopes {
		if levelOf(s.val) == write && need[s.key] < write {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b entry[string]) int { return strings.Compare(a.key, b.key) })
	return out
}

// leadPermissions: a lead's token may write nothing.
func (r *report) leadPermissions(f *file, j *job) {
	g := grantOf(f, j)
	switch {
	case g.node == nil:
		r.add(f, j.line, j.id, RuleLeadWrites, "give the job permissions: {discussions: read} (and contents: read if it checks out code)",
			"lead job %s sets no permissions: the repository's default token may write", j.id)
	case g.all == write:
		r.add(f, g.node.Line, j.id, RuleLeadWrites, "give the job permissions: {discussions: read}",
			"lead job %s: %s permissions write-all let the model write", j.id, g.where)
	}
	for _, s := range g.writesBeyond(nil) {
		r.add(f, s.line, j.id, RuleLeadWrites, fmt.Sprintf("lower %s to read or none; a lead only reads (claim and verdict write)", s.key),
			"lead job %s: %s permission %s: write lets the model write", j.id, g.where, s.key)
	}
}

// missingPermissions: the job's token holds every scope its recess work
// needs.
func (r *report) missingPermissions(f *file, j *job) {
	need := j.role.needs()
	g := grantOf(f, j)
	var want, missing []string
	for _, s := range slices.Sorted(maps.Keys(need)) {
		want = append(want, s+": "+need[s].String())
		if g.level(s) < need[s] {
			missing = append(missing, want[len(want)-1])
		}
	}
	switch {
	case len(missing) == 0:
	case g.node == nil:
		r.add(f, j.line, j.id, RuleMissingPermission, fmt.Sprintf("give the job (or the workflow) permissions: {%s}", strings.Join(want, ", ")),
			"job %s sets no permissions: the repository's default token may be read-only", j.id)
	default:
		r.add(f, g.node.Line, j.id, RuleMissingPermission, fmt.Sprintf("add %s to the %s's permissions", strings.Join(missing, ", "), g.where),
			"job %s lacks %s (%s permissions)", j.id, strings.Join(missing, ", "), g.where)
	}
}

// excessPermissions: a grant (a job's own, or the workflow's for the jobs
// that set none) gives no write scope that none of its recess jobs needs.
// issues: write is allowed beside any writer: recess creates its labels with
// it. A grant a lead or a job recess does not run shares is not judged here
// (the lead has its own rule; the other job's needs are unknown).
func (r *report) excessPermissions(f *file) {
	judged := map[*yaml.Node]bool{}
grants:
	for _, first := range f.jobs {
		g := grantOf(f, first)
		if g.node == nil || judged[g.node] {
			continue
		}
		judged[g.node] = true
		var jobs []string
		need := map[string]level{}
		for _, j := range f.jobs {
			if grantOf(f, j).node != g.node {
				continue
			}
			if !j.role.recess() || j.role.lead {
				continue grants
			}
			jobs = append(jobs, j.id)
			for scope, l := range j.role.needs() {
				need[scope] = max(need[scope], l)
			}
			if j.role.writes() || j.role.call != "" {
				need["issues"] = write
			}
		}
		job := ""
		if g.where == "job" { // a workflow's grant has no one job
			job = first.id
		}
		if g.all == write {
			r.add(f, g.node.Line, job, RuleExcessPermission, "grant only what recess needs (see the README's Permissions)",
				"%s permissions write-all give %s every write scope", g.where, strings.Join(jobs, ", "))
		}
		for _, s := range g.writesBeyond(need) {
			r.add(f, s.line, job, RuleExcessPermission, fmt.Sprintf("lower %s to read or drop it", s.key),
				"%s permission %s: write is more than %s needs", g.where, s.key, strings.Join(jobs, ", "))
		}
	}
}

// writerGroup: a job that writes a record runs in recess-<number> with
// queue: max and is never cancelled in progress.
func (r *report) writerGroup(f *file, j *job) {
	c := &j.Concurrency
	if c.Kind == 0 {
		c = &f.concurrency
	}
	if c.Kind != yaml.MappingNode {
		r.add(f, j.line, j.id, RuleWriterGroup, "give the job concurrency: {group: recess-${{ <the discussion's number> }}, cancel-in-progress: false, queue: max}",
			"job %s writes a discussion's record outside the discussion's concurrency group", j.id)
		return
	}
	var keys keyed[string]
	_ = c.Decode(&keys)
	for _, k := range []struct {
		key      string
		ok       func(string) bool
		rule     Rule
		fix, msg string
	}{
		{"group", recessGroup.MatchString, RuleWriterGroup,
			"group: recess-${{ <the discussion's number> }} (never github.workflow: in a called workflow it is the caller's)",
			"job %s writes a discussion's record in concurrency group %q"},
		{"queue", func(v string) bool { return v == "max" }, RuleWriterQueue,
			"queue: max", "job %s: concurrency queue is %q: GitHub keeps one pending run per group and cancels the rest"},
		{"cancel-in-progress", func(v string) bool { return v == "" || v == "false" }, RuleWriterCancel,
			"cancel-in-progress: false", "job %s: cancel-in-progress %s would cut a write short"},
	} {
		e, _ := keys.get(k.key)
		if v := strings.TrimSpace(e.val); !k.ok(v) {
			r.add(f, max(e.line, c.Line), j.id, k.rule, k.fix, k.msg, j.id, v)
		}
	}
}

// setup applies the rules that need every file: the front door names an
// agent workflow that exists and takes recess's three inputs, and something
// sweeps. byName holds every workflow file by base name, nil when unreadable.
func (r *report) setup(files []*file, byName map[string]*file) {
	var door *file // the first file with a job that dispatches on a discussion's events
	sweeps := false
	seen := map[string]bool{}
	for _, f := range files {
		for _, j := range f.jobs {
			dispatches, sweep := j.role.call == "front-door", j.role.call == "front-door"
			for _, c := range j.role.commands {
				dispatches = dispatches || slices.Contains([]string{"auto", "intake", "inbound", "sweep", "visit"}, c)
				sweep = sweep || c == "auto" || c == "sweep" || c == "visit"
			}
			if !dispatches {
				continue
			}
			sweeps = sweeps || sweep && f.has("schedule")
			if door == nil && (f.has("discussion") || f.has("discussion_comment")) {
				door = f
			}
			name, line := j.role.target()
			line = cmp.Or(line, j.Uses.Line, j.line)
			if strings.Contains(name, "${{") || seen[f.name+"\x00"+name] {
				continue
			}
			seen[f.name+"\x00"+name] = true
			agent, ok := byName[name]
			switch {
			case agent != nil && seen[name]:
				// Checked for another file that dispatches it (the front
				// door and the sweep's file of sweep-only-while-waiting).
			case agent != nil:
				seen[name] = true
				r.agent(agent)
			case !ok: // an unreadable file is reported as such
				r.add(f, line, "", RuleWorkflowMissing, fmt.Sprintf("add %s/%s (recess init writes one) or set workflow: to the agent workflow's file name", Dir, name),
					"the agent workflow %s does not exist in %s", name, Dir)
			}
		}
	}
	if door != nil && !sweeps {
		r.add(door, max(door.onLine, 1), "", RuleNoSweep, `add schedule: [{cron: "2-59/5 * * * *"}] to the front door (its plan and visit jobs sweep)`,
			"nothing sweeps: elapsed triggers never fire and lost events are never caught up")
	}
}

// agent: the agent workflow takes recess's dispatch inputs, names its runs
// by the correlation id, and has a claim and a verdict.
func (r *report) agent(f *file) {
	dispatch, ok := f.events.get("workflow_dispatch")
	if !ok {
		r.add(f, max(f.onLine, 1), "", RuleAgentInputs, "on: workflow_dispatch with inputs correlation_id, discussion_number, resume_context",
			"the agent workflow has no workflow_dispatch trigger: recess cannot start it")
		return
	}
	var settings keyed[keyed[yaml.Node]]
	_ = dispatch.val.Decode(&settings)
	inputs, ok := settings.get("inputs")
	line := max(dispatch.line, f.onLine)
	if ok {
		line = inputs.line
	}
	var missing []string
	for _, in := range []string{"correlation_id", "discussion_number", "resume_context"} {
		if _, ok := inputs.val.get(in); !ok {
			missing = append(missing, in)
		}
	}
	if len(missing) > 0 {
		r.add(f, line, "", RuleAgentInputs, `declare workflow_dispatch inputs correlation_id and discussion_number (required) and resume_context (default "")`,
			"the agent workflow lacks the input %s: GitHub refuses recess's dispatch", strings.Join(missing, ", "))
	}
	if !strings.Contains(value(f.runName), "inputs.correlation_id") {
		r.add(f, cmp.Or(f.runName.Line, f.line), "", RuleAgentRunName, "run-name: agent ${{ inputs.correlation_id }}",
			"the agent workflow's run-name does not carry the correlation id: recess cannot find its runs")
	}
	var lack []string
	for _, c := range []string{"claim", "verdict"} {
		if !slices.ContainsFunc(f.jobs, func(j *job) bool { return j.role.does(c) }) {
			lack = append(lack, c)
		}
	}
	for _, j := range f.jobs {
		// An adjourned verdict dispatches again for comments written meanwhile:
		// its workflow input must name this file.
		name := path.Base(f.name)
		got, line := j.role.target()
		if j.role.does("verdict") && got != name && !strings.Contains(got, "${{") {
			r.add(f, cmp.Or(line, j.line), j.id, RuleVerdictWorkflow, fmt.Sprintf("give the verdict workflow: %s", name),
				"job %s would dispatch follow-up runs to %s, not to this workflow", j.id, got)
		}
	}
	if len(lack) > 0 {
		r.add(f, f.line, "", RuleAgentJobs, "call recess's claim.yml first and verdict.yml last (or run the action with command: claim / verdict)",
			"the agent workflow has no %s job", strings.Join(lack, " and no "))
	}
}
