package action

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recess-action/recess/internal/githubfake"
	"github.com/recess-action/recess/internal/recesstest"
)

// summaryOf reads the job summary of the repo's latest run.
func (r *repo) summaryOf(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(r.dir + "/" + strconv.FormatInt(r.seq, 10) + ".summary.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// linesWith are the lines of s that contain sub.
func linesWith(s, sub string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// A slash command from someone without write access is said in the job
// summary as text: its image, link, HTML and mention do not render.
func TestSummaryShowsAnOutsidersCommandAsText(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, _ := r.recessed(`{"kind":"missing_input","replies":2}`)
			for _, body := range []string{
				"/recess ![pixel](https://evil.example/p.png)",
				"/recess [click](https://evil.example/login)",
				"/recess <img/src=x>",
				"/recess https://evil.example/@maya",
			} {
				_, o := r.say(id, "bob", body)
				r.ok(o, "inbound of "+body)
				lines := linesWith(r.summaryOf(t), "from @")
				if len(lines) == 0 {
					t.Fatalf("%q: the summary does not say the command was ignored:\n%s", body, r.summaryOf(t))
				}
				for _, l := range lines {
					if got := recesstest.RenderedMarkdown(l); len(got) > 0 {
						t.Errorf("%q: the summary line %q renders %q", body, l, got)
					}
				}
			}
		})
	}
}

// The agent's summary, shown in the status comment (comment store) and in
// the answer to /recess status, is text: whatever Markdown it carries (from
// a hostile comment it read, say) does not render, and it mentions nobody.
func TestStatusCommentShowsTheAgentsSummaryAsText(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id := r.open("alice")
			r.answer(r.newest(), "recessed", map[string]any{
				"trigger": map[string]any{"kind": "missing_input", "replies": 1},
				"summary": "Waiting for @maya.\n# Pick\n![pixel](https://evil.example/p.png) <img src=x> [docs](www.evil.example) _now_",
				"replies": []map[string]string{{"body": "Which storage backend should we assume?"}},
			})
			_, o := r.say(id, "maya", "/recess status")
			r.ok(o, "/recess status")
			cs, err := r.gh.Comments(id)
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, c := range cs {
				if c.Author == hostileBot {
					notes = append(notes, linesWith(c.Body, "The agent's note")...)
				}
			}
			want := map[string]int{storeComment: 2, storeBranch: 1}[store] // the status comment, the answer
			if len(notes) != want {
				t.Fatalf("lines with the agent's note = %q, want %d", notes, want)
			}
			for _, l := range notes {
				if got := recesstest.RenderedMarkdown(l); len(got) > 0 {
					t.Errorf("the line %q renders %q", l, got)
				}
			}
		})
	}
}

// warnings are the ::warning lines of a run's output, unescaped.
func warnings(stdout string) []string {
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	var out []string
	for _, line := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "::warning "); ok {
			_, msg, _ := strings.Cut(rest, "::")
			out = append(out, unescape.Replace(msg))
		}
	}
	return out
}

