package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
)

// agentActions are actions that run a model. A job using one is a lead.
var agentActions = []string{
	"anthropics/claude-code-action",
	"anthropics/claude-code-base-action",
	"openai/codex-action",
	"google-github-actions/run-gemini-cli",
	"google-gemini/gemini-cli-action",
	"actions/ai-inference",
}

// recessAction matches a step that runs the recess action: this repository
// (uses: ./) or OWNER/recess@REF.
var recessAction = regexp.MustCompile(`^(?:\./?|([A-Za-z0-9_.-]+/recess)@(.+))$`)

// recessCall matches a job that calls a workflow of recess's, published
// (OWNER/recess/.github/workflows/NAME.yml@REF) or local (./.github/…).
var recessCall = regexp.MustCompile(`^(?:([A-Za-z0-9_.-]+/recess)/|\./)\.github/workflows/([A-Za-z0-9_.-]+)\.ya?ml(?:@(.+))?$`)

// use is one place a job runs recess: its call of a reusable workflow, or
// a step that runs the action.
type use struct {
	line    int
	call    string // the reusable workflow called, by piece (front-door); "" for a step
	command string // a step's command, auto when not given
	with    map[string]yaml.Node
	step    int    // the step's index in the job; -1 for a call
	local   bool   // this repository's own: ./ or ./.github/workflows/…
	repo    string // OWNER/recess; "" when local
	ref     string
}

// release is which recess a use runs: OWNER/recess@REF, or ./ for this
// repository's own.
func (u use) release() string {
	if u.local {
		return "./"
	}
	return strings.ToLower(u.repo) + "@" + u.ref
}

// role is what a job does for recess.
type role struct {
	lead     bool
	mcp      bool     // it starts recess mcp
	call     string   // front-door, claim or verdict: the reusable workflow it calls
	unknown  string   // a workflow of recess's it calls that recess does not ship
	commands []string // the recess commands its steps run
	uses     []use
	visit    yaml.Node // a visit's discussion input
}

// roleOf reads what a job does for recess; pieces are the reusable
// workflows recess ships, by name.
func roleOf(j *job, pieces map[string]declared) role {
	r := role{lead: j.id == "lead"}
	if m := recessCall.FindStringSubmatch(value(j.Uses)); m != nil {
		_, shipped := pieces[m[2]]
		switch {
		case shipped:
			r.call = m[2]
			r.uses = append(r.uses, use{line: j.Uses.Line, call: m[2], command: m[2], with: j.With, step: -1,
				local: m[1] == "", repo: m[1], ref: m[3]})
		case m[1] != "": // a local workflow of another name is the repository's own
			r.unknown = m[2] + ".yml"
		}
	}
	for i, s := range j.Steps {
		uses := value(s.Uses)
		r.lead = r.lead || slices.ContainsFunc(agentActions, func(a string) bool {
			return strings.HasPrefix(uses, a+"@") || strings.HasPrefix(uses, a+"/")
		}) || runsAgentCLI(s.Run.Value)
		m := recessAction.FindStringSubmatch(uses)
		if m == nil {
			continue
		}
		cmd := cmp.Or(strings.ToLower(value(s.With["command"])), "auto")
		r.commands = append(r.commands, cmd)
		r.uses = append(r.uses, use{line: cmp.Or(s.Uses.Line, s.line), command: cmd, with: s.With, step: i,
			local: m[1] == "", repo: m[1], ref: m[2]})
		if cmd == "visit" {
			r.visit = s.With["discussion"]
		}
	}
	for _, n := range j.texts() {
		r.mcp = r.mcp || len(mcpFlags(n.Value)) > 0
	}
	r.lead = r.lead || r.mcp
	return r
}

// target is the agent workflow a job's recess work dispatches: the file its
// workflow input names, at that input's line, else the input's default
// (line 0); "" when nothing in the job takes one.
func (c *checker) target(j *job) (name string, line int) {
	for _, u := range j.role.uses {
		if d := c.declaredFor(u); u.command != "install" && d.has("workflow") {
			name, line = d.value(u.with, "workflow"), 0
			if n, ok := u.with["workflow"]; ok {
				line = n.Line
			}
		}
	}
	return name, line
}

