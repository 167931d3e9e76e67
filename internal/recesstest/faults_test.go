package recesstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Schedules per store. Under -race on two shared cores one schedule costs
// about a quarter of a second, so the defaults keep the package within a
// minute; RECESS_FAULT_SCHEDULES runs more locally, RECESS_FAULT_SEED
// replays one.
const (
	faultSchedulesShort   = 20
	faultSchedulesDefault = 60
	// faultSteps is how many random steps a schedule takes before it drains.
	faultSteps = 18
)

// TestFaults drives seeded random schedules through the real engine and
// adapters against the fake, for both stores: discussions opened, people
// commenting (some events lost), sweeps, agent runs that claim, answer
// (recessed with random triggers, or adjourned) or fail, the clock moving;
// and, on nearly half of recess's runs, one injected fault: a 5xx on a read
// or a write, a 502 after a mutation or dispatch was applied, a rate limit,
// the process dying after its k-th request (with and without that request
// applied), or another run slipping in at the k-th request (a concurrent
// write). After every step the invariants of checkStep hold; after the
// schedule drains (faults off, every run answered, maintainers resume what
// still waits), those of checkEnd hold. A failure prints the seed and the
// whole schedule.
func TestFaults(t *testing.T) {
	t.Parallel()
	seeds := faultSeeds(t)
	for _, store := range []string{"comment", "branch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			for _, seed := range seeds {
				t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
					t.Parallel()
					s := newSim(t, store, seed)
					s.play(faultSteps)
				})
			}
		})
	}
}

// faultSeeds are the schedules to run: 1..N, or the one RECESS_FAULT_SEED
// names.
func faultSeeds(t *testing.T) []uint64 {
	t.Helper()
	if v := os.Getenv("RECESS_FAULT_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("RECESS_FAULT_SEED=%q: %v", v, err)
		}
		return []uint64{seed}
	}
	n := faultSchedulesDefault
	if testing.Short() {
		n = faultSchedulesShort
	}
	if v := os.Getenv("RECESS_FAULT_SCHEDULES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("RECESS_FAULT_SCHEDULES=%q is not a positive number", v)
		}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// People in a schedule. maya has write access (MEMBER).
var (
	simUsers      = []string{"alice", "bob", "carol", "dave"}
	simMaintainer = "maya"
)

// sim is one schedule and what it has seen happen: the oracle the
// invariants are checked against.
type sim struct {
	t     *testing.T
	w     *World
	rng   *rand.Rand
	ctx   context.Context
	store string
	seed  uint64

	// log is the schedule so far, one line per step and per run inside it.
	log  []string
	step int

	discs    []*simDisc
	runs     map[int64]*simRun
	comments []*simComment

	// applied are the verdicts recess applied, by correlation id.
	applied map[string]*simVerdict
	// closes are the steps in which a recess was closed without a resume
	// (cancel, on_expire cancel): what it passed over.
	closes []simClose
	// records are the last records read, by discussion number.
	records map[int]*state.Record
	// busy is the agent run whose step is under way: a run does one thing
	// at a time, so nothing slipping in may act for it.
	busy *simRun
	// killed is set for a step in which a run of recess died.
	killed map[int]bool
	// unposted are escalation notes found missing after a step although
	// the escalation was recorded: the run died between the two.
	unposted map[string]bool

	// counters for the report
	faulted, failedRuns, intrusions int
}

type simDisc struct {
	n      int
	id     string
	closed bool
	// closedAt are the steps at which the discussion was closed.
	closedAt []int
}

// simRun is one agent run GitHub started.
type simRun struct {
	run  githubfake.Run
	disc int
	cid  string
	rc   resume.Context
	// recess is the original correlation id of the recess the run resumes
	// ("" for a fresh dispatch).
	recess string
	// step is when it was dispatched.
	step int

	claimed  bool // its claim step ran
	stale    bool // and said stale
	finished bool // completed (answered, stale, or failed)
	// effective: its claim was not stale and its verdict was applied.
	effective bool
	// verdict is the document it answers with once decided; a failed
	// verdict step is delivered again later (a re-run of the job).
	verdict string
}

// live: the run claimed the discussion and has not finished.
func (r *simRun) live() bool { return r.claimed && !r.stale && !r.finished }

type simComment struct {
	id     string
	disc   int
	author string
	body   string
	at     time.Time
	step   int
	// human: counts as a person's words (not a maintainer's slash command).
	human bool
	// unheard: its event was lost, or the run for it failed, while recess
	// had nothing pending on the discussion; or the discussion was closed.
	// No sweep looks at such a discussion (by design: sweeps visit what
	// waits, and a closed discussion waits for nothing), so only a later
	// event there (its reopening) brings the comment to recess.
	unheard bool
}

type simVerdict struct {
	disc     int
	step     int
	recessed bool
	// explained: the recess it opened was fired, closed or expired.
	explained bool
}

type simClose struct {
	disc int
	step int
	seen state.Cursor
}

func newSim(t *testing.T, store string, seed uint64) *sim {
	w := New(t, Options{Store: store, Maintainers: []string{simMaintainer}})
	return &sim{
		t: t, w: w, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), ctx: context.Background(),
		store: store, seed: seed, runs: map[int64]*simRun{}, applied: map[string]*simVerdict{},
		records: map[int]*state.Record{}, killed: map[int]bool{}, unposted: map[string]bool{},
	}
}

// fail stops the schedule with the seed and the schedule so far, so it can
// be replayed.
func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("%s\n\nreplay: RECESS_FAULT_SEED=%d go test -race -run 'TestFaults/%s/seed_%d' ./internal/recesstest\nschedule (%s store, seed %d):\n  %s",
		fmt.Sprintf(format, args...), s.seed, s.store, s.seed, s.store, s.seed, strings.Join(s.log, "\n  "))
}

func (s *sim) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

// play runs steps random steps, checking after each, then drains and checks
// the end state.
func (s *sim) play(steps int) {
	s.open()
	for s.step = 1; s.step <= steps; s.step++ {
		s.randomStep()
		s.checkStep()
	}
	s.drain()
	s.checkEnd()
	if os.Getenv("RECESS_FAULT_LOG") != "" {
		s.t.Logf("schedule (%s store, seed %d):\n  %s", s.store, s.seed, strings.Join(s.log, "\n  "))
	}
	s.t.Logf("seed %d: %d steps, %d agent runs, %d faulted recess runs, %d concurrent runs slipped in, %d failed agent runs",
		s.seed, steps, len(s.runs), s.faulted, s.intrusions, s.failedRuns)
}

func (s *sim) pick(n int) int { return s.rng.IntN(n) }

func (s *sim) chance(p float64) bool { return s.rng.Float64() < p }

