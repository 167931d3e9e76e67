package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// The job summary's title names the kind of thread the run was about.
func TestSummary_names_the_kind_of_thread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind state.Kind
		want string
	}{
		{"", "### recess · claim · discussion #12\n"},
		{state.KindIssue, "### recess · claim · issue #12\n"},
		{state.KindPullRequest, "### recess · claim · pull request #12\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind.OrDiscussion()), func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "summary.md")
			getenv := func(k string) string {
				if k == "GITHUB_STEP_SUMMARY" {
					return file
				}
				return ""
			}
			gha := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(&bytes.Buffer{}))
			r := &actionReport{gha: gha, inv: &invocation{}, hasSummary: true}
			r.summary(&execution{Result: &resume.Result{Command: CommandClaim, Discussion: 12, Kind: tt.kind}})
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), tt.want) {
				t.Errorf("summary starts %q, want %q", strings.SplitAfter(string(b), "\n")[0], tt.want)
			}
		})
	}
}