func (r role) recess() bool { return len(r.uses) > 0 || r.lead }

// writers are the commands that write a thread's record (install, status
// and plan do not; a command recess does not know is reported as such).
var writers = []string{"auto", "intake", "inbound", "verdict", "sweep", "visit", "claim"}

// writes says whether a direct recess step writes a thread's record.
func (r role) writes() bool {
	return slices.ContainsFunc(r.commands, func(c string) bool { return slices.Contains(writers, c) })
}

// does says whether the job calls the reusable workflow or runs the command c.
func (r role) does(c string) bool { return r.call == c || slices.Contains(r.commands, c) }

// doorCommands answer a thread's events: the front door's reusable
// workflow, and the commands that take an event.
var doorCommands = []string{"front-door", "auto", "intake", "inbound"}

func (u use) answersEvents() bool { return slices.Contains(doorCommands, u.command) }

// doorWork says whether the job answers a thread's events.
func (r role) doorWork() bool { return slices.ContainsFunc(r.uses, use.answersEvents) }

// sweepWork says whether the job sweeps when a schedule runs it.
func (r role) sweepWork() bool {
	return r.call == "front-door" || slices.ContainsFunc(r.commands, func(c string) bool { return c == "auto" || c == "sweep" || c == "visit" })
}

// dispatches says whether the job's recess work starts agent runs.
func (r role) dispatches() bool {
	return r.doorWork() || slices.ContainsFunc(r.commands, func(c string) bool { return c == "sweep" || c == "visit" })
}

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

// needs is the token a job's recess work needs, scope to level, in a setup
// that serves threads and keeps records on a branch (the front door's
// choices, which every piece shares). A reusable workflow needs what the
// command of the same name does (auto for the front door) and contents:
// read for the policy file's checkout. Work that answers events or sweeps
// creates recess's labels the first time: issues: write.
func (r role) needs(threads []string, branch bool) map[string]level {
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
		for _, t := range threads {
			add(t, record) // a kind's scope is its name
		}
		if branch {
			add("contents", record)
		}
		add("actions", actions)
		if slices.Contains(doorCommands, c) || c == "sweep" || c == "visit" {
			add("issues", write)
		}
	}
	return need
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
func (c *checker) leadPermissions(f *file, j *job) {
	g := grantOf(f, j)
	read := Grant("lead", c.threads, false)
	switch {
	case g.node == nil:
		c.r.add(f, j.line, j.id, RuleLeadWrites, fmt.Sprintf("give the job permissions: %s (and contents: read if it checks out code)", read),
			"job %s runs the model and sets no permissions: the repository's default token may write", j.id)
	case g.all == write:
		c.r.add(f, g.node.Line, j.id, RuleLeadWrites, fmt.Sprintf("give the job permissions: %s", read),
			"job %s runs the model with %s permissions write-all", j.id, g.where)
	}
	for _, s := range g.writesBeyond(nil) {
		c.r.add(f, s.line, j.id, RuleLeadWrites, fmt.Sprintf("lower %s to read or none; the model only reads (claim and verdict write)", s.key),
			"job %s runs the model with %s permission %s: write", j.id, g.where, s.key)
	}
}

// missingPermissions: the job's token holds every scope its recess work
// needs.
func (c *checker) missingPermissions(f *file, j *job) {
	need := j.role.needs(c.threads, c.branch)
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
		c.r.add(f, j.line, j.id, RuleMissingPermission, fmt.Sprintf("give the job (or the workflow) permissions: {%s}", strings.Join(want, ", ")),
			"job %s sets no permissions: the repository's default token may be read-only", j.id)
	default:
		c.r.add(f, g.node.Line, j.id, RuleMissingPermission, fmt.Sprintf("add %s to the %s's permissions", strings.Join(missing, ", "), g.where),
			"job %s lacks %s (%s permissions)", j.id, strings.Join(missing, ", "), g.where)
	}
}