// randomStep does one thing a real repository could see next.
func (s *sim) randomStep() {
	waiting, claimed := s.agentRuns()
	type choice struct {
		weight int
		do     func()
	}
	choices := []choice{
		{24, s.comment},
		{8, s.sweep},
		{10, s.advance},
		{3, s.slash},
	}
	if len(s.discs) < 3 {
		choices = append(choices, choice{3, s.open})
	}
	if len(waiting) > 0 {
		choices = append(choices, choice{14, func() { s.claim(waiting[s.pick(len(waiting))], true) }})
	}
	if len(claimed) > 0 {
		choices = append(choices, choice{14, func() { s.answer(claimed[s.pick(len(claimed))]) }})
	}
	if len(waiting)+len(claimed) > 0 {
		all := append(append([]*simRun(nil), waiting...), claimed...)
		choices = append(choices, choice{3, func() { s.failRun(all[s.pick(len(all))]) }})
	}
	choices = append(choices, choice{2, s.closeOrReopen})
	total := 0
	for _, c := range choices {
		total += c.weight
	}
	n := s.pick(total)
	for _, c := range choices {
		if n < c.weight {
			c.do()
			return
		}
		n -= c.weight
	}
}

// agentRuns are the runs not finished: waiting to claim, and claimed.
func (s *sim) agentRuns() (waiting, claimed []*simRun) {
	for _, id := range s.runIDs() {
		r := s.runs[id]
		switch {
		case r.finished:
		case !r.claimed:
			waiting = append(waiting, r)
		case r.live():
			claimed = append(claimed, r)
		}
	}
	return waiting, claimed
}

