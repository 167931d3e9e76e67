package resume

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under resume/testdata (words.golden, prompt/*.golden)")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./resume -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from what recess says now (go test ./resume -run %s -update rewrites it); got:\n%s", path, t.Name(), got)
	}
}

var wordsT0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// wordsCase is what a decision reads over a discussion with the given
// comments after the recess opened, and the record it decides.
type wordsCase struct {
	*facts
	rec     *state.Record
	effects []Effect
}

func wordsPass(cfg Config, rec *state.Record, comments ...Comment) *wordsCase {
	if rec.OpenRFCs == nil {
		rec.OpenRFCs = map[string]*state.RFC{}
	}
	d := &Thread{ID: "D_1", Number: 1, Author: "alice", CreatedAt: wordsT0.Add(-time.Hour), Comments: comments}
	f := &facts{s: snapshot{rec: rec, d: d}, cfg: cfg.withDefaults(), now: wordsT0.Add(time.Hour), d: d, awaited: awaitedSignals(rec)}
	return &wordsCase{facts: f, rec: rec}
}

func (w *wordsCase) statusLine() string { return w.facts.statusLine(w.rec, w.observeAll(w.rec)) }

func (w *wordsCase) status() string { return w.facts.status(w.rec, w.observeAll(w.rec)) }

func (w *wordsCase) notifyEscalation(a *state.Run) {
	w.effects = append(w.effects, w.facts.notifyEscalation(w.rec, a).after...)
}

// TestWords holds, in testdata/words.golden, every status text, note and
// answer recess shows people, for each trigger kind and each state: so that
// each reads as a plain sentence, and a change of words is a reviewed diff.
func TestWords(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	section := func(name string) { fmt.Fprintf(&b, "\n## %s\n\n", name) }
	entry := func(name, text string) { fmt.Fprintf(&b, "### %s\n%s\n\n", name, text) }

	mi1 := `{"kind":"missing_input","replies":1}`
	mi2 := `{"kind":"missing_input","replies":2}`
	el := `{"kind":"elapsed","elapsed":"P2D"}`
	sig := `{"kind":"escalation_needed","signal":"security"}`
	triggers := []struct{ name, doc string }{
		{"missing_input 1", mi1},
		{"missing_input 2", mi2},
		{"missing_input from", `{"kind":"missing_input","replies":2,"from":["carol","dave"]}`},
		{"missing_input thread", `{"kind":"missing_input","replies":2,"scope":"thread"}`},
		{"elapsed", el},
		{"escalation_needed", sig},
		{"any of replies, time", `{"kind":"any","of":[` + mi2 + `,` + el + `]}`},
		{"any of three", `{"kind":"any","of":[` + mi1 + `,` + el + `,` + sig + `]}`},
		{"all of replies, signal", `{"kind":"all","of":[` + mi2 + `,` + sig + `]}`},
		{"all of one reply, signal", `{"kind":"all","of":[` + mi1 + `,` + sig + `]}`},
		{"all of any, signal", `{"kind":"all","of":[{"kind":"any","of":[` + mi2 + `,` + el + `]},` + sig + `]}`},
		{"any with a child expiry", `{"kind":"any","of":[{"kind":"missing_input","replies":2,"expires":"P1D","on_expire":"cancel"},` + sig + `]}`},
	}
	expiries := []struct{ name, fields string }{
		{"", ""},
		{", expires resume", `,"expires":"P7D","on_expire":"resume"`},
		{", expires cancel", `,"expires":"P7D","on_expire":"cancel"`},
	}
	reply := Comment{ID: "DC_carol", Author: "carol", Association: "NONE", Body: "Postgres", CreatedAt: wordsT0.Add(time.Minute)}
	section("the status comment, whole")
	{
		rec := state.New(1)
		rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(mi2), OpenedAt: wordsT0}}
		entry("something pending", wordsPass(Config{}, rec).status())
		entry("nothing pending (reduced to one small line)", wordsPass(Config{}, state.New(1)).status())
	}
	section("waiting")
	for _, tr := range triggers {
		for _, ex := range expiries {
			doc := strings.TrimSuffix(tr.doc, "}") + ex.fields + "}"
			for _, replies := range []int{0, 1} {
				rec := state.New(1)
				rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(doc), OpenedAt: wordsT0}}
				var comments []Comment
				if replies == 1 {
					comments = append(comments, reply)
				}
				p := wordsPass(Config{}, rec, comments...)
				entry(fmt.Sprintf("%s%s, %d repl%s in", tr.name, ex.name, replies, map[bool]string{true: "y", false: "ies"}[replies == 1]), p.statusLine())
			}
		}
	}
	section("waiting, with the agent's summary")
	{
		rec := state.New(1)
		rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(mi2), OpenedAt: wordsT0,
			Summary: "Waiting for the storage owners\nto pick a backend."}}
		entry("summary shown", wordsPass(Config{}, rec).status())
		entry("summary hidden (hide-summary)", wordsPass(Config{HideSummary: true}, rec.Clone()).status())
		rec = rec.Clone()
		rec.OpenRFCs["c-1"].Summary = "# Asked @maya\n![pixel](https://evil.example/p.png) <b>now</b> [docs](www.evil.example)"
		entry("summary with Markdown of its own (shown as text)", wordsPass(Config{}, rec).status())
	}

	section("working")
	run := func(resume *state.Resume, attempt int, runID int64) *state.Record {
		rec := state.New(1)
		rec.Active = &state.Run{CorrelationID: "c-2", State: state.RunDispatched, Attempt: attempt, RunID: runID, Resume: resume}
		return rec
	}
	entry("fresh run", wordsPass(Config{}, run(nil, 1, 0)).status())
	entry("fresh run, linked", wordsPass(Config{RepositoryURL: "https://github.com/octo/rfcs"}, run(nil, 1, 4242)).status())
	for _, by := range []string{wait.KindMissingInput, wait.KindElapsed, wait.KindEscalationNeeded, wait.FiredByExpired, wait.FiredByManual, wait.FiredByRetry} {
		entry("resumed by "+by, wordsPass(Config{}, run(&state.Resume{CorrelationID: "c-1", FiredBy: by}, 1, 0)).status())
	}
	entry("second attempt, linked", wordsPass(Config{RepositoryURL: "https://github.com/octo/rfcs"}, run(&state.Resume{CorrelationID: "c-1", FiredBy: wait.FiredByRetry}, 2, 4243)).status())

	section("escalated")
	{
		rec := run(nil, 2, 0)
		rec.Active.State = state.RunEscalated
		rec.Escalated = &state.Escalation{At: wordsT0, Reason: "agent run 4243 ended (failure) without a verdict; 2 of 2 attempts used"}
		p := wordsPass(Config{EscalateTo: []string{"lead", "@ops"}}, rec)
		entry("status", p.status())
		p.notifyEscalation(rec.Active)
		entry("note, mentioning escalate-to", p.effects[0].Body)
		p = wordsPass(Config{}, rec.Clone())
		p.notifyEscalation(p.rec.Active)
		entry("note, nobody to mention", p.effects[0].Body)
	}

	section("blocked: GitHub refused the dispatch")
	{
		rec := run(nil, 1, 0)
		rec.Active.State = state.RunEscalated
		rec.Escalated = &state.Escalation{At: wordsT0, Reason: "the agent workflow recess is set to start is not in this repository", Setup: "answer.yml@HEAD blob absent"}
		p := wordsPass(Config{EscalateTo: []string{"lead"}}, rec)
		entry("status, escalate-to set", p.status())
		p.notifyEscalation(rec.Active)
		entry("note, mentioning escalate-to", p.effects[0].Body)
		p = wordsPass(Config{}, rec.Clone())
		entry("status, nobody to mention", p.status())
		p.notifyEscalation(p.rec.Active)
		entry("note, nobody to mention", p.effects[0].Body)
	}

	section("queued")
	for _, q := range []struct{ name, reason, why string }{
		{"per discussion", "recess already started 10 agent runs here in the last hour", ""},
		{"per repository", "many agent runs started in this repository in the last hour", ""},
		{"count unreadable", "the repository's recent agent runs could not be counted", ""},
	} {
		rec := state.New(1)
		rec.Queued = &state.Queued{Until: wordsT0.Add(20 * time.Minute), Reason: q.reason}
		entry(q.name, wordsPass(Config{}, rec).status())
	}

	section("not waiting")
	for _, reason := range []string{"the discussion was closed", "the discussion was locked", "the discussion was deleted"} {
		rec := state.New(1)
		rec.Closed = reason
		entry(reason, wordsPass(Config{}, rec).status())
	}
	entry("nothing pending", wordsPass(Config{}, state.New(1)).status())

	section("notes")
	{
		rec := state.New(1)
		trig := storetest.MustTrigger(`{"kind":"missing_input","replies":2,"expires":"P1D","on_expire":"cancel"}`)
		rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: trig, OpenedAt: wordsT0}}
		p := wordsPass(Config{}, rec, reply)
		entry("cancelled by a maintainer", p.text("note.cancelled", "author", "maya"))
		o := p.observe(rec.OpenRFCs["c-1"])
		entry("expired", p.text("note.expired", "at", humanTime(wordsT0.Add(24*time.Hour)), "what", triggerWords(trig, &o, false)))
	}

	section("answers to commands")
	{
		p := wordsPass(Config{}, state.New(1))
		for _, body := range []string{"/recess frobnicate", "/recess status now", "/recess signal", "/recess signal <b>x</b>", "/recess extend",
			"/recess extend tomorrow", "/recess extend <tomorrow>", "/recess extend P1x", "/recess extend P1Y", "/recess ![x](https://example.com/x.png)"} {
			cmd, _ := parseCommand(body)
			entry("refused: "+body, p.text("answer.refused", "why", p.refusal(cmd, wordsT0).people))
		}
		waiting := state.New(1)
		waiting.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"escalation_needed","signal":"security-review"}`), OpenedAt: wordsT0}}
		entry("refused: /recess signal secuirty-review (nothing awaits it)", p.text("answer.refused", "why", wordsPass(Config{}, waiting).refusal(command{name: "signal", arg: "secuirty-review"}, wordsT0).people))
		entry("refused: /recess signal ci (no recess waits for a signal)", p.text("answer.refused", "why", p.refusal(command{name: "signal", arg: "ci"}, wordsT0).people))
		entry("cancel with nothing open", p.text("answer.no_recess", "command", "cancel"))
		status, err := state.EncodeComment("✅ Nothing is pending here.", state.New(1))
		if err != nil {
			t.Fatal(err)
		}
		q := wordsPass(Config{}, state.New(1),
			Comment{ID: "DC_gone", Deleted: true, CreatedAt: wordsT0},
			Comment{ID: "DC_hidden", Author: "bob", URL: "https://github.com/o/r/discussions/1#discussioncomment-2", Minimized: true, CreatedAt: wordsT0},
			Comment{ID: "DC_status", Author: "github-actions", Mine: true, Body: status, URL: "https://github.com/o/r/discussions/1#discussioncomment-3", CreatedAt: wordsT0})
		for _, id := range []string{"DC_gone", "DC_hidden", "DC_status", "DC_elsewhere"} {
			entry("verdict reply placed at the top level: "+id, q.text("reply.answered", "what", PlaceReply(q.d, id).Answered))
		}
		entry("resume with nothing open", p.text("answer.no_recess", "command", "resume"))
		entry("retry with nothing escalated", p.text("answer.not_escalated"))
		entry("ask while busy", p.text("answer.already_active"))
	}
	golden(t, "words.golden", "# Every text recess shows people (go test ./resume -run TestWords -update rewrites this file)\n"+b.String())
}