// excessPermissions: a grant (a job's own, or the workflow's for the jobs
// that set none) gives no write scope that none of its recess jobs needs.
// issues: write is allowed beside any writer: recess creates its labels with
// it. A grant a lead or a job recess does not run shares is not judged here
// (the lead has its own rule; the other job's needs are unknown).
func (c *checker) excessPermissions(f *file) {
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
			for scope, l := range j.role.needs(c.threads, c.branch) {
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
			c.r.add(f, g.node.Line, job, RuleExcessPermission, "grant only what recess needs (see the README's Permissions)",
				"%s permissions write-all give %s every write scope", g.where, strings.Join(jobs, ", "))
		}
		for _, s := range g.writesBeyond(need) {
			c.r.add(f, s.line, job, RuleExcessPermission, fmt.Sprintf("lower %s to read or drop it", s.key),
				"%s permission %s: write is more than %s needs", g.where, s.key, strings.Join(jobs, ", "))
		}
	}
}

// group is a concurrency setting: a bare group name, or a mapping.
type group struct {
	node   *yaml.Node // nil when none is set
	name   entry[string]
	queue  entry[string]
	cancel entry[string]
}

func groupOf(n *yaml.Node) group {
	g := group{node: n}
	switch n.Kind {
	case 0:
		g.node = nil
	case yaml.ScalarNode:
		g.name = entry[string]{key: "group", line: n.Line, val: value(*n)}
	case yaml.MappingNode:
		var keys keyed[string]
		_ = n.Decode(&keys)
		g.name, _ = keys.get("group")
		g.queue, _ = keys.get("queue")
		g.cancel, _ = keys.get("cancel-in-progress")
	}
	for _, e := range []*entry[string]{&g.name, &g.queue, &g.cancel} {
		e.val = strings.TrimSpace(e.val)
		e.line = max(e.line, n.Line)
	}
	return g
}

// cancels says whether the group cancels a run in progress; drops whether
// it keeps one pending run and cancels the rest.
func (g group) cancels() bool { return g.cancel.val != "" && g.cancel.val != "false" }
func (g group) drops() bool   { return g.queue.val != "max" }

// threadGroup reads a group named recess-${{ A || B }}: its operands.
var threadGroup = regexp.MustCompile(`^recess-\$\{\{\s*(.*?)\s*\}\}$`)

func operands(expr string) []string {
	var out []string
	for _, o := range strings.Split(expr, "||") {
		out = append(out, strings.Join(strings.Fields(o), ""))
	}
	return out
}

// dispatchNumbers are the expressions that are a thread's number in a
// dispatched run.
var dispatchNumbers = []string{"inputs.discussion_number", "github.event.inputs.discussion_number"}

// wantGroup is the one-writer group a writing job must run in: the
// expression, and whether a group holds it (every operand a thread's
// number where the job runs, every served kind's among them).
func (c *checker) wantGroup(j *job) (want string, ok func(string) bool) {
	switch {
	case j.role.does("visit"):
		v := value(j.role.visit)
		if m := expression.FindString(v); m == v && v != "" {
			inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(v, "${{"), "}}"))
			return "recess-${{ " + inner + " }}", groupHolds(func(ops []string) bool { return slices.Equal(ops, operands(inner)) })
		}
		return "recess-" + cmp.Or(v, "<the discussion input>"), func(g string) bool { return v != "" && g == "recess-"+v }
	case j.role.does("claim") || j.role.does("verdict"):
		return "recess-${{ inputs.discussion_number }}", groupHolds(func(ops []string) bool { return within(ops, dispatchNumbers) })
	}
	var need, numbers []string
	for _, k := range threadKinds {
		numbers = append(numbers, k.number)
	}
	for _, t := range c.threads {
		if n := threadKinds[t].number; !slices.Contains(need, n) {
			need = append(need, n)
		}
	}
	return "recess-${{ " + strings.Join(need, " || ") + " }}", groupHolds(func(ops []string) bool { return within(ops, numbers) && within(need, ops) })
}