func (s *sim) runIDs() []int64 {
	ids := make([]int64, 0, len(s.runs))
	for id := range s.runs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (s *sim) disc() *simDisc { return s.discs[s.pick(len(s.discs))] }

func (s *sim) byNumber(n int) *simDisc {
	for _, d := range s.discs {
		if d.n == n {
			return d
		}
	}
	s.fail("no discussion #%d", n)
	return nil
}

// open opens a discussion; its event reaches recess.
func (s *sim) open() {
	author := simUsers[s.pick(len(simUsers))]
	n, id := s.w.Open(author)
	s.discs = append(s.discs, &simDisc{n: n, id: id})
	s.logf("step %d: @%s opens #%d", s.step, author, n)
	s.recess("intake", n, true, func(e *resume.Engine) (*resume.Result, error) { return e.Intake(s.ctx, n) })
}

// comment adds a person's comment (a reply now and then); its event is
// lost one time in five.
func (s *sim) comment() {
	d := s.disc()
	author := simUsers[s.pick(len(simUsers))]
	lost := s.chance(0.2)
	s.say(d, author, fmt.Sprintf("comment %d by %s", len(s.comments)+1, author), lost)
}

// say writes a comment and runs recess for its event unless lost.
func (s *sim) say(d *simDisc, author, body string, lost bool) {
	parent := ""
	if s.chance(0.25) {
		for i := len(s.comments) - 1; i >= 0; i-- {
			if c := s.comments[i]; c.disc == d.n && !s.isReply(c.id) {
				parent = c.id
				break
			}
		}
	}
	idle := s.records[d.n] == nil || !s.records[d.n].Pending()
	id := s.w.Say(d.id, parent, author, body)
	human := !(author == simMaintainer && strings.HasPrefix(body, "/recess "))
	c := &simComment{id: id, disc: d.n, author: author, body: body, at: s.w.Now(), step: s.step, human: human}
	s.comments = append(s.comments, c)
	what := "comments"
	if parent != "" {
		what = "replies"
	}
	if lost {
		s.logf("step %d: @%s %s on #%d: %q (event lost)", s.step, author, what, d.n, body)
		c.unheard = idle || d.closed
		return
	}
	s.logf("step %d: @%s %s on #%d: %q", s.step, author, what, d.n, body)
	_, err := s.recess("inbound", d.n, true, func(e *resume.Engine) (*resume.Result, error) { return e.Inbound(s.ctx, d.n) })
	c.unheard = (idle && err != nil) || d.closed
}

func (s *sim) isReply(id string) bool {
	cs, err := s.w.GH.Comments(s.discOf(id).id)
	if err != nil {
		s.fail("comments: %v", err)
	}
	for _, c := range cs {
		if c.ID == id {
			return c.ParentID != ""
		}
	}
	return false
}

func (s *sim) discOf(commentID string) *simDisc {
	for _, c := range s.comments {
		if c.id == commentID {
			return s.byNumber(c.disc)
		}
	}
	s.fail("no comment %s", commentID)
	return nil
}

// slash is a maintainer's command, or someone without write access trying
// one (an ordinary reply).
func (s *sim) slash() {
	d := s.disc()
	cmds := []string{"/recess resume", "/recess cancel", "/recess signal go", "/recess extend PT1H", "/recess status"}
	cmd := cmds[s.pick(len(cmds))]
	author := simMaintainer
	if s.chance(0.3) {
		author = simUsers[s.pick(len(simUsers))]
	}
	s.say(d, author, cmd, false)
}

func (s *sim) sweep() {
	s.logf("step %d: sweep", s.step)
	s.recess("sweep", 0, true, func(e *resume.Engine) (*resume.Result, error) { return e.Sweep(s.ctx) })
}

// advance moves the clock: mostly minutes, sometimes hours or days.
func (s *sim) advance() {
	var d time.Duration
	switch r := s.pick(10); {
	case r < 5:
		d = time.Duration(1+s.pick(20)) * time.Minute
	case r < 9:
		d = time.Duration(1+s.pick(6)) * time.Hour
	default:
		d = time.Duration(1+s.pick(3)) * 24 * time.Hour
	}
	s.w.Advance(d)
	s.logf("step %d: %s later", s.step, d)
}

func (s *sim) closeOrReopen() {
	d := s.disc()
	if d.closed {
		if err := s.w.GH.ReopenDiscussion(d.id); err != nil {
			s.fail("reopen: %v", err)
		}
		d.closed = false
		s.logf("step %d: #%d reopened", s.step, d.n)
	} else {
		if err := s.w.GH.CloseDiscussion(d.id, "OUTDATED"); err != nil {
			s.fail("close: %v", err)
		}
		d.closed = true
		d.closedAt = append(d.closedAt, s.step)
		s.logf("step %d: #%d closed", s.step, d.n)
	}
	_, err := s.recess("inbound", d.n, true, func(e *resume.Engine) (*resume.Result, error) { return e.Inbound(s.ctx, d.n) })
	if rec := s.record(d); err != nil && !d.closed && (rec == nil || !rec.Pending()) {
		// Closing expired what waited without handing it over; the
		// reopening's run failed: only a later event brings it back.
		for _, c := range s.comments {
			if c.disc == d.n && (rec == nil || !rec.Seen.Covers(c.id, c.at)) {
				c.unheard = true
			}
		}
	}
}

// claim runs a waiting agent run's claim step. A claim step that fails
// fails the run (the workflow stops there).
func (s *sim) claim(r *simRun, faults bool) {
	defer s.working(r)()
	s.logf("step %d: run %d (%s, #%d) claims", s.step, r.run.ID, r.cid, r.disc)
	res, err := s.recess("claim", r.disc, faults, func(e *resume.Engine) (*resume.Result, error) {
		return e.Claim(s.ctx, r.disc, r.cid, r.run.ID)
	})
	r.claimed = true
	switch {
	case err != nil:
		s.finish(r, "failure")
		r.stale = true // it never worked
	case res.Stale:
		r.stale = true
		s.finish(r, "success")
	default:
		if err := s.w.GH.SetRunStatus(r.run.ID, "in_progress", ""); err != nil {
			s.fail("run status: %v", err)
		}
	}
}

// answer has a claimed run deliver its verdict (decided once; a verdict
// step that failed is delivered again).
func (s *sim) answer(r *simRun) {
	if r.verdict == "" {
		r.verdict = s.randomVerdict(r)
	}
	s.deliver(r, true)
}

func (s *sim) deliver(r *simRun, faults bool) {
	defer s.working(r)()
	s.logf("step %d: run %d (%s, #%d) answers %s", s.step, r.run.ID, r.cid, r.disc, r.verdict)
	v, err := s.w.Engine(nil).Engine.ParseVerdict([]byte(r.verdict))
	if err != nil {
		s.fail("the harness wrote a verdict recess refuses: %v", err)
	}
	_, err = s.recess("verdict", r.disc, faults, func(e *resume.Engine) (*resume.Result, error) {
		return e.Verdict(s.ctx, v, r.run.ID)
	})
	switch {
	case errors.Is(err, resume.ErrRefused):
		s.fail("invariant (a): run %d claimed %s (not stale) and its verdict was refused: %v", r.run.ID, r.cid, err)
	case err != nil:
		// The step failed; the job is run again later, or the run fails.
		// Its write may have gone through all the same.
		if rec := s.record(s.byNumber(r.disc)); rec != nil && contains(rec.Applied, r.cid) && !r.effective {
			// The step failed, so the run does too; recess has what it
			// needed all the same.
			s.logf("  (the verdict was applied although its step failed; the run fails)")
			r.effective = true
			s.applied[r.cid] = &simVerdict{disc: r.disc, step: s.step, recessed: v.Verdict == resume.VerdictRecessed}
			s.finish(r, "failure")
		}
	default:
		if !r.effective {
			r.effective = true
			s.applied[r.cid] = &simVerdict{disc: r.disc, step: s.step, recessed: v.Verdict == resume.VerdictRecessed}
		}
		s.finish(r, "success")
	}
}

// working marks r busy until the returned function runs.
func (s *sim) working(r *simRun) func() {
	prev := s.busy
	s.busy = r
	return func() { s.busy = prev }
}

func (s *sim) failRun(r *simRun) {
	conclusion := []string{"failure", "cancelled", "timed_out"}[s.pick(3)]
	s.logf("step %d: run %d (%s, #%d) ends without a verdict: %s", s.step, r.run.ID, r.cid, r.disc, conclusion)
	s.failedRuns++
	s.finish(r, conclusion)
}

func (s *sim) finish(r *simRun, conclusion string) {
	r.finished = true
	if err := s.w.GH.SetRunStatus(r.run.ID, "completed", conclusion); err != nil {
		s.fail("run status: %v", err)
	}
}

// randomVerdict is adjourned, or recessed with a random trigger: a number
// of replies, a duration, any or all of both, sometimes a signal, with or
// without an expiry that resumes or cancels.
func (s *sim) randomVerdict(r *simRun) string {
	doc := map[string]any{"correlation_id": r.cid, "discussion_number": r.disc}
	if s.chance(0.3) {
		doc["verdict"] = "adjourned"
		doc["replies"] = []map[string]string{{"body": "answer from " + r.cid}}
	} else {
		doc["verdict"] = "recessed"
		if s.chance(0.8) {
			doc["replies"] = []map[string]string{{"body": "question from " + r.cid}}
		}
		doc["trigger"] = s.randomTrigger()
	}
	b, err := json.Marshal(doc)
	if err != nil {
		s.fail("verdict: %v", err)
	}
	return string(b)
}

func (s *sim) randomTrigger() map[string]any {
	replies := func() map[string]any { return map[string]any{"kind": "missing_input", "replies": 1 + s.pick(3)} }
	elapsed := func() map[string]any {
		return map[string]any{"kind": "elapsed", "elapsed": []string{"PT30M", "PT2H", "P1D"}[s.pick(3)]}
	}
	var t map[string]any
	switch s.pick(6) {
	case 0, 1:
		t = replies()
	case 2:
		t = elapsed()
	case 3:
		t = map[string]any{"kind": "any", "of": []any{replies(), elapsed()}}
	case 4:
		t = map[string]any{"kind": "all", "of": []any{replies(), elapsed()}}
	default:
		t = map[string]any{"kind": "any", "of": []any{replies(), map[string]any{"kind": "escalation_needed", "signal": "go"}}}
	}
	if s.chance(0.4) {
		t["expires"] = []string{"PT1H", "PT6H", "P2D"}[s.pick(3)]
		t["on_expire"] = []string{"resume", "cancel"}[s.pick(2)]
	}
	return t
}

// recess performs one run of recess, with one injected fault now and then
// (when faults is true), and registers the agent runs it started. Its
// error is part of the schedule: faults make runs fail, and a later run
// must heal whatever they left.
func (s *sim) recess(what string, n int, faults bool, fn func(*resume.Engine) (*resume.Result, error)) (*resume.Result, error) {
	var wrap func(http.RoundTripper) http.RoundTripper
	fault := ""
	if faults && s.chance(0.45) {
		wrap, fault = s.injectFault(what, n)
		s.faulted++
	}
	res, err := fn(s.w.Engine(wrap).Engine)
	s.w.GH.ClearFaults()
	if errors.Is(err, ErrKilled) {
		s.killed[s.step] = true
	}
	line := fmt.Sprintf("  %s", what)
	if n != 0 {
		line += fmt.Sprintf(" #%d", n)
	}
	if fault != "" {
		line += " [" + fault + "]"
	}
	if res != nil {
		if res.Dispatched {
			line += " dispatched " + res.CorrelationID
		}
		if res.Fired {
			line += " fired by " + res.FiredBy
		}
		if res.Stale {
			line += " stale"
		}
		for _, r := range append([]*resume.Result{res}, res.Sweep...) {
			for _, note := range r.Notes {
				line += fmt.Sprintf("\n      #%d: %s", r.Discussion, note)
			}
			for _, warn := range r.Warnings {
				line += fmt.Sprintf("\n      #%d: warning: %s", r.Discussion, warn)
			}
		}
	}
	if err != nil {
		line += fmt.Sprintf(" error: %v", err)
		if fault == "" && !errors.Is(err, resume.ErrRefused) {
			s.logf("%s", line)
			s.fail("a run without an injected fault failed: %v", err)
		}
	}
	s.logf("%s", line)
	s.register()
	return res, err
}

// Request classes faults are aimed at.
var (
	simReadFields  = []string{"repository", "node", "nodes", "search"}
	simWriteFields = []string{"addDiscussionComment", "updateDiscussionComment", "addReaction", "removeReaction",
		"addLabelsToLabelable", "removeLabelsFromLabelable", "createCommitOnBranch"}
	simDispatch = "/repos/" + Repo + "/actions/workflows/" + Workflow + "/dispatches"
	simActions  = "/repos/" + Repo + "/actions/"
)

// injectFault arms one fault for the next run and says which.
func (s *sim) injectFault(what string, n int) (func(http.RoundTripper) http.RoundTripper, string) {
	g := s.w.GH
	switch s.pick(10) {
	case 0:
		f := simReadFields[s.pick(len(simReadFields))]
		count := 1 + 2*s.pick(2) // 1: retried away; 3: the read fails
		g.Fail(githubfake.Fault{Field: f, Status: 502, Count: count})
		return nil, fmt.Sprintf("502 on %d %s read(s)", count, f)
	case 1:
		count := 1 + 2*s.pick(2)
		g.Fail(githubfake.Fault{Method: http.MethodGet, Path: simActions, Status: 503, Count: count})
		return nil, fmt.Sprintf("503 on %d actions read(s)", count)
	case 2:
		f := simWriteFields[s.pick(len(simWriteFields))]
		g.Fail(githubfake.Fault{Field: f, Status: 502, Count: 1})
		return nil, "502 on " + f
	case 3:
		f := simWriteFields[s.pick(len(simWriteFields))]
		g.Fail(githubfake.Fault{Field: f, AfterApply: true, Count: 1})
		return nil, "502 after applying " + f
	case 4:
		after := s.chance(0.5)
		g.Fail(githubfake.Fault{Method: http.MethodPost, Path: simDispatch, Status: 502, AfterApply: after, Count: 1})
		if after {
			return nil, "502 after applying the dispatch"
		}
		return nil, "502 on the dispatch"
	case 5:
		retry := []int{5, 30, 7200}[s.pick(3)] // the last is longer than MaxWait
		path := []string{simActions, "/graphql"}[s.pick(2)]
		g.Fail(githubfake.SecondaryRateLimit(path, retry))
		return nil, fmt.Sprintf("secondary rate limit on %s (retry-after %d)", path, retry)
	case 6:
		f := []string{"repository", "addDiscussionComment", "updateDiscussionComment", "createCommitOnBranch", ""}[s.pick(5)]
		// The transport waits on the wall clock; a reset a few seconds away
		// costs nothing (Sleep returns at once).
		g.Fail(githubfake.GraphQLRateLimited(f, time.Now().Add(5*time.Second)))
		return nil, fmt.Sprintf("GraphQL RATE_LIMITED on %q", f)
	case 7:
		k := s.pick(12)
		applied := s.chance(0.5)
		return KillAfter(k, applied), fmt.Sprintf("killed after %d requests (next applied: %v)", k, applied)
	default:
		// Early requests are where a run has read and not yet written.
		k := s.pick(1 + s.pick(8))
		return s.intruder(k, what, n), fmt.Sprintf("another run slips in at request %d", k+1)
	}
}

// intruder lets another run of recess (or of the agent) do its whole work
// just before the k-th request of this one goes out: a concurrent write at
// a deterministic moment. Which run depends on the schedule: a comment
// arriving with its inbound run, a waiting agent run claiming, a claimed
// one delivering its verdict, or a sweep.
func (s *sim) intruder(k int, what string, n int) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		calls, done := 0, false
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			calls++
			if calls > k && !done && !(s.store == "comment" && commitsStatus(req)) {
				done = true
				s.intrusions++
				s.intrude(what, n)
			}
			return next.RoundTrip(req)
		})
	}
}