// A refused command is answered in plain sentences: what was wrong and what
// to write instead, with the text as the maintainer wrote it (no JSON
// escapes) and no setting's name; the setting is named to the maintainer,
// in the run's annotation.
func TestRefusedCommandIsAnsweredInPlainWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		answer     string // the reply recess posts under the command
		warning    string // the run's annotation, for the maintainer
	}{
		{
			name:    "duration_that_is_not_one",
			body:    "/recess extend <tomorrow>",
			answer:  "I did not act on this: /recess extend needs a duration such as P1D for one day or PT12H for twelve hours; “\\<tomorrow\\>” is not one (must start with P).",
			warning: "comment %s: /recess extend needs a duration such as P1D for one day or PT12H for twelve hours; “<tomorrow>” is not one (must start with P)",
		},
		{
			name:    "longer_than_the_repository_allows",
			body:    "/recess extend P1Y",
			answer:  "I did not act on this: a wait here may last at most P90D, and P1Y is longer; extend by less.",
			warning: "comment %s: /recess extend P1Y is longer than max-recess P90D",
		},
	}
	for _, store := range []string{storeComment, storeBranch} {
		for _, tt := range tests {
			t.Run(store+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := newRepo(t, store)
				_, id, _ := r.recessed(`{"kind":"missing_input","replies":2}`)
				cid, o := r.say(id, "maya", tt.body)
				r.ok(o, "inbound")
				cs, err := r.gh.Comments(id)
				if err != nil {
					t.Fatal(err)
				}
				var answers []string
				for _, c := range cs {
					if c.Author == hostileBot && c.ParentID == cid {
						answers = append(answers, shown(c.Body))
					}
				}
				if diff := cmp.Diff([]string{tt.answer}, answers); diff != "" {
					t.Errorf("recess's answer to %q (-want +got):\n%s", tt.body, diff)
				}
				want := strings.Replace(tt.warning, "%s", cid, 1)
				if got := warnings(o.stdout); !cmp.Equal(got, []string{want}) {
					t.Errorf("warnings = %q, want %q", got, want)
				}
				if l := linesWith(r.summaryOf(t), "comment "+cid); len(l) != 1 || strings.Contains(l[0], `\u003c`) {
					t.Errorf("summary lines about the comment = %q, want one without JSON escapes", l)
				}
			})
		}
	}
}

// shown is a comment body without recess's hidden markers.
func shown(body string) string {
	return strings.TrimSpace(regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(body, ""))
}

// When GitHub refuses to start the agent workflow (here: inputs it does
// not declare), the people in the discussion read that it did, that nobody
// was told (no escalate-to), and that recess tries again once the workflow
// changes or a maintainer retries; GitHub's answer (a URL, the workflow's
// inputs) is in the run's annotations. Once the workflow declares the
// inputs (a new version of its file), the next sweep starts the agent.
func TestRefusedDispatchIsSaidToPeopleWithoutGitHubsAnswer(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			narrow := map[string]githubfake.InputSpec{"correlation_id": {Required: true}}
			if err := r.gh.AddWorkflow(hostileRepo, "narrow.yml", narrow, func(in map[string]string) string { return "agent " + in["correlation_id"] }); err != nil {
				t.Fatal(err)
			}
			_, id, o := r.openWith("alice", map[string]string{"INPUT_WORKFLOW": "narrow.yml"})
			cs, err := r.gh.Comments(id)
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, c := range cs {
				if c.Author == hostileBot && strings.HasPrefix(c.Body, "⚠️") && !strings.Contains(c.Body, "recess:state") {
					notes = append(notes, shown(c.Body))
				}
			}
			want := []string{"⚠️ recess cannot start the agent for this discussion: GitHub refused to start the agent workflow; the recess run's log says why. " +
				"Nobody was told, as no maintainer is set to be mentioned (`escalate-to`): please let a maintainer of this repository know. " +
				"It tries again by itself once the agent workflow changes; a maintainer can also say `/recess retry`."}
			if diff := cmp.Diff(want, notes); diff != "" {
				t.Errorf("escalation notes (-want +got):\n%s", diff)
			}
			if !strings.Contains(o.stdout, "422 Unexpected inputs provided") {
				t.Errorf("the run's annotations do not say what GitHub answered:\n%s", o.stdout)
			}

			// The workflow's file gets the inputs recess sends.
			full := map[string]githubfake.InputSpec{"correlation_id": {Required: true}, "discussion_number": {Required: true}, "resume_context": {}}
			if err := r.gh.AddWorkflow(hostileRepo, "narrow.yml", full, func(in map[string]string) string { return "agent " + in["correlation_id"] }); err != nil {
				t.Fatal(err)
			}
			r.clock.Step(7 * time.Minute)
			sweep := r.ok(r.action("schedule", []byte(`{"schedule":"2-59/5 * * * *"}`), map[string]string{"INPUT_COMMAND": "sweep", "INPUT_WORKFLOW": "narrow.yml"}), "sweep")
			if len(r.runs()) != 1 || sweep.outputs["fired"] == "true" {
				t.Errorf("after the workflow declared its inputs: %d agent runs, fired %q; want the fresh run started, once", len(r.runs()), sweep.outputs["fired"])
			}
		})
	}
}
