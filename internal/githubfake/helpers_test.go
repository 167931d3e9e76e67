package githubfake

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/recess-action/recess/internal/fakeclock"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/shurcooL/githubv4"
)

// Tokens and names every test world uses.
const (
	ownerToken = "tok-owner"
	aliceToken = "tok-alice"
	botToken   = "tok-bot"
	testRepo   = "octo/hello"
)

// testClock is a settable clock for the fake.
func newTestClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
}

// world is a started fake with a repository, three identities and a clock.
type world struct {
	g     *GitHub
	clock *fakeclock.Clock
}

func newWorld(t *testing.T, opts ...Option) *world {
	t.Helper()
	clk := newTestClock()
	g := New(append([]Option{WithClock(clk.Now)}, opts...)...)
	g.AddRepo("octo", "hello")
	g.AddToken(ownerToken, "octo", KindUser)
	g.AddToken(aliceToken, "alice", KindUser)
	g.AddToken(botToken, "github-actions", KindBot)
	g.Start()
	t.Cleanup(g.Close)
	return &world{g: g, clock: clk}
}

type tokenTransport struct {
	token string
}

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(token string) *http.Client {
	return &http.Client{Transport: tokenTransport{token: token}, Timeout: 10 * time.Second}
}

// v4 returns a githubv4 client speaking for token.
func (w *world) v4(token string) *githubv4.Client {
	return githubv4.NewEnterpriseClient(w.g.GraphQLURL(), httpClient(token))
}

// rawResponse is a GraphQL answer decoded without a client library, so that
// tests can look at error types, paths and the absence of data.
type rawResponse struct {
	Status int             `json:"-"`
	Header http.Header     `json:"-"`
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
	HasKey map[string]bool `json:"-"`
}

func (w *world) graphql(t *testing.T, token, query string, vars map[string]any) rawResponse {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, w.g.GraphQLURL(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST graphql: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := rawResponse{Status: resp.StatusCode, Header: resp.Header}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("graphql answer %q is not JSON: %v", raw, err)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	out.HasKey = map[string]bool{}
	for k := range keys {
		out.HasKey[k] = true
	}
	return out
}

// restCall sends a raw REST request and decodes the JSON answer.
func (w *world) restCall(t *testing.T, token, method, path string, body any) (int, http.Header, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, w.g.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	return resp.StatusCode, resp.Header, out
}

func mustDiscussion(t *testing.T, g *GitHub, author, title string) Discussion {
	t.Helper()
	d, err := g.CreateDiscussion(testRepo, author, title, "body of "+title)
	if err != nil {
		t.Fatalf("CreateDiscussion(%q) = %v", title, err)
	}
	return d
}

func mustComment(t *testing.T, g *GitHub, discussionID, author, body string) Comment {
	t.Helper()
	c, err := g.Comment(discussionID, author, body)
	if err != nil {
		t.Fatalf("Comment(%q) = %v", body, err)
	}
	return c
}

func mustReply(t *testing.T, g *GitHub, parentID, author, body string) Comment {
	t.Helper()
	c, err := g.Reply(parentID, author, body)
	if err != nil {
		t.Fatalf("Reply(%q) = %v", body, err)
	}
	return c
}

func errorTypes(errs []gqlError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Type)
	}
	return out
}
