package action

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// From a fresh clone, with no GitHub token of one's own: build and start
// recess-lab fakegithub with the seed of a waiting discussion, then `recess status`
// and `recess sweep --dry-run` against it print that discussion and the
// moment time alone fires it. This is the README's local path, end to end,
// with the fake as its own process.
func TestStatusAgainstFakegithub(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds cmd/recess-lab")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), "recess-lab")
	build := exec.Command(goTool, "build", "-o", bin, "../../cmd/recess-lab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/recess-lab: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started := time.Now().UTC().Truncate(time.Second)
	fake := exec.CommandContext(ctx, bin, "fakegithub", "--addr", "127.0.0.1:0", "--seed", "../../testdata/fakegithub/waiting.yml")
	fakeLog, err := os.Create(filepath.Join(t.TempDir(), "fakegithub.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer fakeLog.Close()
	fake.Stderr = fakeLog
	stdout, err := fake.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = fake.Process.Kill()
		_ = fake.Wait()
	})
	env := map[string]string{"GITHUB_TOKEN": "ghs_local"}
	sc := bufio.NewScanner(stdout)
	for len(env) < 4 && sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	if env["GITHUB_API_URL"] == "" || env["GITHUB_GRAPHQL_URL"] == "" {
		log, _ := os.ReadFile(fakeLog.Name())
		t.Fatalf("fakegithub printed %v\n%s", env, log)
	}
	cli := func(args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("recess %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}

	// The recess waits for two more replies or two days: status says so
	// and names the moment.
	out, _ := cli("status", "--repo", "octo/hello", "--json")
	var st cliReport
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("recess status --json: %v\n%s", err, out)
	}
	if len(st.Discussions) != 1 || st.Discussions[0].Discussion != 1 || st.Discussions[0].DueAt == nil {
		t.Fatalf("recess status --json: discussions %+v, want #1 with a due moment", st.Discussions)
	}
	due := *st.Discussions[0].DueAt
	shown := moment(due) // the table's moment: RECESS_NOW set to it fires
	if len(st.RFCs) != 1 || !due.Equal(st.RFCs[0].OpenedAt.Add(48*time.Hour)) || st.RFCs[0].OpenedAt.Before(started) || st.RFCs[0].OpenedAt.After(time.Now()) {
		t.Fatalf("recess status --json: rfcs %+v, want one opened since %v, due two days later", st.RFCs, started)
	}
	out, _ = cli("status", "--repo", "octo/hello")
	for _, want := range []string{"#1", "for 2 more replies (0 of 2 so far)", shown} {
		if !strings.Contains(out, want) {
			t.Errorf("recess status lacks %q:\n%s", want, out)
		}
	}

	// Now, a sweep would leave it; at the due moment it would resume it.
	out, _ = cli("sweep", "--dry-run", "--repo", "octo/hello")
	if !strings.Contains(out, "#1") || !strings.Contains(out, "nothing: not due until "+shown) {
		t.Errorf("recess sweep --dry-run now:\n%s", out)
	}
	env["RECESS_NOW"] = shown
	out, _ = cli("sweep", "--dry-run", "--repo", "octo/hello")
	if !strings.Contains(out, "#1") || !strings.Contains(out, "would resume the agent (fired by elapsed)") {
		t.Errorf("recess sweep --dry-run at %s:\n%s", shown, out)
	}
}