// groupHolds is a check of a group named recess-${{ … }} by its operands.
func groupHolds(accept func(ops []string) bool) func(string) bool {
	return func(g string) bool {
		m := threadGroup.FindStringSubmatch(g)
		return m != nil && accept(operands(m[1]))
	}
}

// within says whether every one of some is among all.
func within(some, all []string) bool {
	return !slices.ContainsFunc(some, func(s string) bool { return !slices.Contains(all, s) })
}

// writerGroup: a job that writes a record runs in its thread's group,
// recess-<number> with queue: max, and is never cancelled in progress. A
// sweep that writes every waiting thread in one job cannot.
func (c *checker) writerGroup(f *file, j *job) {
	if j.role.does("sweep") || j.role.does("auto") && f.has("schedule") && !strings.Contains(value(j.If), "github.event_name") {
		c.r.add(f, j.line, j.id, RuleWriterGroup, "sweep with a plan job and a visit job per discussion (recess's front-door.yml does; .github/examples/recess-sweep.yml shows the steps), and keep this job to events: if: github.event_name != 'schedule'",
			"job %s sweeps: it writes every waiting discussion's record in one job, outside each discussion's concurrency group", j.id)
		return
	}
	g := groupOf(&j.Concurrency)
	if g.node == nil {
		g = groupOf(&f.concurrency)
	}
	want, ok := c.wantGroup(j)
	concurrency := fmt.Sprintf("concurrency: {group: %q, cancel-in-progress: false, queue: max}", want)
	if g.node == nil {
		c.r.add(f, j.line, j.id, RuleWriterGroup, "give the job "+concurrency,
			"job %s writes a discussion's record outside the discussion's concurrency group", j.id)
		return
	}
	if !ok(g.name.val) {
		c.r.add(f, g.name.line, j.id, RuleWriterGroup, fmt.Sprintf("group: %s (the thread's number, as every other recess job on it names its group; never github.workflow: in a called workflow it is the caller's)", want),
			"job %s writes a discussion's record in concurrency group %q, not the thread's", j.id, g.name.val)
	}
	if g.drops() {
		c.r.add(f, g.queue.line, j.id, RuleWriterQueue, "queue: max",
			"job %s: concurrency queue is %q: GitHub keeps one pending run per group and cancels the rest", j.id, g.queue.val)
	}
	if g.cancels() {
		c.r.add(f, g.cancel.line, j.id, RuleWriterCancel, "cancel-in-progress: false",
			"job %s: cancel-in-progress %s would cut a write short", j.id, g.cancel.val)
	}
}

// workflowGroup: a workflow-level group over jobs that carry their own
// (or call recess's workflows, whose jobs do) neither cancels them, nor
// drops pending runs, nor shares their group's name (GitHub cancels a job
// whose group its own workflow holds: a deadlock). A writer without a
// group of its own is judged by writerGroup against this one.
func (c *checker) workflowGroup(f *file) {
	g := groupOf(&f.concurrency)
	if g.node == nil {
		return
	}
	writers := 0
	for _, j := range f.jobs {
		switch {
		case j.role.writes() && j.Concurrency.Kind == 0:
			return
		case j.role.writes() || j.role.call != "":
			writers++
		}
	}
	if writers == 0 {
		return
	}
	var why string
	switch {
	case threadGroup.MatchString(g.name.val):
		why = "its group is a thread's, which the jobs' own groups also hold: GitHub cancels them as a deadlock"
	case g.cancels():
		why = fmt.Sprintf("cancel-in-progress %s cancels a run whose jobs are writing", g.cancel.val)
	case g.drops():
		why = "without queue: max GitHub keeps one pending run and cancels the rest, so events are lost"
	default:
		return
	}
	c.r.add(f, g.node.Line, "", RuleWorkflowGroup, "remove the workflow's concurrency: each job that writes has its own group (recess-<number>, queue: max)",
		"the workflow-level concurrency holds the jobs that write discussions' records: %s", why)
}

// staleGuard matches one condition that skips a job when claim says stale.
var staleGuard = regexp.MustCompile(`^(?:needs\.([A-Za-z0-9_-]+)\.outputs\.stale(==|!=)'(false|true)'|'(false|true)'(==|!=)needs\.([A-Za-z0-9_-]+)\.outputs\.stale)$`)