// commitsStatus reports whether req is the comment store's update of a
// status comment: the second half of its read-compare-write, which GitHub
// cannot make atomic. Another writer slipping in just before it is lost
// (see TestRace_comment_store_window); the front door's concurrency group
// makes that rare, and the schedules here leave that one moment alone.
func commitsStatus(req *http.Request) bool {
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	return err == nil && strings.Contains(string(b), "updateDiscussionComment")
}

func (s *sim) intrude(what string, n int) {
	waiting, claimed := s.agentRuns()
	var onDisc []*simRun
	for _, r := range append(waiting, claimed...) {
		if (n == 0 || r.disc == n) && r != s.busy {
			onDisc = append(onDisc, r)
		}
	}
	switch {
	case len(onDisc) > 0 && s.chance(0.5):
		r := onDisc[s.pick(len(onDisc))]
		s.logf("  meanwhile:")
		if !r.claimed {
			s.claim(r, false)
		} else {
			if r.verdict == "" {
				r.verdict = s.randomVerdict(r)
			}
			s.deliver(r, false)
		}
	case n != 0 && (what == "claim" || what == "verdict" || what == "sweep") && s.chance(0.7):
		// Intake and inbound runs on one discussion are serialised by the
		// front door's concurrency group; the sweep (its own group) and the
		// agent workflow's steps may overlap them.
		d := s.byNumber(n)
		author := simUsers[s.pick(len(simUsers))]
		s.logf("  meanwhile:")
		s.say(d, author, fmt.Sprintf("comment %d by %s", len(s.comments)+1, author), false)
	case what != "sweep":
		s.logf("  meanwhile:")
		s.recess("sweep", 0, false, func(e *resume.Engine) (*resume.Result, error) { return e.Sweep(s.ctx) })
	}
}

// register records the agent runs GitHub started since the last look.
func (s *sim) register() {
	for _, r := range s.w.Runs() {
		if _, ok := s.runs[r.ID]; ok {
			continue
		}
		n, err := strconv.Atoi(r.Inputs["discussion_number"])
		if err != nil {
			s.fail("run %d: discussion_number %q", r.ID, r.Inputs["discussion_number"])
		}
		sr := &simRun{run: r, disc: n, cid: r.Inputs["correlation_id"], step: s.step}
		if raw := r.Inputs["resume_context"]; raw != "" {
			if err := json.Unmarshal([]byte(raw), &sr.rc); err != nil {
				s.fail("run %d: resume_context %q: %v", r.ID, raw, err)
			}
			if sr.rc.FiredBy != resume.FiredByIntake {
				sr.recess = sr.rc.CorrelationID
			}
		}
		s.runs[r.ID] = sr
		s.logf("  → GitHub started run %d (%s, #%d, fired_by %q, %d comment(s) in resume_context)",
			r.ID, sr.cid, n, sr.rc.FiredBy, len(sr.rc.HistorySince))
	}
}

