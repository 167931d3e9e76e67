package workflows

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// piece is one job's recess work in the setup, with the use that does it.
type piece struct {
	f   *file
	j   *job
	use use
	d   declared // what the use declares
}

// given is the input's value in the piece, else the piece's default; ok is
// false when the piece has no such input.
func (p *piece) given(name string) (v string, ok bool) {
	if !p.d.has(name) {
		return "", false
	}
	return p.d.value(p.use.with, name), true
}

// line is where the piece sets an input, else where it uses recess.
func (p *piece) line(name string) int {
	if n, ok := p.use.with[name]; ok {
		return n.Line
	}
	return p.use.line
}

// threadKinds are the kinds of thread a front door serves, by their value
// of input threads: the kind a record stores, the expression that is a
// thread's number in its events and the events it reaches recess by: the
// one that starts a conversation and the one that adds a comment. A kind's
// permission scope is its name. The one table of thread events: the action
// reads its events through ThreadEvent, its input through ThreadsValues.
var threadKinds = map[string]threadKind{
	"discussions":   {state.KindDiscussion, "github.event.discussion.number", []threadEvent{{"discussion", "created", "created, deleted, transferred, locked, unlocked", lostThread}, {"discussion_comment", "created", "created, edited, deleted", lostComment}}},
	"issues":        {state.KindIssue, "github.event.issue.number", []threadEvent{{"issues", "opened", "opened, edited, closed, reopened, locked, unlocked, deleted, transferred", lostThread}, {"issue_comment", "created", "created, edited, deleted", lostComment}}},
	"pull-requests": {state.KindPullRequest, "github.event.issue.number", []threadEvent{{"issue_comment", "created", "created, edited, deleted", lostComment}}},
}

type threadKind struct {
	kind   state.Kind
	number string
	events []threadEvent
}

// ThreadsValues are the values of input threads, sorted.
func ThreadsValues() []string { return slices.Sorted(maps.Keys(threadKinds)) }

// ThreadsValue is the value of input threads that names kind k.
func ThreadsValue(k state.Kind) string {
	for _, v := range ThreadsValues() {
		if threadKinds[v].kind == k {
			return v
		}
	}
	return ""
}

// ThreadEvent says what the event name is about when it is a thread's: the
// kind of thread (an issue_comment's is the issue's; its payload tells a
// pull request's apart), the payload member that is the thread, and the
// action that starts one ("" for a comment's event, whose every action is
// about an existing thread).
func ThreadEvent(name string) (kind state.Kind, member, opens string, ok bool) {
	for _, v := range ThreadsValues() {
		k := threadKinds[v]
		for _, e := range k.events {
			if e.event != name {
				continue
			}
			if e.lost == lostThread {
				opens = e.needs
			}
			member = strings.TrimSuffix(strings.TrimPrefix(k.number, "github.event."), ".number")
			return k.kind, member, opens, true
		}
	}
	return "", "", "", false
}

// threadEvent is one event a kind of thread reaches recess by, with the
// activity type recess needs of it, those a front door lists, and what a
// front door that misses it loses.
type threadEvent struct{ event, needs, types, lost string }

// What a front door loses without a thread's event.
const (
	lostThread  = "a new thread never starts an agent run"
	lostComment = "a comment never wakes recess until the next sweep, and never starts a run"
)

// on is the event as a front door's on: lists it.
func (e threadEvent) on() string { return fmt.Sprintf("%s: {types: [%s]}", e.event, e.types) }

// FrontDoorOn is what a front door's on: lists for kinds of thread
// ("discussions", "issues", "pull-requests"), one "event: {types: [...]}"
// each, an event two kinds share once: what recess init writes and what
// check asks for.
func FrontDoorOn(threads ...string) []string {
	var on []string
	for _, t := range threads {
		for _, e := range threadKinds[t].events {
			if !slices.Contains(on, e.on()) {
				on = append(on, e.on())
			}
		}
	}
	return on
}

