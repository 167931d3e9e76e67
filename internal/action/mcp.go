package action

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	gh "github.com/recess-action/recess/internal/github"
	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/internal/workflows"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// recess mcp: a Model Context Protocol server on stdio for the lead agent.
// Each tool call is checked at once by the parser "command: verdict" uses
// (resume.ParseVerdict, with the repository's policy), so the model can
// correct a mistake; the correlation id and the discussion come from the
// workflow's flags, never from the model.

const mcpUsage = `usage: recess mcp --verdict-file PATH --correlation-id ID --discussion N [--token T] [flags]

A Model Context Protocol server on stdin/stdout for the lead agent. Tools:
read_thread (the thread: a discussion, an issue or a pull request's
conversation, and for a resumed run what you asked and what fired; needs
--token; read_discussion is its other name), reply (queue a reply), recess (wait for people,
then be resumed), adjourn (final answer). A successful recess or adjourn
writes the verdict file that "command: verdict" reads (its verdict-file
input); a second verdict in one run is refused. End of input without a
verdict exits with status 3.
A tool error says what to change, or, when no call can help, to stop.

A start-up problem (a missing or unknown flag, a resume-context file it cannot
read, a verdict path it cannot write) is one line on stderr naming the flag;
the server still answers, every tool call gets that line as its error, and
it exits with status 2 at the end of input.

Give the settings as flags: many MCP hosts start servers with a cleaned
environment. The RECESS_* variables named below (and GITHUB_REPOSITORY,
GITHUB_API_URL, GITHUB_GRAPHQL_URL, GITHUB_WORKSPACE) are only a fallback.
Policy (max-recess, allowed kinds) is read like the action reads it:
.github/recess.yml under GITHUB_WORKSPACE (or the file --config names), then
the flags. RECESS_NOW (RFC 3339) pins the clock that max-recess counts from.
`

// exitNoVerdict is recess mcp's status when its input ended before recess
// or adjourn succeeded: the verdict step will find no verdict.
const exitNoVerdict = 3

// discussionReader reads the thread for read_thread and reply_to checks;
// *github.Client is one.
type discussionReader interface {
	Thread(ctx context.Context, ref resume.ThreadRef) (*resume.Thread, error)
}

// mcpServer holds one run's verdict in the making. Tool calls may arrive
// concurrently; mu orders them.
type mcpServer struct {
	verdictFile, correlationID string
	discussion                 int
	rc                         *resume.Context // the run's resume_context, nil for a first run
	reader                     discussionReader
	limits                     func() wait.TriggerLimits
	// numberKind is the kind of the thread when rc names none
	// (resume.UnknownKind of --threads).
	numberKind state.Kind

	// down is why the server could not start, one line naming the flag:
	// every tool call answers it, and nothing else runs.
	down string

	mu      sync.Mutex
	queued  []replyArg
	written string // the verdict kind once written
}

// runMCP is `recess mcp`. It serves until the client closes stdin.
func runMCP(ctx context.Context, args []string, env runEnv, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := mcpOptions{Workspace: env.Workspace}
	fs, rcFile := mcpFlags(&o, env, getenv)
	say := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "recess mcp: "+format+"\n", args...)
		return code
	}
	s, err := startMCP(fs, args, &o, rcFile, getenv)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(fs, mcpUsage, stdout)
		return exitOK
	}
	if err != nil {
		// A server that exits shows the host only "connection closed":
		// this one says what is wrong once on stderr and then serves, so
		// that every tool call carries the same line to the model and the
		// job's log.
		s = &mcpServer{down: "recess mcp: " + text.OneLine(err.Error()) + ". The workflow that starts recess mcp must fix this; no tool call can: end your turn."}
		fmt.Fprintln(stderr, s.down)
	}
	out := &lockedWriter{w: stdout}
	t := &mcp.IOTransport{Reader: io.NopCloser(&jsonLines{r: bufio.NewReaderSize(stdin, 64<<10), out: out}), Writer: out}
	if err := s.server().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return say(1, "%s", text.OneLine(err.Error()))
	}
	if s.down != "" {
		return ExitRefused
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == "" {
		return say(exitNoVerdict, "input ended and no verdict was given (neither recess nor adjourn succeeded): the verdict step will find no verdict file")
	}
	return 0
}

