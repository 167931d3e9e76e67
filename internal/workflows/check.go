package workflows

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Rule names one promise a setup can break.
type Rule string

const (
	RuleUnreadable        Rule = "unreadable"         // a workflow file the rules cannot read
	RuleNoSetup           Rule = "no-setup"           // no workflow runs recess
	RuleWriterGroup       Rule = "writer-group"       // a job that writes a record outside recess-<number>
	RuleWriterQueue       Rule = "writer-queue"       // ... without queue: max
	RuleWriterCancel      Rule = "writer-cancel"      // ... cancelled in progress
	RuleWorkflowGroup     Rule = "workflow-group"     // a workflow-level group that cancels, drops or deadlocks writers
	RuleLeadWrites        Rule = "lead-writes"        // a job running the model whose token may write
	RuleLeadBesideWriter  Rule = "lead-beside-writer" // the agent and a writing recess command in one job
	RuleLeadStale         Rule = "lead-stale"         // a lead that runs when claim says stale
	RuleMCPFlag           Rule = "mcp-flag"           // a recess mcp flag it does not know
	RuleMissingPermission Rule = "missing-permission" // a recess job without a permission it needs
	RuleExcessPermission  Rule = "excess-permission"  // a write scope no recess job needs
	RuleUnknownInput      Rule = "unknown-input"      // an input the action or the reusable workflow does not declare
	RuleInputChoice       Rule = "input-choice"       // a value outside an input's choices
	RuleInputRefused      Rule = "input-refused"      // inputs a run refuses (a number, a duration, a handle missing)
	RuleChoiceSplit       Rule = "choice-split"       // a piece whose store (or other choice) is not the front door's
	RuleRefSplit          Rule = "ref-split"          // a piece running another recess than the front door
	RuleNoFrontDoor       Rule = "no-front-door"      // recess pieces and nothing that starts agent runs
	RuleTwoFrontDoors     Rule = "two-front-doors"    // two jobs that answer the same threads' events
	RuleFrontDoorTriggers Rule = "front-door-triggers"
	RuleAgentInputs       Rule = "agent-inputs"     // an agent workflow without a dispatch input recess sends
	RuleAgentRunName      Rule = "agent-run-name"   // an agent workflow whose run-name hides the correlation id
	RuleAgentJobs         Rule = "agent-jobs"       // an agent workflow without a claim or a verdict
	RuleWorkflowMissing   Rule = "workflow-missing" // a workflow input naming no file
	RuleVerdictWorkflow   Rule = "verdict-workflow" // a verdict (or claim) naming another agent workflow than its own file
	RuleSweepWorkflow     Rule = "sweep-workflow"   // a sweep switch that would switch off the front door
	RuleCron              Rule = "schedule-cron"    // a schedule that is not five cron fields
	RuleTopOfHour         Rule = "schedule-top-of-hour"
	RuleNoSweep           Rule = "no-sweep"
	RulePullRequestHead   Rule = "pull-request-head" // pull_request_target checking out the pull request's code
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
// promises, sorted by file and line. known is what recess's code knows of
// its inputs' choices and recess mcp's flags. A file that is not a
// readable workflow is a finding; only a missing or unreadable directory
// (or recess's own declarations, which the binary embeds) is an error.
func CheckRepo(fsys fs.FS, known Known) ([]Finding, error) {
	shipped, err := readShipped()
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, Dir)
	if err != nil {
		return nil, err
	}
	c := &checker{known: known, shipped: shipped, byName: map[string]*file{}, suspect: map[string]bool{}}
	// In recess's own repository `uses: ./` is the action at hand.
	if data, err := fs.ReadFile(fsys, "action.yml"); err == nil {
		if d, err := actionInputs(data); err == nil {
			c.localAction = &d
		}
	}
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
		c.byName[e.Name()] = f
		if bad != nil {
			c.r = append(c.r, *bad)
			c.unreadable = true
			continue
		}
		c.files = append(c.files, f)
	}
	c.survey()
	if c.recessFiles == 0 && !c.unreadable {
		c.r = append(c.r, Finding{File: Dir, Line: 1, Rule: RuleNoSetup,
			Message: "no workflow here runs recess: nothing watches discussions or starts an agent run",
			Fix:     "run `recess init` (it writes the front door recess.yml and the agent workflow agent.yml), or copy the README's quick start"})
	}
	for _, f := range c.files {
		c.check(f)
	}
	c.setup()
	slices.SortStableFunc(c.r, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line)
	})
	return c.r, nil
}

// checker holds one repository's check: its files, what recess declares,
// the setup's facts that every file's rules read, and the findings.
type checker struct {
	known       Known
	shipped     shipped
	localAction *declared        // the repository's own action.yml, for uses: ./
	files       []*file          // the readable workflows, by name
	byName      map[string]*file // every workflow by base name, nil when unreadable
	unreadable  bool             // some workflow is: what is missing may be in it

	// Found by survey.
	recessFiles int            // files that run recess or call its workflows
	inSetup     map[*file]bool // those, and the agent workflows they dispatch
	door        *piece         // the front door: the first job that answers thread events
	doors       []*piece       // every such job
	threads     []string       // the front door's threads
	branch      bool           // the front door keeps records on a branch

	policyReported bool            // the policy file's refusal is reported
	suspect        map[string]bool // the front door's inputs reported broken: no piece is told to copy them

	r report
}

// report collects findings. add's fix comes before the message's format so
// that the format's arguments can follow it.
type report []Finding

func (r *report) add(f *file, line int, job string, rule Rule, fix, format string, args ...any) {
	*r = append(*r, Finding{File: f.name, Line: max(line, 1), Job: job, Rule: rule, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// check applies the rules that one file decides alone, given the setup's
// facts (its front door's store and threads).
func (c *checker) check(f *file) {
	r := &c.r
	for _, j := range f.jobs {
		c.pullRequestHead(f, j)
	}
	if !c.inSetup[f] {
		return
	}
	called := f.called() // a called workflow's jobs get the caller's grant; the caller's file is judged
	claim := slices.IndexFunc(f.jobs, func(j *job) bool { return j.role.does("claim") })
	for _, j := range f.jobs {
		c.inputs(f, j)
		c.mcpFlags(f, j)
		if !j.role.recess() {
			continue
		}
		if j.role.lead && j.role.writes() {
			r.add(f, j.line, j.id, RuleLeadBesideWriter, "split it into three jobs: claim, a read-only lead, verdict",
				"job %s runs the agent and a recess command that writes", j.id)
		}
		if j.role.lead {
			c.leadPermissions(f, j)
			if claim >= 0 && !j.role.writes() {
				c.leadStale(f, j, f.jobs[claim])
			}
		} else if !called {
			c.missingPermissions(f, j)
		}
		if j.role.writes() {
			c.writerGroup(f, j)
		}
	}
	if !called {
		c.excessPermissions(f)
	}
	c.workflowGroup(f)
	for _, j := range f.jobs {
		for i, s := range j.Steps {
			if strings.Contains(s.Run.Value, "${{") {
				r.add(f, s.Run.Line, j.id, RuleExpressionInRun, `pass the value through the step's env: and use "$NAME" in the script`,
					"job %s step %d (%s) splices ${{ }} into a shell script", j.id, i+1, cmp.Or(s.Name, value(s.Uses), "run"))
			}
		}
	}
	c.schedule(f)
}