// ParseThreads reads a value of input threads as recess does (comma
// separated, without case): the kinds it names, in its order, once each
// (none listed: nil). An item that names no kind is refused with a field
// error naming field; the kinds the other items name are still returned,
// for recess check, which reports the item by its own rule.
func ParseThreads(field, v string) ([]state.Kind, error) {
	var kinds []state.Kind
	var err error
	for _, name := range text.Items(v) {
		tk, ok := threadKinds[strings.ToLower(name)]
		switch {
		case !ok && err == nil:
			err = &wait.FieldError{Field: field, Reason: fmt.Sprintf("%q is not one of %s", name, strings.Join(ThreadsValues(), ", "))}
		case ok && !slices.Contains(kinds, tk.kind):
			kinds = append(kinds, tk.kind)
		}
	}
	return kinds, err
}

// ThreadsValuesOf are the values of input threads that name kinds, in
// their order.
func ThreadsValuesOf(kinds []state.Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = ThreadsValue(k)
	}
	return out
}

// Grant is the token a piece of a setup that serves threads needs, as a
// YAML flow mapping, the threads' scopes first: a reusable workflow's
// ("front-door", "claim", "verdict") by check's own rule (role.needs), or
// the lead's ("lead"), which only reads its threads. What recess init
// writes.
func Grant(piece string, threads []string, branch bool) string {
	need := map[string]level{}
	if piece == "lead" {
		for _, t := range threads {
			need[t] = read
		}
	} else {
		need = role{call: piece}.needs(threads, branch)
	}
	var parts []string
	for _, s := range append(slices.Clone(threads), "actions", "issues", "contents") {
		if need[s] > none {
			parts = append(parts, s+": "+need[s].String())
			delete(need, s)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// hasThreadEvent says whether a workflow runs on a thread's event.
func (f *file) hasThreadEvent() bool {
	for _, k := range threadKinds {
		if slices.ContainsFunc(k.events, func(e threadEvent) bool { return f.has(e.event) }) {
			return true
		}
	}
	return false
}

// survey reads what each job does for recess and the setup's facts: which
// files belong to it, its front door and that door's threads and store.
func (c *checker) survey() {
	c.inSetup = map[*file]bool{}
	for _, f := range c.files {
		for _, j := range f.jobs {
			j.role = roleOf(j, c.shipped.reusable)
			if len(j.role.uses) > 0 || j.role.unknown != "" || j.role.mcp {
				c.inSetup[f] = true
			}
		}
		if c.inSetup[f] {
			c.recessFiles++
		}
	}
	for _, f := range c.files {
		if !c.inSetup[f] || f.called() || !f.hasThreadEvent() {
			continue
		}
		for _, j := range f.jobs {
			if i := slices.IndexFunc(j.role.uses, use.answersEvents); i >= 0 {
				c.doors = append(c.doors, &piece{f: f, j: j, use: j.role.uses[i], d: c.declaredFor(j.role.uses[i])})
			}
		}
	}
	c.threads = []string{"discussions"}
	// With two, the front door is the one in recess.yml (where recess init
	// writes it), else the first by name; the other is reported.
	if len(c.doors) > 0 {
		c.door = c.doors[max(slices.IndexFunc(c.doors, func(d *piece) bool { return path.Base(d.f.name) == "recess.yml" }), 0)]
		if v, ok := c.door.given("threads"); ok && !isExpression(v) {
			if kinds, _ := ParseThreads("threads", v); len(kinds) > 0 {
				c.threads = ThreadsValuesOf(kinds)
			}
		}
		store, _ := c.door.given("state-store")
		c.branch = strings.EqualFold(store, "branch")
	}
	// The agent workflows the setup dispatches belong to it.
	for _, f := range c.files {
		if !c.inSetup[f] || f.called() {
			continue
		}
		for _, j := range f.jobs {
			if name, _ := c.target(j); j.role.dispatches() && c.byName[name] != nil {
				c.inSetup[c.byName[name]] = true
			}
		}
	}
}

// setup applies the rules that need every file: one front door with the
// triggers its threads need; every agent workflow it names exists and
// takes recess's inputs; something sweeps; every piece shares the front
// door's choices and recess release.
func (c *checker) setup() {
	if c.recessFiles == 0 {
		return
	}
	if c.door == nil {
		if !c.unreadable {
			c.noFrontDoor()
		}
	} else {
		for _, d := range slices.DeleteFunc(slices.Clone(c.doors), func(d *piece) bool { return d == c.door }) {
			c.r.add(d.f, d.j.line, d.j.id, RuleTwoFrontDoors, fmt.Sprintf("remove it: %s (job %s) is the front door", path.Base(c.door.f.name), c.door.j.id),
				"job %s is a second front door: every event would be answered twice, each run dispatching on its own", d.j.id)
		}
		c.triggers(c.door.f)
	}
	c.targets()
	c.sweep()
	c.splits()
}

// noFrontDoor: something runs recess, yet nothing answers a thread's events.
// A call of a workflow recess does not ship is reported as such: it may be
// the front door misspelt.
func (c *checker) noFrontDoor() {
	for _, f := range c.files {
		if slices.ContainsFunc(f.jobs, func(j *job) bool { return j.role.unknown != "" }) {
			return
		}
	}
	sweepFile := ""
	for _, f := range c.files {
		for _, j := range f.jobs {
			for _, u := range j.role.uses {
				d := c.declaredFor(u)
				if on, _ := strconv.ParseBool(d.value(u.with, "sweep-only-while-waiting")); on && d.has("sweep-workflow") {
					sweepFile = d.value(u.with, "sweep-workflow")
				}
			}
		}
	}
	for _, f := range c.files {
		if !c.inSetup[f] || f.called() || path.Base(f.name) == sweepFile || !slices.ContainsFunc(f.jobs, func(j *job) bool { return j.role.doorWork() }) {
			continue
		}
		c.r.add(f, max(f.onLine, f.line), "", RuleFrontDoorTriggers, "add to on: "+strings.Join(FrontDoorOn("discussions"), ", "),
			"the front door runs on no discussion event: no discussion or comment ever reaches recess")
		return
	}
	for _, f := range c.files {
		if c.inSetup[f] && !f.called() {
			c.r.add(f, max(f.onLine, f.line), "", RuleNoFrontDoor, "add the front door, .github/workflows/recess.yml (recess init writes it; the README's quick start shows it)",
				"no workflow runs recess's front door on discussion events: nothing starts an agent run")
			return
		}
	}
}

// triggers: the front door runs on the events its threads need, with the
// activity types that start and continue a conversation.
func (c *checker) triggers(f *file) {
	seen := map[string]bool{}
	for _, t := range c.threads {
		for _, e := range threadKinds[t].events {
			if seen[e.event] {
				continue
			}
			seen[e.event] = true
			ev, ok := f.events.get(e.event)
			if !ok {
				c.r.add(f, max(f.onLine, f.line), "", RuleFrontDoorTriggers, "add to on: "+e.on(),
					"the front door does not run on %s: %s", e.event, e.lost)
				continue
			}
			var settings keyed[yaml.Node]
			_ = ev.val.Decode(&settings)
			types, ok := settings.get("types")
			if !ok {
				continue // every type
			}
			var list []string
			if types.val.Kind == yaml.ScalarNode {
				list = []string{value(types.val)}
			} else {
				_ = types.val.Decode(&list)
			}
			if !slices.Contains(list, e.needs) {
				c.r.add(f, types.line, "", RuleFrontDoorTriggers, fmt.Sprintf("add %s to %s's types", e.needs, e.event),
					"the front door runs on %s but not when one is %s: %s", e.event, e.needs, e.lost)
			}
		}
	}
}

// targets: every agent workflow a dispatching job names exists, takes
// recess's inputs and has a claim and a verdict. One that two files
// dispatch (the front door and the sweep's own file) is judged once.
func (c *checker) targets() {
	seen, judged := map[string]bool{}, map[*file]bool{}
	for _, f := range c.files {
		if !c.inSetup[f] {
			continue
		}
		for _, j := range f.jobs {
			if !j.role.dispatches() {
				continue
			}
			name, line := c.target(j)
			line = cmp.Or(line, j.Uses.Line, j.line)
			if name == "" || isExpression(name) || seen[f.name+"\x00"+name] {
				continue
			}
			seen[f.name+"\x00"+name] = true
			agent, ok := c.byName[name]
			switch {
			case agent != nil && !judged[agent]:
				judged[agent] = true
				c.agent(agent)
			case !ok: // an unreadable file is reported as such
				if c.door != nil && c.door.f == f && c.door.j == j {
					c.suspect["workflow"] = true
				}
				c.r.add(f, line, "", RuleWorkflowMissing, fmt.Sprintf("add %s/%s (recess init writes one) or set workflow: to the agent workflow's file name", Dir, name),
					"the agent workflow %s does not exist in %s", name, Dir)
			}
		}
	}
}

// sweep: something sweeps on a schedule; with the sweep switch on, the
// workflow it switches is that sweep, in a file of its own.
func (c *checker) sweep() {
	if c.door == nil {
		return
	}
	sweeps := false
	for _, f := range c.files {
		if c.inSetup[f] && !f.called() && f.has("schedule") && slices.ContainsFunc(f.jobs, func(j *job) bool { return j.role.sweepWork() }) {
			sweeps = true
		}
	}
	on, _ := c.door.given("sweep-only-while-waiting")
	switchOn, _ := strconv.ParseBool(on)
	name, named := c.door.given("sweep-workflow")
	if !switchOn || !named || isExpression(name) {
		if !sweeps && !c.unreadable {
			fix := `add schedule: [{cron: "2-59/5 * * * *"}] to the front door (its plan and visit jobs sweep)`
			if c.door.use.call == "" {
				fix = `add a sweep: a workflow on schedule: [{cron: "2-59/5 * * * *"}] with a plan job and a visit job per discussion (.github/examples/recess-sweep.yml)`
			}
			c.r.add(c.door.f, max(c.door.f.onLine, 1), "", RuleNoSweep, fix,
				"nothing sweeps: elapsed triggers never fire and lost events are never caught up")
		}
		return
	}
	if c.suspect["sweep-workflow"] {
		return // a run refuses it, and says why
	}
	line := c.door.line("sweep-workflow")
	if _, set := c.door.use.with["sweep-workflow"]; !set {
		line = c.door.line("sweep-only-while-waiting")
	}
	sw := c.byName[name]
	switch {
	case sw == nil:
		if _, unreadable := c.byName[name]; unreadable {
			return
		}
		c.suspect["sweep-workflow"] = true
		c.r.add(c.door.f, line, c.door.j.id, RuleWorkflowMissing,
			fmt.Sprintf(`add %s/%s on schedule: [{cron: "2-59/5 * * * *"}], calling front-door.yml as the front door does (recess init writes it), or set sweep-workflow: to the file that sweeps`, Dir, name),
			"sweep-only-while-waiting switches the sweep workflow %s, which does not exist in %s", name, Dir)
	case sw.hasThreadEvent():
		c.suspect["sweep-workflow"] = true
		c.r.add(c.door.f, line, c.door.j.id, RuleSweepWorkflow, "move the schedule into a workflow file of its own (recess init writes recess-sweep.yml) and name that file in sweep-workflow:",
			"sweep-only-while-waiting would switch off %s, which answers discussion events: while nothing waits, nothing would start", name)
	case !sw.has("schedule") || !slices.ContainsFunc(sw.jobs, func(j *job) bool { return j.role.sweepWork() }):
		c.suspect["sweep-workflow"] = true
		c.r.add(c.door.f, line, c.door.j.id, RuleSweepWorkflow, fmt.Sprintf(`give %s the schedule and the sweep (on: schedule: [{cron: "2-59/5 * * * *"}], calling front-door.yml), or name the file that sweeps`, name),
			"sweep-only-while-waiting switches %s, which does not sweep on a schedule", name)
	case !sweeps && !c.unreadable:
		c.r.add(c.door.f, max(c.door.f.onLine, 1), "", RuleNoSweep, fmt.Sprintf("call front-door.yml from %s too", name),
			"nothing sweeps: elapsed triggers never fire and lost events are never caught up")
	}
}

// perRun are the inputs that say what one run does, not how the repository
// is served: pieces may differ in them.
var perRun = []string{"command", "verdict", "verdict-file", "artifact", "correlation-id", "resume-context", "discussion", "dry-run", "max-parallel", "github-token"}

// splits: every piece of the setup runs the front door's recess release,
// and keeps records where the front door does. A reusable workflow
// declares exactly the choices its piece reads: each it shares with the
// front door's must agree (the verdict's workflow has its own rule); a
// step of the action shares the store.
func (c *checker) splits() {
	if c.door == nil {
		return
	}
	door := c.door
	for _, f := range c.files {
		if !c.inSetup[f] || f.called() {
			continue
		}
		for _, j := range f.jobs {
			for _, u := range j.role.uses {
				if u.release() != door.use.release() {
					want := door.use.release()
					c.r.add(f, u.line, j.id, RuleRefSplit, fmt.Sprintf("uses: %s, the recess the front door runs (%s)", releaseUses(u, door.use), want),
						"job %s runs recess %s, the front door (%s) %s: each piece must read and write the records the others do", j.id, u.release(), path.Base(door.f.name), want)
				}
				if u.command == "install" || slices.ContainsFunc(c.doors, func(d *piece) bool { return d.j == j && d.use.line == u.line }) {
					continue // a second front door is reported as such
				}
				p := &piece{f: f, j: j, use: u, d: c.declaredFor(u)}
				names := []string{"state-store", "state-branch"}
				if u.call != "" {
					names = p.d.names
				}
				for _, name := range names {
					if slices.Contains(perRun, name) || name == "workflow" && (u.call == "verdict" || u.call == "claim") {
						continue // the agent workflow's pieces name their own file (agent)
					}
					mine, ok := p.given(name)
					theirs, ok2 := door.given(name)
					if !ok || !ok2 || isExpression(mine) || isExpression(theirs) || sameChoice(mine, theirs) || c.suspect[name] ||
						len(c.outsideChoices(name, mine)) > 0 || len(c.outsideChoices(name, theirs)) > 0 {
						continue
					}
					fix := fmt.Sprintf("give it with: {%s: %s}, as the front door has", name, flowValue(theirs))
					if _, set := u.with[name]; set && sameChoice(p.d.defaults[name], theirs) {
						fix = fmt.Sprintf("remove %s: (the front door uses the default, %s)", name, cmp.Or(theirs, `""`))
					}
					c.r.add(f, p.line(name), j.id, RuleChoiceSplit, fix,
						"job %s has %s %s, the front door (%s) %s: %s", j.id, name, cmp.Or(mine, `""`), path.Base(door.f.name), cmp.Or(theirs, `""`), splitEffect(name))
				}
			}
		}
	}
}

// flowValue is v as a value in a YAML flow mapping: as it is when YAML
// reads it back the same, else quoted.
func flowValue(v string) string {
	if plainValue.MatchString(v) {
		return v
	}
	return strconv.Quote(v)
}

var plainValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_./-]*$`)

func sameChoice(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func splitEffect(name string) string {
	if name == "state-store" || name == "state-branch" {
		return "they would read and write two different records"
	}
	return "every piece must serve the repository the same way"
}

// releaseUses is u's uses: rewritten to run the door's release.
func releaseUses(u, door use) string {
	if door.local {
		if u.call != "" {
			return "./.github/workflows/" + u.call + ".yml"
		}
		return "./"
	}
	if u.call != "" {
		return fmt.Sprintf("%s/.github/workflows/%s.yml@%s", door.repo, u.call, door.ref)
	}
	return door.repo + "@" + door.ref
}

// dispatchInputs are the inputs recess's dispatch sends an agent workflow.
var dispatchInputs = []string{"correlation_id", "discussion_number", "resume_context"}

// agent: the agent workflow takes recess's dispatch inputs (and requires no
// other), names its runs by the correlation id, and has a claim and a
// verdict.
func (c *checker) agent(f *file) {
	dispatch, ok := f.events.get("workflow_dispatch")
	if !ok {
		c.r.add(f, max(f.onLine, 1), "", RuleAgentInputs, "on: workflow_dispatch with inputs correlation_id, discussion_number, resume_context",
			"the agent workflow has no workflow_dispatch trigger: recess cannot start it")
		return
	}
	var settings keyed[keyed[struct{ Required, Default yaml.Node }]]
	_ = dispatch.val.Decode(&settings)
	inputs, ok := settings.get("inputs")
	line := max(dispatch.line, f.onLine)
	if ok {
		line = inputs.line
	}
	var missing []string
	for _, in := range dispatchInputs {
		if _, ok := inputs.val.get(in); !ok {
			missing = append(missing, in)
		}
	}
	if len(missing) > 0 {
		c.r.add(f, line, "", RuleAgentInputs, `declare workflow_dispatch inputs correlation_id and discussion_number (required) and resume_context (default "")`,
			"the agent workflow lacks the input %s: GitHub refuses recess's dispatch", strings.Join(missing, ", "))
	}
	for _, in := range inputs.val {
		if required, _ := strconv.ParseBool(value(in.val.Required)); required && in.val.Default.Kind == 0 && !slices.Contains(dispatchInputs, in.key) {
			c.r.add(f, in.line, "", RuleAgentInputs, fmt.Sprintf("make %s optional (required: false) or give it a default", in.key),
				"the agent workflow requires the input %s, which recess does not send: GitHub refuses recess's dispatch", in.key)
		}
	}
	if !strings.Contains(value(f.runName), "inputs.correlation_id") {
		c.r.add(f, cmp.Or(f.runName.Line, f.line), "", RuleAgentRunName, "run-name: agent ${{ inputs.correlation_id }}",
			"the agent workflow's run-name does not carry the correlation id: recess cannot find its runs")
	}
	var lack []string
	for _, cmd := range []string{"claim", "verdict"} {
		if !slices.ContainsFunc(f.jobs, func(j *job) bool { return j.role.does(cmd) }) {
			lack = append(lack, cmd)
		}
	}
	for _, j := range f.jobs {
		// An adjourned verdict dispatches again for comments written meanwhile:
		// its workflow input must name this file, and so must a claim's
		// reusable workflow that takes one.
		name := path.Base(f.name)
		got, line := c.target(j)
		if (j.role.does("verdict") || j.role.call == "claim") && got != "" && got != name && !isExpression(got) {
			c.r.add(f, cmp.Or(line, j.Uses.Line, j.line), j.id, RuleVerdictWorkflow, fmt.Sprintf("give the %s workflow: %s", j.id, name),
				"job %s names the agent workflow %s, not this one: the runs it starts and the sweep switch would act on another file", j.id, got)
		}
	}
	if len(lack) > 0 {
		c.r.add(f, f.line, "", RuleAgentJobs, "call recess's claim.yml first and verdict.yml last (or run the action with command: claim / verdict)",
			"the agent workflow has no %s job", strings.Join(lack, " and no "))
	}
}