// mcpFlags are recess mcp's flags, filling o; rcFile receives
// --resume-context-file. `recess check` holds a lead's MCP configuration to
// the same flags.
func mcpFlags(o *mcpOptions, env runEnv, getenv func(string) string) (fs *flag.FlagSet, rcFile *string) {
	fs = flag.NewFlagSet("recess mcp", flag.ContinueOnError)
	fs.StringVar(&o.VerdictFile, "verdict-file", getenv("RECESS_VERDICT_FILE"), "where a successful recess or adjourn writes the verdict (fallback RECESS_VERDICT_FILE)")
	fs.StringVar(&o.CorrelationID, "correlation-id", getenv("RECESS_CORRELATION_ID"), "the run's correlation id (fallback RECESS_CORRELATION_ID)")
	fs.StringVar(&o.Discussion, "discussion", getenv("RECESS_DISCUSSION"), "the thread's number, the run's discussion_number input (fallback RECESS_DISCUSSION)")
	fs.StringVar(&o.Token, "token", getenv("RECESS_READ_TOKEN"), "a token that can read the thread (discussions: read, issues: read or pull-requests: read), for read_thread and reply_to checks (fallback RECESS_READ_TOKEN)")
	fs.StringVar(&o.Threads, inThreads, getenv("RECESS_THREADS"), "the kinds of thread the setup serves, the action's input threads: "+strings.Join(threadKinds, ", ")+" (fallback RECESS_THREADS; default discussions)")
	fs.StringVar(&o.Repo, "repo", env.Repo, "OWNER/NAME of the repository (fallback GITHUB_REPOSITORY); needed with --token")
	fs.StringVar(&o.APIURL, "api-url", env.APIURL, "GitHub's REST base (fallback GITHUB_API_URL, default "+gh.DefaultAPIURL+")")
	fs.StringVar(&o.GraphQLURL, "graphql-url", env.GraphQLURL, "GitHub's GraphQL endpoint (fallback GITHUB_GRAPHQL_URL, default derived from --api-url)")
	fs.StringVar(&o.ResumeContext, "resume-context", getenv("RECESS_RESUME_CONTEXT"), "the run's resume_context input, empty on a first run (fallback RECESS_RESUME_CONTEXT)")
	rcFile = fs.String("resume-context-file", getenv("RECESS_RESUME_CONTEXT_FILE"), "read the resume_context from this file instead; an empty file is a first run (fallback RECESS_RESUME_CONTEXT_FILE)")
	fs.StringVar(&o.MaxRecess, "max-recess", getenv("RECESS_MAX_RECESS"), "the longest wait a trigger may name, an ISO-8601 duration (fallback RECESS_MAX_RECESS; default from the policy file, else P90D)")
	fs.StringVar(&o.AllowedKinds, "allowed-kinds", getenv("RECESS_ALLOWED_KINDS"), "comma-separated trigger kinds a recess may use (fallback RECESS_ALLOWED_KINDS; default from the policy file, else all)")
	fs.StringVar(&o.Config, "config", getenv("RECESS_CONFIG"), "the policy file (fallback RECESS_CONFIG; default .github/recess.yml under GITHUB_WORKSPACE, if present)")
	return fs, rcFile
}

// startMCP reads the flags into o and starts the server; an error names
// the flag to fix (flag.ErrHelp: the usage was asked for).
func startMCP(fs *flag.FlagSet, args []string, o *mcpOptions, rcFile *string, getenv func(string) string) (*mcpServer, error) {
	given, err := parseOnly(fs, args, "recess mcp -h lists the flags", "recess mcp takes flags only")
	if err != nil {
		return nil, err
	}
	// A flag wins over the other one's environment fallback: the lab (or a
	// host that keeps the environment) may set RECESS_RESUME_CONTEXT beside
	// an explicit --resume-context-file. Both given the same way is a
	// mistake.
	file := *rcFile
	if file != "" && o.ResumeContext != "" {
		switch {
		case given["resume-context-file"] && !given["resume-context"]:
			o.ResumeContext = ""
		case given["resume-context"] && !given["resume-context-file"]:
			file = ""
		default:
			return nil, errors.New("--resume-context and --resume-context-file: give one, not both")
		}
	}
	if file != "" {
		b, err := readBounded(file, maxResumeContext)
		if err != nil {
			return nil, &wait.FieldError{Field: "--resume-context-file", Reason: err.Error()}
		}
		o.ResumeContext = strings.TrimSpace(string(b))
	}
	return newMCPServer(*o, getenv)
}