// record reads a discussion's record straight from the fake (not through a
// store: no request is charged and no fault applies). nil when none.
func (s *sim) record(d *simDisc) *state.Record {
	rec, err := readRecord(s.w, s.store, d.n, d.id)
	if err != nil {
		s.fail("record of #%d: %v", d.n, err)
	}
	return rec
}

// readRecord reads discussion n's record as the store keeps it, straight
// from the fake: the newest status comment by recess (comment store) or
// discussions/<n>.json on the state branch. nil when there is none.
func readRecord(w *World, store string, n int, discussionID string) (*state.Record, error) {
	switch store {
	case "comment":
		cs, err := w.GH.Comments(discussionID)
		if err != nil {
			return nil, err
		}
		var rec *state.Record
		for _, c := range cs {
			if c.Author != Bot || !state.HasMarker(c.Body) {
				continue
			}
			r, ok, err := state.DecodeComment(c.Body)
			if ok && err != nil {
				return nil, fmt.Errorf("status comment %s: %w", c.ID, err)
			}
			if ok {
				rec = r
			}
		}
		return rec, nil
	case "branch":
		body, ok, err := w.GH.File(Repo, "recess-state", fmt.Sprintf("discussions/%d.json", n))
		if err != nil || !ok {
			return nil, err
		}
		return state.Decode([]byte(body))
	}
	return nil, fmt.Errorf("unknown store %q", store)
}

// statusComments counts recess's status comments in a discussion.
func statusComments(w *World, discussionID string) int {
	n := 0
	for _, c := range w.RecessComments(discussionID) {
		if state.HasMarker(c.Body) {
			n++
		}
	}
	return n
}

// checkStep checks the invariants that hold after every step:
//
//	(a) per correlation id, and per fired recess (the original correlation
//	    id its runs carry), at most one EFFECTIVE run: claimed not stale and
//	    its verdict applied. Any other run that claimed was told stale.
//	(b) no comment is left where nothing comes back for it: on an open
//	    discussion whose record has nothing pending (no active run, no open
//	    recess, no queued dispatch: a sweep will not visit it), every
//	    person's comment is covered by the history cursor (handed to an
//	    agent run, or passed over by a closed recess), unless it was unheard
//	    (see simComment.unheard).
//	(c) at most one live run per discussion: claimed not stale, not finished.
//	    A live run's correlation id is the record's active one, claimed.
//	(d) no write lost: a verdict once applied is never active again and
//	    stays in Applied; the recess it opened is open, or was fired (a run
//	    or the active intent carries it), or closed with a note (or by a run
//	    that died right after its write, before the note), or expired with
//	    its discussion closed; the history cursor never moves back; no reply
//	    or note is posted twice (but an escalation note that a dying run
//	    left unposted, which every later pass owes, may be posted by two
//	    passes recovering it at once); one status comment at most.
func (s *sim) checkStep() {
	s.t.Helper()
	perCID, perRecess, live := map[string]int{}, map[string]int{}, map[int][]*simRun{}
	for _, id := range s.runIDs() {
		r := s.runs[id]
		if r.effective {
			perCID[r.cid]++
			if r.recess != "" {
				perRecess[r.recess]++
			}
		}
		if r.live() {
			live[r.disc] = append(live[r.disc], r)
		}
	}
	for cid, k := range perCID {
		if k > 1 {
			s.fail("invariant (a): %d effective runs for correlation id %s", k, cid)
		}
	}
	for x, k := range perRecess {
		if k > 1 {
			s.fail("invariant (a): recess %s fired %d effective runs", x, k)
		}
	}
	fired := map[string]bool{}
	for _, r := range s.runs {
		if r.recess != "" {
			fired[r.recess] = true
		}
	}
	for _, d := range s.discs {
		rec := s.record(d)
		prev := s.records[d.n]
		if len(live[d.n]) > 1 {
			s.fail("invariant (c): %d live agent runs on #%d", len(live[d.n]), d.n)
		}
		if k := statusComments(s.w, d.id); s.store == "comment" && k > 1 {
			s.fail("invariant (d): %d status comments on #%d", k, d.n)
		}
		for _, r := range live[d.n] {
			if rec == nil || rec.Active == nil || rec.Active.CorrelationID != r.cid || !rec.Active.Claimed {
				s.fail("invariant (c)/(d): run %d claimed %s on #%d and is working, but the record's active run is %s", r.run.ID, r.cid, d.n, activeOf(rec))
			}
		}
		if rec == nil {
			if prev != nil {
				s.fail("invariant (d): the record of #%d vanished", d.n)
			}
			continue
		}
		if rec.Active != nil && rec.Active.Resume != nil {
			fired[rec.Active.Resume.CorrelationID] = true
		}
		if !rec.Pending() && !d.closed {
			for _, c := range s.comments {
				if c.disc == d.n && c.human && !c.unheard && !rec.Seen.Covers(c.id, c.at) {
					s.fail("invariant (b): comment %s by @%s on #%d (step %d) is unseen and nothing is pending there: no sweep will come back for it",
						c.id, c.author, d.n, c.step)
				}
			}
		}
		if prev != nil {
			if rec.Seen.At.Before(prev.Seen.At) {
				s.fail("invariant (d): #%d history cursor moved back from %s to %s", d.n, prev.Seen.At, rec.Seen.At)
			}
			s.noteCloses(d, prev, rec, fired)
		}
		s.records[d.n] = rec
	}
	notes := s.notes()
	for cid, v := range s.applied {
		rec := s.records[v.disc]
		d := s.byNumber(v.disc)
		if rec.Active != nil && rec.Active.CorrelationID == cid {
			s.fail("invariant (d): verdict %s was applied at step %d, and #%d's active run is %s again", cid, v.step, v.disc, cid)
		}
		if s.appliedSince(v) < state.MaxApplied && !contains(rec.Applied, cid) {
			s.fail("invariant (d): verdict %s applied at step %d is missing from #%d's applied list %v", cid, v.step, v.disc, rec.Applied)
		}
		if !v.recessed || v.explained {
			continue
		}
		_, open := rec.OpenRFCs[cid]
		switch {
		case open:
		case fired[cid], notes[cid+".closed"] > 0, closedSince(d, v.step):
			v.explained = true
		case s.killed[s.step]:
			// Closed by a run that died between its write and its note:
			// the note went with it (see resume's notify).
			v.explained = true
			s.logf("  (recess %s closed by a run that died before posting its note)", cid)
		default:
			s.fail("invariant (d): the recess %s opened at step %d on #%d vanished: not open, not fired, not closed", cid, v.step, v.disc)
		}
	}
	for _, d := range s.discs {
		if rec := s.records[d.n]; rec != nil && rec.Escalated != nil && rec.Active != nil {
			if key := rec.Active.CorrelationID + ".escalated"; notes[key] == 0 {
				s.unposted[key] = true
			}
		}
	}
	for key, k := range notes {
		switch {
		case k <= 1:
		case s.unposted[strings.TrimSuffix(key, "#0")] && k == 2:
			// Every pass owes a missing escalation note again (none is
			// lost), and two at once may both post it: only after a run
			// died between recording the escalation and posting it.
			s.logf("  (escalation note %s posted again by two runs recovering it)", key)
		default:
			s.fail("invariant (d): recess posted %q %d times", key, k)
		}
	}
}