// leadStale: a lead in an agent workflow runs only when its claim said the
// run is the one recess expects (stale is 'false').
func (c *checker) leadStale(f *file, j *job, claim *job) {
	fix := fmt.Sprintf("if: needs.%s.outputs.stale == 'false'", claim.id)
	if !slices.Contains(j.needs(), claim.id) {
		c.r.add(f, j.line, j.id, RuleLeadStale, fmt.Sprintf("needs: %s and %s", claim.id, fix),
			"job %s runs the model without waiting for job %s: a duplicate or superseded dispatch runs it again", j.id, claim.id)
		return
	}
	cond := strings.TrimSpace(value(j.If))
	if m := expression.FindString(cond); m == cond && cond != "" {
		cond = strings.TrimSuffix(strings.TrimPrefix(cond, "${{"), "}}")
	}
	form, status := "", false // the guard's form; a status function in the condition
	for _, part := range conjuncts(cond) {
		p := strings.Join(strings.Fields(part), "")
		if m := staleGuard.FindStringSubmatch(p); m != nil && cmp.Or(m[1], m[6]) == claim.id {
			switch op, v := cmp.Or(m[2], m[5]), cmp.Or(m[3], m[4]); {
			case op == "==" && v == "false":
				form = "== 'false'"
			case op == "!=" && v == "true" && form == "":
				form = "!= 'true'"
			}
		}
		status = status || p == "always()" || strings.Contains(p, "failure()") || strings.Contains(p, "cancelled()")
	}
	// A claim that failed leaves stale empty, which != 'true' lets through
	// once a status function runs the job anyway.
	if form == "" || form == "!= 'true'" && status {
		c.r.add(f, cmp.Or(j.If.Line, j.line), j.id, RuleLeadStale, fix,
			"job %s runs the model even when job %s says stale (a duplicate or superseded dispatch)", j.id, claim.id)
	}
}

// conjuncts splits a condition at its top-level &&; a top-level || makes
// it one part, which no single guard then holds.
func conjuncts(cond string) []string {
	var parts []string
	depth, start := 0, 0
	quoted := false
	for i := 0; i < len(cond); i++ {
		switch ch := cond[i]; {
		case ch == '\'':
			quoted = !quoted
		case quoted:
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case depth == 0 && strings.HasPrefix(cond[i:], "||"):
			return []string{cond}
		case depth == 0 && strings.HasPrefix(cond[i:], "&&"):
			parts = append(parts, cond[start:i])
			start = i + 2
			i++
		}
	}
	return append(parts, cond[start:])
}

// inputs: every input a job hands recess is one the action or the
// reusable workflow declares, and a value with choices is one of them.
func (c *checker) inputs(f *file, j *job) {
	if j.role.unknown != "" {
		pieces := slices.Sorted(maps.Keys(c.shipped.reusable))
		fix := fmt.Sprintf("call one of recess's reusable workflows: %s.yml", strings.Join(pieces, ".yml, "))
		if n := nearest(strings.TrimSuffix(j.role.unknown, ".yml"), pieces); n != "" {
			fix = fmt.Sprintf("call %s.yml", n)
		}
		c.r.add(f, j.Uses.Line, j.id, RuleWorkflowMissing, fix, "job %s calls %s, which recess does not ship", j.id, j.role.unknown)
	}
	for _, u := range j.role.uses {
		d := c.declaredFor(u)
		before := len(c.r)
		for _, name := range slices.SortedFunc(maps.Keys(u.with), func(a, b string) int { return u.with[a].Line - u.with[b].Line }) {
			n := u.with[name]
			if !d.has(name) {
				fix := fmt.Sprintf("remove it (%s declares: %s)", d.file, strings.Join(d.names, ", "))
				if near := nearest(name, d.names); near != "" {
					fix = fmt.Sprintf("write %s:", near)
				}
				c.r.add(f, n.Line, j.id, RuleUnknownInput, fix, "job %s: %s declares no input %s: %s", j.id, d.file, name, unknownEffect(u))
				continue
			}
			if len(c.outsideChoices(name, value(n))) > 0 && c.isDoor(j, u) {
				c.suspect[name] = true
			}
			for _, bad := range c.outsideChoices(name, value(n)) {
				ch, _ := c.known.choice(name)
				fix := fmt.Sprintf("%s: one of %s", name, strings.Join(ch.Values, ", "))
				if ch.List {
					fix = fmt.Sprintf("%s: a comma-separated list of %s", name, strings.Join(ch.Values, ", "))
				}
				if near := nearest(bad, ch.Values); near != "" {
					fix = fmt.Sprintf("write %s instead of %s", near, bad)
				}
				c.r.add(f, n.Line, j.id, RuleInputChoice, fix, "job %s: %s %q is not one of %s", j.id, name, bad, strings.Join(ch.Values, ", "))
			}
		}
		if len(c.r) == before {
			c.refused(f, j, u)
		}
	}
}