// mcpOptions are the server's settings as given (flags over environment;
// ResumeContext "" for a first run).
type mcpOptions struct {
	VerdictFile, CorrelationID, Discussion, ResumeContext string
	Token, Repo, APIURL, GraphQLURL, Threads              string
	MaxRecess, AllowedKinds, Config, Workspace            string
}

// newMCPServer checks the settings the workflow gave: every refusal names
// the flag (runMCP then serves that refusal instead of the tools).
func newMCPServer(o mcpOptions, getenv func(string) string) (*mcpServer, error) {
	for _, f := range []struct{ value, flag, give string }{
		{o.CorrelationID, "--correlation-id", "the run's correlation_id input"},
		{o.Discussion, "--discussion", "the run's discussion_number input"},
		{o.VerdictFile, "--verdict-file", "the path the verdict step reads"},
	} {
		if f.value == "" {
			return nil, &wait.FieldError{Field: f.flag, Reason: "missing: give " + f.give}
		}
	}
	n, err := positive(o.Discussion)
	if err != nil {
		return nil, &wait.FieldError{Field: "--discussion", Reason: err.Error()}
	}
	// The verdict's own checks judge the id and the number, so the server
	// never starts with values the verdict job would refuse.
	probe, _ := json.Marshal(map[string]any{"verdict": resume.VerdictAdjourned, "correlation_id": o.CorrelationID, "discussion_number": n})
	if _, err := resume.ParseVerdict(probe, wait.TriggerLimits{}); err != nil {
		return nil, renameField(err, map[string]string{"verdict.correlation_id": "--correlation-id", "verdict.discussion_number": "--discussion"})
	}
	if err := checkWritable(o.VerdictFile); err != nil {
		return nil, &wait.FieldError{Field: "--verdict-file", Reason: err.Error()}
	}
	var rc *resume.Context
	if o.ResumeContext != "" {
		if rc, err = DecodeResumeContext([]byte(o.ResumeContext)); err != nil {
			return nil, &wait.FieldError{Field: "--resume-context", Reason: err.Error()}
		}
	}
	threads, err := workflows.ParseThreads("--"+inThreads, o.Threads)
	if err != nil {
		return nil, err
	}
	var reader discussionReader
	if o.Token != "" {
		owner, name, err := splitRepo("--repo", o.Repo)
		if err != nil {
			return nil, err
		}
		c, err := gh.New(gh.Config{Token: o.Token, APIURL: o.APIURL, GraphQLURL: o.GraphQLURL, Owner: owner, Repo: name, Kinds: threads})
		if err != nil {
			return nil, renameField(err, map[string]string{"APIURL": "--api-url", "GraphQLURL": "--graphql-url"})
		}
		reader = c
	}

	// Policy: the policy file, then the flags on top (as inputs win over
	// the file in action mode).
	pol := newSettings()
	if err := pol.applyFile(policyPath(o.Config, o.Workspace)); err != nil {
		return nil, err
	}
	flagPolicy := fileConfig{MaxRecess: o.MaxRecess}
	if o.AllowedKinds != "" {
		flagPolicy.AllowedKinds = list(o.AllowedKinds)
	}
	flagName := func(key string) string {
		key, _, _ = strings.Cut(key, "[")
		return "--" + key
	}
	if err := pol.applyPolicy(flagPolicy, flagName); err != nil {
		return nil, err
	}
	clock, err := clockFrom(getenv)
	if err != nil {
		return nil, err
	}
	cfg := pol.Engine
	return &mcpServer{
		verdictFile:   o.VerdictFile,
		correlationID: o.CorrelationID,
		discussion:    n,
		rc:            rc,
		numberKind:    resume.UnknownKind(threads),
		reader:        reader,
		limits: func() wait.TriggerLimits {
			return wait.TriggerLimits{MaxRecess: cfg.MaxRecess, At: clock.Now().UTC(), AllowedKinds: cfg.AllowedKinds}
		},
	}, nil
}

