package action

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/internal/githubfake"
)

// actionsRun is one run of the binary laid out the way GitHub Actions lays
// it out: the environment, the event payload file, empty output and summary
// files. Tests of action mode drive the binary through it; nothing else
// fakes an environment.
type actionsRun struct {
	gh          *githubfake.GitHub
	repo, token string
	dir         string
	seq         int64
	now         time.Time
	event       string
	payload     []byte
}

// env writes the run's files and returns its environment, with extra
// (INPUT_* and the like) on top.
func (r actionsRun) env(extra map[string]string) (map[string]string, error) {
	base := filepath.Join(r.dir, strconv.FormatInt(r.seq, 10))
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   r.event,
		"GITHUB_EVENT_PATH":   base + ".event.json",
		"GITHUB_OUTPUT":       base + ".output",
		"GITHUB_STEP_SUMMARY": base + ".summary.md",
		"GITHUB_REPOSITORY":   r.repo,
		"GITHUB_API_URL":      strings.TrimSuffix(r.gh.URL(), "/"),
		"GITHUB_GRAPHQL_URL":  r.gh.GraphQLURL(),
		"GITHUB_SERVER_URL":   "https://github.test",
		"GITHUB_RUN_ID":       strconv.FormatInt(r.seq, 10),
		"GITHUB_WORKSPACE":    r.dir,
		"RECESS_NOW":          r.now.Format(time.RFC3339),
		"INPUT_GITHUB-TOKEN":  r.token,
	}
	for k, v := range extra {
		env[k] = v
	}
	for _, f := range []string{env["GITHUB_OUTPUT"], env["GITHUB_STEP_SUMMARY"]} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(env["GITHUB_EVENT_PATH"], r.payload, 0o600); err != nil {
		return nil, err
	}
	return env, nil
}

// readOutputs parses a GITHUB_OUTPUT file (name<<DELIMITER ... DELIMITER).
func readOutputs(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			if k, v, ok := strings.Cut(lines[i], "="); ok {
				out[k] = v
			}
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out, nil
}