// isDoor says whether u is the front door's use of recess.
func (c *checker) isDoor(j *job, u use) bool {
	return c.door != nil && c.door.j == j && c.door.use.line == u.line
}

// outsideChoices are the values of an input with choices that are not
// among them; none for an expression, known only when the workflow runs.
func (c *checker) outsideChoices(name, v string) []string {
	ch, ok := c.known.choice(name)
	if !ok || v == "" || isExpression(v) {
		return nil
	}
	given := []string{v}
	if ch.List {
		given = text.Items(v)
	}
	var out []string
	for _, g := range given {
		if !slices.Contains(ch.Values, strings.ToLower(g)) {
			out = append(out, g)
		}
	}
	return out
}

// refused: the run accepts the inputs a use hands it, as far as they are
// known before it runs (Known.Validate, the run's own check).
func (c *checker) refused(f *file, j *job, u use) {
	if c.known.Validate == nil || u.command == "install" {
		return
	}
	err := c.known.Validate(func(name string) string {
		if name == "command" && u.call != "" {
			if u.call == "front-door" {
				return "auto"
			}
			return u.call
		}
		if v := value(u.with[name]); !isExpression(v) {
			return v
		}
		return ""
	})
	if err == nil {
		return
	}
	field, reason := "", err.Error()
	var fe *wait.FieldError
	if errors.As(err, &fe) {
		field, reason = fe.Field, fe.Reason
	}
	if _, key, ok := strings.Cut(field, PolicyFile); ok && strings.HasPrefix(field, "config ") {
		// The repository's policy file: every piece reads it, one finding says it.
		if !c.policyReported {
			c.policyReported = true
			var line int
			_, _ = fmt.Sscanf(reason, "line %d:", &line)
			key = strings.TrimPrefix(key, ": ")
			c.r = append(c.r, Finding{File: PolicyFile, Line: max(line, 1), Rule: RuleInputRefused,
				Message: fmt.Sprintf("recess would refuse every run: %s", strings.TrimPrefix(key+": "+reason, ": ")),
				Fix:     fmt.Sprintf("correct %s: %s", cmp.Or(key, "the file"), reason)})
		}
		return
	}
	line := u.line
	if n, ok := u.with[strings.TrimPrefix(field, "input ")]; ok {
		line = n.Line
	}
	if c.isDoor(j, u) {
		c.suspect[strings.TrimPrefix(field, "input ")] = true
	}
	c.r.add(f, line, j.id, RuleInputRefused, fmt.Sprintf("correct %s: %s", cmp.Or(field, "the inputs"), reason),
		"job %s: recess would refuse every run: %s", j.id, err)
}

// PolicyFile is where a repository keeps recess's policy, which every run
// reads under its inputs.
const PolicyFile = ".github/recess.yml"

// unknownEffect is what an undeclared input does.
func unknownEffect(u use) string {
	if u.call != "" {
		return "GitHub refuses to run the workflow"
	}
	return "recess never reads it"
}

