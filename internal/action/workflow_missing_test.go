package action

import (
	"os"
	"strings"
	"testing"

	"github.com/recess-action/recess/internal/githubfake"
)

// A workflow input that names no file in the repository fails the run
// that would start the agent, with an ::error annotation and a job summary
// that name the input, the file and the fix; the discussion stays owed, and
// the first run after the input is right starts the agent once.
func TestAction_missing_agent_workflow_fails_loudly(t *testing.T) {
	t.Parallel()
	for _, store := range []string{storeComment, storeBranch} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, store)
			_, id, env, o := r.openEnv("alice", map[string]string{"INPUT_WORKFLOW": "agnet.yml"})
			if o.code == 0 || len(r.runs()) != 0 {
				t.Fatalf("intake with a missing agent workflow: exit %d, %d agent runs; want a failed run and none\n%s", o.code, len(r.runs()), o.stdout)
			}
			summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
			if err != nil {
				t.Fatal(err)
			}
			var annotation string
			for _, line := range strings.Split(o.stdout, "\n") {
				if strings.HasPrefix(line, "::error") {
					annotation = line
				}
			}
			for _, want := range []string{"workflow input", `"agnet.yml"`, ".github/workflows/agnet.yml"} {
				if !strings.Contains(annotation, want) {
					t.Errorf("::error annotation %q does not say %q", annotation, want)
				}
				if !strings.Contains(string(summary), want) {
					t.Errorf("job summary does not say %q:\n%s", want, summary)
				}
			}
			c, err := r.gh.Comment(id, "bob", "any news?")
			if err != nil {
				t.Fatal(err)
			}
			payload, err := r.gh.DiscussionCommentPayload(c.ID, githubfake.Event{Action: "created"})
			if err != nil {
				t.Fatal(err)
			}
			r.ok(r.action("discussion_comment", payload, nil), "the next event with the input right")
			if len(r.runs()) != 1 {
				t.Errorf("agent runs after the input was fixed = %d, want 1", len(r.runs()))
			}
		})
	}
}