func activeOf(rec *state.Record) string {
	if rec == nil {
		return "(no record)"
	}
	if rec.Active == nil {
		return "none"
	}
	return fmt.Sprintf("%s (%s, claimed %v)", rec.Active.CorrelationID, rec.Active.State, rec.Active.Claimed)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// appliedSince counts the verdicts applied on v's discussion after v.
func (s *sim) appliedSince(v *simVerdict) int {
	n := 0
	for _, o := range s.applied {
		if o.disc == v.disc && o.step > v.step {
			n++
		}
	}
	return n
}

// closedSince reports whether the discussion is closed, or was closed at or
// after step.
func closedSince(d *simDisc, step int) bool {
	if d.closed {
		return true
	}
	for _, at := range d.closedAt {
		if at >= step {
			return true
		}
	}
	return false
}

// noteCloses finds the recesses that left the record without a resume
// since the last step, and remembers what their closing passed over.
func (s *sim) noteCloses(d *simDisc, prev, rec *state.Record, fired map[string]bool) {
	for id := range prev.OpenRFCs {
		if _, still := rec.OpenRFCs[id]; still || fired[id] || rec.Closed != "" || closedSince(d, s.step) {
			continue
		}
		s.closes = append(s.closes, simClose{disc: d.n, step: s.step, seen: rec.Seen})
	}
}

// notes counts the markers of recess's own comments: verdict replies by
// (correlation id, index), notes by key.
func (s *sim) notes() map[string]int {
	out := map[string]int{}
	for _, d := range s.discs {
		for _, c := range s.w.RecessComments(d.id) {
			if id, i, ok := state.ParseReplyMarker(c.Body); ok {
				out[fmt.Sprintf("%s#%d", id, i)]++
				if strings.Contains(id, ".") {
					out[id]++
				}
			}
		}
	}
	return out
}

// drain ends the schedule: faults off; an hour on, each discussion gets one
// more event (a later comment's: how recess learns of a discussion whose
// every run failed before it wrote a record, or whose record a sweep cannot
// find, see TestFaults_comment_store_label_after_a_crash); then rounds of:
// time passes,
// a sweep, every agent run answers "adjourned", maintainers retry
// escalations and resume what still waits; until nothing is pending.
func (s *sim) drain() {
	s.step++
	s.logf("step %d: drain", s.step)
	for _, d := range s.discs {
		if d.closed {
			if err := s.w.GH.ReopenDiscussion(d.id); err != nil {
				s.fail("reopen: %v", err)
			}
			d.closed = false
			s.logf("  #%d reopened", d.n)
			s.recess("inbound", d.n, false, func(e *resume.Engine) (*resume.Result, error) { return e.Inbound(s.ctx, d.n) })
		}
	}
	for round := 0; round < 12; round++ {
		s.w.Advance(2 * time.Hour)
		s.logf("  round %d: 2h later", round)
		s.recess("sweep", 0, false, func(e *resume.Engine) (*resume.Result, error) { return e.Sweep(s.ctx) })
		if round == 0 {
			s.laterEvents()
		}
		for {
			waiting, claimed := s.agentRuns()
			if len(waiting)+len(claimed) == 0 {
				break
			}
			for _, r := range append(waiting, claimed...) {
				if !r.claimed {
					s.claim(r, false)
				}
				if r.live() {
					if r.verdict == "" {
						r.verdict = s.adjourn(r)
					}
					s.deliver(r, false)
				}
			}
		}
		s.checkStep()
		idle := true
		for _, d := range s.discs {
			rec := s.records[d.n]
			if rec == nil {
				continue
			}
			switch {
			case rec.Escalated != nil:
				idle = false
				s.say(d, simMaintainer, "/recess retry", false)
			case rec.Active != nil || rec.Queued != nil:
				idle = false
			case len(rec.OpenRFCs) > 0:
				idle = false
				s.say(d, simMaintainer, "/recess resume", false)
			}
		}
		if idle {
			return
		}
	}
	s.fail("the schedule did not drain: records %s", s.describeRecords())
}

// laterEvents gives a discussion one more event (a later comment's) where
// only an event can bring recess back: comments unheard while nothing was
// pending; and, with the comment store, a pending record whose discussion
// lacks the waiting label, which no sweep finds (a run that died between
// writing the status comment and labelling the discussion; a known gap of
// the comment store, see TestRace_comment_store_label_after_a_crash).
func (s *sim) laterEvents() {
	for _, d := range s.discs {
		why := ""
		for _, c := range s.comments {
			if c.disc == d.n && c.unheard {
				why = fmt.Sprintf("comment %s was unheard while nothing was pending", c.id)
				break
			}
		}
		if rec := s.record(d); why == "" && s.store == "comment" && rec != nil && rec.Pending() && !s.labelled(d, resume.LabelWaiting) {
			why = "known gap: a pending record without the waiting label"
			s.t.Logf("seed %d: #%d: %s", s.seed, d.n, why)
		}
		if why == "" {
			continue
		}
		s.logf("  the next event on #%d (%s)", d.n, why)
		s.recess("inbound", d.n, false, func(e *resume.Engine) (*resume.Result, error) { return e.Inbound(s.ctx, d.n) })
	}
}

func (s *sim) labelled(d *simDisc, label string) bool {
	gd, err := s.w.GH.Discussion(Repo, d.n)
	if err != nil {
		s.fail("discussion #%d: %v", d.n, err)
	}
	return contains(gd.Labels, label)
}

func (s *sim) adjourn(r *simRun) string {
	b, _ := json.Marshal(map[string]any{"verdict": "adjourned", "correlation_id": r.cid, "discussion_number": r.disc,
		"replies": []map[string]string{{"body": "final answer from " + r.cid}}})
	return string(b)
}

func (s *sim) describeRecords() string {
	var parts []string
	for _, d := range s.discs {
		rec := s.records[d.n]
		if rec == nil {
			parts = append(parts, fmt.Sprintf("#%d: none", d.n))
			continue
		}
		parts = append(parts, fmt.Sprintf("#%d: active %s, queued %v, escalated %v, %d open", d.n, activeOf(rec), rec.Queued != nil, rec.Escalated != nil, len(rec.OpenRFCs)))
	}
	return strings.Join(parts, "; ")
}

// checkEnd checks what holds once the schedule drained:
//
//	(a) every fired recess (an original correlation id some run carries)
//	    has exactly one effective run.
//	(b) no human comment was lost. A comment counts as a person's words
//	    unless it is a write-level author's "/recess" command. The drain
//	    gives a discussion one later event only where a comment was unheard
//	    (see simComment.unheard); every other comment must reach an agent
//	    through sweeps, agent runs and maintainers' commands alone. Each one is
//	    in the resume_context history_since of an effective run; or an
//	    effective run with no resume_context (the first look at a
//	    discussion: the agent reads it whole) was dispatched in or after the
//	    step that wrote it; or a recess was closed without a resume (cancel,
//	    on_expire cancel) in or after that step and the history cursor
//	    right after covered it: deliberately passed over.
func (s *sim) checkEnd() {
	s.t.Helper()
	effective := map[string]int{}
	fired := map[string]bool{}
	for _, r := range s.runs {
		if r.recess == "" {
			continue
		}
		fired[r.recess] = true
		if r.effective {
			effective[r.recess]++
		}
	}
	for x := range fired {
		if effective[x] != 1 {
			s.fail("invariant (a): recess %s fired and has %d effective runs, want 1", x, effective[x])
		}
	}
	for _, c := range s.comments {
		if !c.human {
			continue
		}
		if why := s.covered(c); why == "" {
			s.fail("invariant (b): comment %s by @%s on #%d (step %d, %q) reached no effective agent run and was not passed over",
				c.id, c.author, c.disc, c.step, c.body)
		}
	}
}

func (s *sim) covered(c *simComment) string {
	for _, id := range s.runIDs() {
		r := s.runs[id]
		if !r.effective || r.disc != c.disc {
			continue
		}
		if r.run.Inputs["resume_context"] == "" && r.step >= c.step {
			return fmt.Sprintf("run %d read the discussion whole", r.run.ID)
		}
		for _, h := range r.rc.HistorySince {
			if h.ID == c.id {
				return fmt.Sprintf("in run %d's resume_context", r.run.ID)
			}
		}
	}
	for _, cl := range s.closes {
		if cl.disc == c.disc && cl.step >= c.step && cl.seen.Covers(c.id, c.at) {
			return fmt.Sprintf("passed over by the recess closed at step %d", cl.step)
		}
	}
	return ""
}

// The long tail of escalation and expiry, with real adapters.

// TestLongTail_failed_runs_retry_then_escalate: an agent run that ends
// without a verdict is dispatched again with the same resume_context
// (fired_by "retry") until max-attempts runs were used; then recess
// escalates: a comment mentioning escalate-to, the recess:escalated label,
// and no automatic dispatch, whatever happens, until a write-level author
// says /recess retry, which hands the agent the same recess and what was
// said meanwhile.
func TestLongTail_failed_runs_retry_then_escalate(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		for _, attempts := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s_max_attempts_%d", store, attempts), func(t *testing.T) {
				t.Parallel()
				cfg := resume.Config{MaxAttempts: attempts, EscalateTo: []string{"lead", "@ops-team"}}
				w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{Config: cfg, Maintainers: []string{"maya"}})
				recess := w.Runs()[0].Inputs["correlation_id"]
				w.Say(id, "", "bob", "postgres")
				must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				first := History(w.Waiting()[0])
				for a := 1; a <= attempts; a++ {
					waiting := w.Waiting()
					if len(waiting) != 1 {
						t.Fatalf("attempt %d: %d waiting runs, want 1", a, len(waiting))
					}
					rc := History(waiting[0])
					wantBy := wait.KindMissingInput
					if a > 1 {
						wantBy = wait.FiredByRetry
					}
					if rc.CorrelationID != recess || rc.FiredBy != wantBy || !cmp.Equal(rc.HistorySince, first.HistorySince) || rc.Trigger == nil {
						t.Errorf("attempt %d: resume_context = %s/%s with %d comment(s), want %s/%s with the first attempt's %d",
							a, rc.CorrelationID, rc.FiredBy, len(rc.HistorySince), recess, wantBy, len(first.HistorySince))
					}
					w.Fail(waiting[0], []string{"failure", "cancelled", "timed_out"}[a%3])
					w.Advance(time.Hour)
					must(t)(w.Engine(nil).Engine.Sweep(ctx))
				}
				if got := len(w.Waiting()); got != 0 {
					t.Fatalf("%d runs after %d failed attempts, want none (escalated)", got, attempts)
				}
				notes := 0
				for _, c := range w.RecessComments(id) {
					if k, _, ok := state.ParseReplyMarker(c.Body); ok && strings.HasSuffix(k, ".escalated") {
						notes++
						if !strings.Contains(c.Body, "@lead @ops-team") || !strings.Contains(c.Body, "/recess retry") {
							t.Errorf("escalation comment = %q, want it to mention @lead @ops-team and /recess retry", c.Body)
						}
					}
				}
				if notes != 1 {
					t.Errorf("%d escalation comments, want 1", notes)
				}
				if !labelled(t, w, n, resume.LabelEscalated) {
					t.Errorf("discussion lacks the %s label", resume.LabelEscalated)
				}
				runs := len(w.Runs())
				meanwhile := w.Say(id, "", "carol", "still waiting here")
				w.Say(id, "", "mallory", "/recess retry")
				must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				w.Advance(2 * time.Hour)
				must(t)(w.Engine(nil).Engine.Sweep(ctx))
				if got := len(w.Runs()); got != runs {
					t.Fatalf("%d automatic dispatch(es) while escalated, want none", got-runs)
				}
				w.Say(id, "", "maya", "/recess retry")
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if !res.Dispatched {
					t.Fatalf("/recess retry from a maintainer dispatched nothing: %q", res.Notes)
				}
				rc := History(w.Waiting()[0])
				if rc.CorrelationID != recess || rc.FiredBy != wait.FiredByRetry || !contains(historyIDs(w.Waiting()[0]), meanwhile) {
					t.Errorf("after /recess retry: resume_context %s/%s with %v, want %s/retry holding %s",
						rc.CorrelationID, rc.FiredBy, historyIDs(w.Waiting()[0]), recess, meanwhile)
				}
				if labelled(t, w, n, resume.LabelEscalated) {
					t.Errorf("the %s label stayed after /recess retry", resume.LabelEscalated)
				}
				if _, err := w.Answer(ctx, w.Waiting()[0], Adjourned("done at last")); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func labelled(t *testing.T, w *World, n int, label string) bool {
	t.Helper()
	d, err := w.GH.Discussion(Repo, n)
	if err != nil {
		t.Fatal(err)
	}
	return contains(d.Labels, label)
}

// TestLongTail_failed_dispatch_calls_burn_no_attempt: dispatch calls that
// fail (5xx, rate limited beyond the wait recess accepts) are retried by
// later runs without using an attempt; only agent runs that ran and ended
// without a verdict count.
func TestLongTail_failed_dispatch_calls_burn_no_attempt(t *testing.T) {
	t.Parallel()
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			w, n, id := recessedWorld(t, store, `{"kind":"missing_input","replies":1}`, Options{})
			w.Say(id, "", "bob", "postgres")
			w.GH.Fail(githubfake.Fault{Method: http.MethodPost, Path: simDispatch, Status: 502, Count: 1})
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			for i, f := range []githubfake.Fault{
				{Method: http.MethodPost, Path: simDispatch, Status: 503, Count: 1},
				githubfake.SecondaryRateLimit(simDispatch, 7200),
			} {
				w.GH.Fail(f)
				w.Advance(10 * time.Minute)
				must(t)(w.Engine(nil).Engine.Sweep(ctx))
				if got := len(w.Runs()); got != 1 {
					t.Fatalf("after failed dispatch call %d: %d runs, want only the first", i+2, got)
				}
			}
			rec, err := readRecord(w, store, n, id)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Active == nil || rec.Active.Attempt != 1 || rec.Active.DispatchErrors != 3 {
				t.Fatalf("record after 3 failed dispatch calls: %s attempt %d, %d dispatch errors; want attempt 1, 3 errors",
					activeOf(rec), rec.Active.Attempt, rec.Active.DispatchErrors)
			}
			w.Advance(10 * time.Minute)
			must(t)(w.Engine(nil).Engine.Sweep(ctx))
			for a := 1; a <= 2; a++ {
				waiting := w.Waiting()
				if len(waiting) != 1 {
					t.Fatalf("attempt %d: %d waiting runs, want 1", a, len(waiting))
				}
				w.Fail(waiting[0], "failure")
				w.Advance(time.Hour)
				must(t)(w.Engine(nil).Engine.Sweep(ctx))
			}
			if rec, _ := readRecord(w, store, n, id); rec.Escalated == nil || len(w.Waiting()) != 0 {
				t.Errorf("after two failed runs: escalated %v, %d waiting; want escalated, none", rec.Escalated != nil, len(w.Waiting()))
			}
		})
	}
}