// checkWritable finds at start what would fail the last tool call: the
// verdict file's directory must exist and take a new file.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".recess-verdict-probe-*")
	if err != nil {
		return fmt.Errorf("directory %s cannot take the verdict: %w", filepath.Dir(path), err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// lockedWriter serialises whole messages on stdout: the SDK's responses and
// the parse errors jsonLines answers itself. It counts the requests still
// unanswered, so that the end of input waits for their answers (a client
// that writes its requests and closes its end still reads every answer).
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool // ids of requests passed on and not yet answered
	done    chan struct{}   // closed and replaced when pending empties
}

// Write writes one message of the SDK's; a response settles its request.
func (l *lockedWriter) Write(p []byte) (int, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(p, &m)
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if m.ID != nil && m.Method == nil && l.pending[string(m.ID)] {
		delete(l.pending, string(m.ID))
		if len(l.pending) == 0 && l.done != nil {
			close(l.done)
			l.done = nil
		}
	}
	return n, err
}

// writeOwn writes a message of jsonLines' own (an error answer).
func (l *lockedWriter) writeOwn(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p)
}

// expect notes a request passed on to the SDK.
func (l *lockedWriter) expect(id json.RawMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[string]bool{}
	}
	l.pending[string(id)] = true
}

// settled waits until every request passed on was answered, or d passed.
func (l *lockedWriter) settled(d time.Duration) {
	l.mu.Lock()
	if len(l.pending) == 0 {
		l.mu.Unlock()
		return
	}
	if l.done == nil {
		l.done = make(chan struct{})
	}
	done := l.done
	l.mu.Unlock()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func (l *lockedWriter) Close() error { return nil }

// maxLine bounds one JSON-RPC line (a verdict is far below it).
const maxLine = 4 << 20

// jsonLines passes the client's newline-delimited JSON-RPC messages on to
// the SDK and answers a line that is not a JSON-RPC message itself, as
// JSON-RPC 2.0 asks (-32700 parse error, -32600 invalid request), so that
// one bad line does not end the session.
type jsonLines struct {
	r   *bufio.Reader
	out *lockedWriter
	buf []byte // the part of an accepted line not yet read
	err error
}

// drainTimeout bounds how long the end of input waits for the answers to
// the requests before it (a read_discussion may be on the network).
const drainTimeout = time.Minute

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		if j.err != nil {
			j.out.settled(drainTimeout)
			return 0, j.err
		}
		line, err := j.readLine()
		j.err = err
		if len(bytes.TrimSpace(line)) > 0 && j.accept(line) {
			j.buf = append(bytes.TrimRight(line, "\r\n"), '\n')
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

// readLine reads up to a newline; an overlong line is consumed and
// returned cut, so it fails to parse and is answered as such.
func (j *jsonLines) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// accept reports whether line is one JSON-RPC message; otherwise it writes
// the error response.
func (j *jsonLines) accept(line []byte) bool {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		j.reject(nil, -32700, "Parse error: the line is not valid JSON")
		return false
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		j.reject(nil, -32600, "Invalid Request: a message is one JSON object (batches are not supported)")
		return false
	}
	id := m.ID
	if len(id) > 0 && id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		id = nil
	}
	if m.JSONRPC != "2.0" || (m.Method == nil && m.Result == nil && m.Error == nil) {
		j.reject(id, -32600, `Invalid Request: want "jsonrpc":"2.0" and a method (or a result)`)
		return false
	}
	if m.Method != nil && id != nil {
		j.out.expect(id)
	}
	return true
}

func (j *jsonLines) reject(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	j.out.writeOwn(append(b, '\n'))
}

// writeNew writes data to path atomically and only if path does not exist:
// a temporary file in the same directory is linked into place (link fails
// when the name is taken, so two writers cannot both succeed), or renamed
// where the file system has no hard links. A reader sees no file or the
// whole verdict, never part of one.
func writeNew(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".recess-verdict-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}