// declaredFor is what a use of recess declares: its reusable workflow's
// inputs, or the action's (this repository's own files for a local use,
// when it has them).
func (c *checker) declaredFor(u use) declared {
	if u.call == "" {
		if u.local && c.localAction != nil {
			return *c.localAction
		}
		return c.shipped.action
	}
	if f := c.byName[u.call+".yml"]; u.local && f != nil {
		if d, ok := callInputs(f); ok {
			return d
		}
	}
	return c.shipped.reusable[u.call]
}

// mcpFlags: every recess mcp command line in the job gives only flags
// recess mcp knows.
func (c *checker) mcpFlags(f *file, j *job) {
	if len(c.known.MCPFlags) == 0 {
		return
	}
	for _, n := range j.texts() {
		for _, flags := range mcpFlags(n.Value) {
			for _, fl := range flags {
				if slices.Contains(c.known.MCPFlags, fl) {
					continue
				}
				fix := fmt.Sprintf("remove --%s (recess mcp knows --%s)", fl, strings.Join(c.known.MCPFlags, ", --"))
				if near := nearest(fl, c.known.MCPFlags); near != "" {
					fix = fmt.Sprintf("write --%s", near)
				}
				c.r.add(f, f.lineOf(n.Line, "-"+fl), j.id, RuleMCPFlag, fix,
					"job %s starts recess mcp with --%s, a flag it does not know: it exits before the model sees a tool", j.id, fl)
			}
		}
	}
}

// pullRequestCode names a pull request's code in an expression;
// pullRequestFetch fetches it in a script.
var (
	pullRequestCode  = regexp.MustCompile(`github\.event\.pull_request\.head\.|github\.head_ref|refs/pull/|github\.event\.number|github\.event\.pull_request\.number|pull_request\.merge_commit_sha`)
	pullRequestFetch = regexp.MustCompile(`gh pr checkout|git (?:fetch|pull)[^\n]*pull/`)
)

// pullRequestHead: a job that pull_request_target runs never checks out
// the pull request's code: it would run with the base repository's token
// and secrets.
func (c *checker) pullRequestHead(f *file, j *job) {
	if !f.has("pull_request_target") {
		return
	}
	for _, s := range j.Steps {
		line := 0
		if strings.HasPrefix(value(s.Uses), "actions/checkout@") {
			for _, k := range []string{"ref", "repository"} {
				if n := s.With[k]; pullRequestCode.MatchString(n.Value) {
					line = n.Line
				}
			}
		}
		if pullRequestFetch.MatchString(s.Run.Value) || pullRequestCode.MatchString(s.Run.Value) && strings.Contains(s.Run.Value, "git ") {
			line = s.Run.Line
		}
		if line != 0 {
			c.r.add(f, line, j.id, RulePullRequestHead, "check out the base branch (drop ref:): run a pull request's code under pull_request, whose token is read-only and has no secrets",
				"job %s checks out the pull request's code under pull_request_target, beside the base repository's token and secrets", j.id)
		}
	}
}

// schedule: every schedule is a list of five-field crons, off the top of
// the hour.
func (c *checker) schedule(f *file) {
	e, ok := f.events.get("schedule")
	if !ok {
		return
	}
	var schedule []struct{ Cron yaml.Node }
	if e.val.Kind != yaml.SequenceNode || e.val.Decode(&schedule) != nil {
		c.r.add(f, e.line, "", RuleCron, `schedule: [{cron: "2-59/5 * * * *"}]`, "schedule is not a list of crons: GitHub refuses the workflow")
		return
	}
	for _, s := range schedule {
		cron := value(s.Cron)
		if err := CheckCron(cron); err != nil {
			c.r.add(f, cmp.Or(s.Cron.Line, e.line), "", RuleCron, `cron: "2-59/5 * * * *" (minute hour day-of-month month day-of-week)`,
				"the schedule %q: %v", cron, err)
			continue
		}
		if TopOfHour(cron) {
			c.r.add(f, s.Cron.Line, "", RuleTopOfHour, `start off the hour, e.g. cron: "2-59/5 * * * *"`,
				"the schedule %q runs at the top of the hour, when GitHub's scheduler is busiest and drops runs", cron)
		}
	}
}