// TestLongTail_gone_discussions_expire_their_recesses: a recess whose
// discussion was closed, locked or deleted is expired (not resolved) with
// the reason; nothing is dispatched for it, and a sweep leaves it alone.
// An agent run still at work there may still deliver its verdict.
func TestLongTail_gone_discussions_expire_their_recesses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reason string
		do           func(w *World, id string) error
	}{
		{"closed", "the discussion was closed", func(w *World, id string) error { return w.GH.CloseDiscussion(id, "RESOLVED") }},
		{"locked", "the discussion was locked", func(w *World, id string) error { return w.GH.LockDiscussion(id, true) }},
		{"deleted", "the discussion was deleted", func(w *World, id string) error { return w.GH.DeleteDiscussion(id) }},
	}
	for _, store := range bothStores {
		for _, tc := range cases {
			t.Run(store+"_"+tc.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, `{"kind":"elapsed","elapsed":"PT1H","expires":"P1D"}`, Options{})
				// A second recess elsewhere keeps the sweep honest.
				if err := tc.do(w, id); err != nil {
					t.Fatal(err)
				}
				before := len(w.Runs())
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				if tc.name != "deleted" || store == "branch" {
					if !containsText(res.Notes, "expired: "+tc.reason) {
						t.Errorf("notes = %q, want the recess expired: %s", res.Notes, tc.reason)
					}
				}
				w.Advance(2 * time.Hour)
				sw := must(t)(w.Engine(nil).Engine.Sweep(ctx))
				if got := len(w.Runs()); got != before || sw.Fired {
					t.Errorf("%d dispatch(es) after the discussion was %s, want none", got-before, tc.name)
				}
				if tc.name == "deleted" {
					if len(sw.Sweep) != 0 {
						t.Errorf("the sweep visited %d discussion(s), want none", len(sw.Sweep))
					}
					return
				}
				rec, err := readRecord(w, store, n, id)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Closed != tc.reason || len(rec.OpenRFCs) != 0 || rec.Pending() {
					t.Errorf("record: closed %q, %d open, pending %v; want %q, 0, false", rec.Closed, len(rec.OpenRFCs), rec.Pending(), tc.reason)
				}
				if store == "comment" && !strings.Contains(w.StatusLine(id), tc.reason) {
					t.Errorf("status line %q does not say %q", w.StatusLine(id), tc.reason)
				}
			})
		}
		t.Run(store+"_verdict_after_closing", func(t *testing.T) {
			t.Parallel()
			w := New(t, Options{Store: store})
			n, id := w.Open("alice")
			must(t)(w.Engine(nil).Engine.Intake(ctx, n))
			r := w.Waiting()[0]
			if err := w.GH.CloseDiscussion(id, "RESOLVED"); err != nil {
				t.Fatal(err)
			}
			must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
			if _, err := w.Answer(ctx, r, Adjourned("the answer, late")); err != nil {
				t.Errorf("the verdict of the run at work when the discussion closed: %v", err)
			}
		})
	}
}

