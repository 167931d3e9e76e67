package resume

import (
	"strings"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// FuzzReading checks the one rule for what a comment is to recess on any
// body people can write: what it says to the agent is always the body or a
// part of it; a refused command says nothing; an accepted signal names
// a signal an open recess awaits; the answer never depends on who else is
// reading.
func FuzzReading(f *testing.F) {
	for _, body := range []string{
		"/recess signal security-review", "/recess signal Security-Review\n\nreviewed", "/recess signal secuirty-review",
		"/recess extend banana", "/recess extend P1D\nplease", "/recess status", "/recess frobnicate\nwords",
		"\n\n  /recess   cancel  \n", "/recessed", "hello\n/recess resume", "/recess", "", "/recess ask now",
		"/recess signal a b", "/recess signal " + strings.Repeat("x", 65),
	} {
		f.Add(body, true, false)
		f.Add(body, false, true)
	}
	rec := state.New(1)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: storetest.MustTrigger(`{"kind":"any","of":[{"kind":"escalation_needed","signal":"security-review"},{"kind":"missing_input","replies":1}]}`)}}
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body string, write, working bool) {
		r := rec.Clone()
		if working {
			r.Active = &state.Run{CorrelationID: "c-2", State: state.RunDispatched}
		}
		p := wordsPass(Config{}, r)
		// What GitHub answered for maya's permission: write or read.
		p.s.perms = map[string]access{"maya": {perm: Permission{Role: "read"}}}
		if write {
			p.s.perms["maya"] = access{perm: Permission{Role: "write", Write: true}}
		}
		c := &Comment{ID: "DC_1", Author: "maya", Association: "MEMBER", Body: body, CreatedAt: at}
		got := p.reading(c)
		if !strings.Contains(body, got.said) {
			t.Fatalf("reading(%q).said = %q: not a part of the body", body, got.said)
		}
		switch {
		case !got.hasCmd, got.outsider:
			if got.said != body || got.accepted() {
				t.Fatalf("reading(%q) = %+v: an ordinary comment says its whole body and commands nothing", body, got)
			}
			if got.outsider && write {
				t.Fatalf("reading(%q): a write-level author taken for an outsider", body)
			}
		case got.refused.people != "":
			if got.said != "" || got.reply() || got.accepted() {
				t.Fatalf("reading(%q) = %+v: a refused command counts for something", body, got)
			}
		default:
			if !write {
				t.Fatalf("reading(%q): a command accepted from an author without write access", body)
			}
			if line, rest := text.FirstLine(body); !strings.Contains(rest, got.said) || strings.TrimSpace(line) == "" {
				t.Fatalf("reading(%q).said = %q: not what follows the command's line", body, got.said)
			}
			if got.cmd.name == "signal" && !working && !wait.SameSignal(got.cmd.arg, "security-review") {
				t.Fatalf("reading(%q): accepted a signal no open recess awaits", body)
			}
		}
		if again := p.reading(c); again != got {
			t.Fatalf("reading(%q) changed between two calls: %+v, then %+v", body, got, again)
		}
	})
}