func containsText(list []string, text string) bool {
	for _, s := range list {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// TestLongTail_missing_sweeps_warn_and_catch_up: scheduled workflows are
// best effort. A run that finds a recess due far longer ago than the
// schedule's interval warns that sweeps are not running, and catches its
// own discussion up (fires or expires what time alone decided); a sweep
// that is merely late does not warn.
func TestLongTail_missing_sweeps_warn_and_catch_up(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, trigger string
		late          time.Duration
		warn          bool
		fires         bool
	}{
		{"elapsed_a_day_late", `{"kind":"elapsed","elapsed":"PT1H"}`, 25 * time.Hour, true, true},
		{"expiry_resumes_a_day_late", `{"kind":"missing_input","replies":5,"expires":"PT1H"}`, 25 * time.Hour, true, true},
		{"expiry_cancels_a_day_late", `{"kind":"missing_input","replies":5,"expires":"PT1H","on_expire":"cancel"}`, 25 * time.Hour, true, false},
		{"elapsed_a_sweep_late", `{"kind":"elapsed","elapsed":"PT1H"}`, time.Hour + 5*time.Minute, false, true},
	}
	for _, store := range bothStores {
		for _, tc := range cases {
			t.Run(store+"_"+tc.name, func(t *testing.T) {
				t.Parallel()
				w, n, id := recessedWorld(t, store, tc.trigger, Options{})
				w.Advance(tc.late)
				w.Say(id, "", "bob", "hello? anyone?")
				res := must(t)(w.Engine(nil).Engine.Inbound(ctx, n))
				warned := containsText(res.Warnings, "sweeps do not seem to run")
				if warned != tc.warn {
					t.Errorf("warned = %v (warnings %q), want %v", warned, res.Warnings, tc.warn)
				}
				if res.Fired != tc.fires {
					t.Errorf("fired = %v, want %v (notes %q)", res.Fired, tc.fires, res.Notes)
				}
				rec, err := readRecord(w, store, n, id)
				if err != nil {
					t.Fatal(err)
				}
				if len(rec.OpenRFCs) != 0 {
					t.Errorf("the overdue recess is still open: the run did not catch up")
				}
			})
		}
	}
}
