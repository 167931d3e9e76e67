package action

import (
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
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
)

// recess mcp: a Model Context Protocol server on stdio for the lead agent.
// The agent recesses or adjourns by calling a tool; each call is checked at
// once by the very parser `command: verdict` uses (resume.ParseVerdict, with
// the repository's policy), so a mistake comes back to the model as a tool
// error naming the field while it can still correct itself, instead of
// failing the verdict job after the run is over. The correlation id and the
// discussion number come from the workflow (flags or environment), never
// from the model, so a model cannot answer for another run.

const mcpUsage = `usage: recess mcp --verdict-file PATH --correlation-id ID --discussion N [flags]

A Model Context Protocol server on stdin/stdout for the lead agent. Tools:
reply (queue a reply), recess (wait for people, then be resumed), adjourn
(final answer), resume_context (what happened since the agent last ran).
A successful recess or adjourn writes the verdict file that "command: verdict"
reads (its verdict-file input); a second verdict in one run is refused.

Flags fall back to the environment: RECESS_VERDICT_FILE, RECESS_CORRELATION_ID,
RECESS_DISCUSSION, RECESS_RESUME_CONTEXT (or RECESS_RESUME_CONTEXT_FILE), RECESS_MAX_RECESS,
RECESS_ALLOWED_KINDS, RECESS_CONFIG. Policy (max-recess, allowed kinds) is read
like the action reads it: .github/recess.yml under GITHUB_WORKSPACE (or the
file --config names), then RECESS_MAX_RECESS / RECESS_ALLOWED_KINDS, then the
flags. RECESS_NOW (RFC 3339) pins the clock that max-recess counts from.
`

// mcpServer holds one run's verdict in the making. Tool calls may arrive
// concurrently; mu orders them.
type mcpServer struct {
	verdictFile   string
	correlationID string
	discussion    int
	resumeContext string // as dispatched; "" for a first run
	limits        func() wait.TriggerLimits

	mu      sync.Mutex
	queued  []mcpReply
	written string // the verdict kind once written
}

// mcpReply is a reply as the verdict document spells it.
type mcpReply struct {
	Body    string `json:"body"`
	ReplyTo string `json:"reply_to,omitempty"`
}

// runMCP is `recess mcp`. It serves until the client closes stdin.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess mcp", flag.ContinueOnError)
	verdictFile := fs.String("verdict-file", getenv("RECESS_VERDICT_FILE"), "where a successful recess or adjourn writes the verdict (env RECESS_VERDICT_FILE)")
	cid := fs.String("correlation-id", getenv("RECESS_CORRELATION_ID"), "the run's correlation id (env RECESS_CORRELATION_ID)")
	discussion := fs.String("discussion", getenv("RECESS_DISCUSSION"), "the discussion number (env RECESS_DISCUSSION)")
	rc := fs.String("resume-context", getenv("RECESS_RESUME_CONTEXT"), "the run's resume_context input, for the resume_context tool (env RECESS_RESUME_CONTEXT)")
	rcFile := fs.String("resume-context-file", getenv("RECESS_RESUME_CONTEXT_FILE"), "read the resume_context from this file instead; an empty file is a first run (env RECESS_RESUME_CONTEXT_FILE)")
	maxRecess := fs.String("max-recess", getenv("RECESS_MAX_RECESS"), "the longest wait a trigger may name, an ISO-8601 duration (env RECESS_MAX_RECESS; default from the policy file, else P90D)")
	kinds := fs.String("allowed-kinds", getenv("RECESS_ALLOWED_KINDS"), "comma-separated trigger kinds a recess may use (env RECESS_ALLOWED_KINDS; default from the policy file, else all)")
	config := fs.String("config", getenv("RECESS_CONFIG"), "the policy file (env RECESS_CONFIG; default .github/recess.yml under GITHUB_WORKSPACE, if present)")
	if code, ok := parseFlags(fs, args, mcpUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "recess mcp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *rcFile != "" {
		if *rc != "" {
			fmt.Fprintln(stderr, "recess mcp: --resume-context and --resume-context-file: give one, not both")
			return 2
		}
		b, err := readBounded(*rcFile)
		if err != nil {
			fmt.Fprintf(stderr, "recess mcp: --resume-context-file: %v\n", err)
			return 2
		}
		*rc = strings.TrimSpace(string(b))
	}
	s, err := newMCPServer(mcpOptions{
		VerdictFile: *verdictFile, CorrelationID: *cid, Discussion: *discussion, ResumeContext: *rc,
		MaxRecess: *maxRecess, AllowedKinds: *kinds, Config: *config, Workspace: getenv("GITHUB_WORKSPACE"),
	}, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "recess mcp: %v\n", err)
		return 2
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := s.server().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "recess mcp: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpOptions are the server's settings as given (flags over environment).
type mcpOptions struct {
	VerdictFile, CorrelationID, Discussion, ResumeContext string
	MaxRecess, AllowedKinds, Config, Workspace            string
}

// newMCPServer checks the settings the workflow gave: every refusal names
// the flag.
func newMCPServer(o mcpOptions, getenv func(string) string) (*mcpServer, error) {
	if o.VerdictFile == "" {
		return nil, &wait.FieldError{Field: "--verdict-file", Reason: "missing (or set RECESS_VERDICT_FILE)"}
	}
	if o.CorrelationID == "" {
		return nil, &wait.FieldError{Field: "--correlation-id", Reason: "missing (or set RECESS_CORRELATION_ID)"}
	}
	if o.Discussion == "" {
		return nil, &wait.FieldError{Field: "--discussion", Reason: "missing (or set RECESS_DISCUSSION)"}
	}
	n, err := strconv.Atoi(o.Discussion)
	if err != nil || n < 1 {
		return nil, &wait.FieldError{Field: "--discussion", Reason: fmt.Sprintf("%q is not a positive whole number", o.Discussion)}
	}
	// The verdict's own checks judge the id and the number, so the server
	// never starts with values the verdict job would refuse.
	probe, _ := json.Marshal(map[string]any{"verdict": resume.VerdictAdjourned, "correlation_id": o.CorrelationID, "discussion_number": n})
	if _, err := resume.ParseVerdict(probe, wait.TriggerLimits{}); err != nil {
		var fe *wait.FieldError
		if errors.As(err, &fe) && fe.Field == "verdict.correlation_id" {
			return nil, &wait.FieldError{Field: "--correlation-id", Reason: fe.Reason}
		}
		if errors.As(err, &fe) && fe.Field == "verdict.discussion_number" {
			return nil, &wait.FieldError{Field: "--discussion", Reason: fe.Reason}
		}
		return nil, err
	}
	if o.ResumeContext != "" {
		if _, err := decodeResumeContext([]byte(o.ResumeContext)); err != nil {
			return nil, &wait.FieldError{Field: "--resume-context", Reason: err.Error()}
		}
	}

	// Policy: the policy file, then RECESS_* / flags on top (as inputs win
	// over the file in action mode).
	pol := &settings{Engine: resume.Defaults()}
	path, explicit := o.Config, true
	if path == "" {
		path, explicit = defaultConfigPath, false
	}
	if !filepath.IsAbs(path) && o.Workspace != "" {
		path = filepath.Join(o.Workspace, path)
	}
	if err := pol.applyFile(path, explicit); err != nil {
		return nil, err
	}
	if o.MaxRecess != "" {
		d, err := wait.ParseDuration(o.MaxRecess)
		if err != nil {
			return nil, &wait.FieldError{Field: "--max-recess", Reason: err.Error()}
		}
		pol.Engine.MaxRecess = d
	}
	if o.AllowedKinds != "" {
		ks := list(o.AllowedKinds)
		for _, k := range ks {
			if !contains(knownKinds, k) {
				return nil, &wait.FieldError{Field: "--allowed-kinds", Reason: fmt.Sprintf("unknown trigger kind %q", k)}
			}
		}
		pol.Engine.AllowedKinds = ks
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
		resumeContext: o.ResumeContext,
		limits: func() wait.TriggerLimits {
			return wait.TriggerLimits{MaxRecess: cfg.MaxRecess, At: clock.Now().UTC(), AllowedKinds: cfg.AllowedKinds}
		},
	}, nil
}

// replyDescription says the verdict's own reply limit.
var replyDescription = `Queue a reply to post in the discussion. Nothing is posted yet: queued replies are posted, in order, when you call recess or adjourn (at most ` + strconv.Itoa(resume.MaxReplies) + ` replies in all). Use reply_to (a comment id from the discussion or from resume_context) to answer under a comment; without it the reply is a new top-level comment. Put a question you want answered in a reply before you recess: people answer under it.`

// Tool descriptions teach the model the convention and the trigger
// language; the model reads nothing else about recess.
const (
	recessDescription = `Pause: post your queued replies (and "replies" here), then wait for people and be woken later. Call it, then end your turn: do not poll or wait. You will be woken (a new run, given everything said since as resume_context) when the trigger fires.

trigger is a JSON object, one of:
- {"kind":"missing_input","replies":2} wakes you when 2 human replies have arrived. Optional "from":["login",...] counts only those people; "scope":"thread" counts only replies under your own replies.
- {"kind":"elapsed","elapsed":"P2D"} wakes you after a time. Durations are ISO-8601: P1D, PT12H, P1DT6H, P2W, PT90M (upper case; only the smallest unit may be fractional).
- {"kind":"escalation_needed","signal":"security-review"} wakes you when a maintainer writes "/recess signal security-review" (or "/recess resume").
- {"kind":"any","of":[...]} / {"kind":"all","of":[...]}: any one / all of the listed triggers (one level of nesting).
Any trigger may carry "expires":"P7D" with "on_expire":"resume" (wake you anyway) or "cancel" (give up and post a note).
Typical: {"kind":"any","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P3D"}]} — wake on the first answer, or after 3 days at the latest.

An invalid call writes nothing and names the field to fix. One verdict per run: after recess or adjourn succeeded, no other verdict is accepted.`

	adjournDescription = `Finish: post your queued replies (and "replies" here) as your answer, and end this conversation's work until people write again. Call it, then end your turn. An invalid call writes nothing and names the field to fix. One verdict per run: after recess or adjourn succeeded, no other verdict is accepted.`

	contextDescription = `What happened since you last ran: why you were woken (fired_by), the comments since with their ids (use them as reply_to), authors, times and links, as markdown, followed by the raw resume_context JSON. Empty on a first run: read the discussion itself.`
)

var (
	replySchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["body"],"properties":{
"body":{"type":"string","description":"the reply, GitHub markdown"},
"reply_to":{"type":"string","description":"node id of the comment to answer under (optional)"}}}`)
	repliesProperty = `"replies":{"type":"array","description":"replies to post besides the queued ones (optional)","items":{"type":"object","additionalProperties":false,"required":["body"],"properties":{"body":{"type":"string"},"reply_to":{"type":"string"}}}}`
	recessSchema    = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["trigger","summary"],"properties":{
"trigger":{"type":"object","description":"what to wait for; see the tool description"},
"summary":{"type":"string","description":"one line for the maintainers' log: what you wait for and why (not posted)"},
` + repliesProperty + `}}`)
	adjournSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["summary"],"properties":{
"summary":{"type":"string","description":"one line for the maintainers' log (not posted)"},
` + repliesProperty + `}}`)
	emptySchema = json.RawMessage(`{"type":"object","additionalProperties":false}`)
)

func (s *mcpServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "recess", Version: "v1"}, &mcp.ServerOptions{
		Instructions: "You answer a GitHub discussion. To ask people something and wait for their answers, queue your question with reply and call recess; to give your final answer, call adjourn. Either way: call it, then end your turn. When answers arrive you are woken in a new run; resume_context tells you what was said since.",
	})
	srv.AddTool(&mcp.Tool{Name: "reply", Description: replyDescription, InputSchema: replySchema}, s.reply)
	srv.AddTool(&mcp.Tool{Name: "recess", Description: recessDescription, InputSchema: recessSchema}, s.verdictTool(resume.VerdictRecessed))
	srv.AddTool(&mcp.Tool{Name: "adjourn", Description: adjournDescription, InputSchema: adjournSchema}, s.verdictTool(resume.VerdictAdjourned))
	srv.AddTool(&mcp.Tool{Name: "resume_context", Description: contextDescription, InputSchema: emptySchema}, s.contextTool)
	return srv
}

// reply queues one reply after checking it as the verdict will.
func (s *mcpServer) reply(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, ferr := toolArgs(req.Params.Arguments, "body", "reply_to")
	if ferr != nil {
		return refusal(ferr), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != "" {
		return s.alreadyWritten(), nil
	}
	item, ferr := replyItem(args)
	if ferr != nil {
		return refusal(ferr), nil
	}
	doc, err := s.document(resume.VerdictAdjourned, []json.RawMessage{item}, nil, nil)
	if err != nil {
		return nil, err
	}
	v, err := resume.ParseVerdict(doc, s.limits())
	if err != nil {
		return refusal(s.toolField(err, "")), nil
	}
	last := v.Replies[len(v.Replies)-1]
	s.queued = append(s.queued, mcpReply{Body: last.Body, ReplyTo: last.ReplyTo})
	where := "as a new top-level comment"
	if last.ReplyTo != "" {
		where = "under comment " + last.ReplyTo
	}
	return text(fmt.Sprintf("Queued reply %d of at most %d, %s. It is posted when you call recess or adjourn.", len(s.queued), resume.MaxReplies, where)), nil
}

// verdictTool is recess or adjourn: check the whole verdict, then write it.
func (s *mcpServer) verdictTool(kind string) mcp.ToolHandler {
	known := []string{"summary", "replies"}
	if kind == resume.VerdictRecessed {
		known = append(known, "trigger")
	}
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, ferr := toolArgs(req.Params.Arguments, known...)
		if ferr != nil {
			return refusal(ferr), nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.written != "" {
			return s.alreadyWritten(), nil
		}
		if _, err := os.Lstat(s.verdictFile); !errors.Is(err, fs.ErrNotExist) {
			return refusal(&wait.FieldError{Field: "verdict", Reason: "a verdict file already exists at " + s.verdictFile + ": one verdict per run; end your turn"}), nil
		}
		if kind == resume.VerdictRecessed {
			if _, ok := args["trigger"]; !ok {
				return refusal(&wait.FieldError{Field: "trigger", Reason: "missing: say what to wait for"}), nil
			}
		}
		summary, ok := args["summary"]
		if !ok || strings.TrimSpace(stringOr(summary)) == "" {
			return refusal(&wait.FieldError{Field: "summary", Reason: "missing: one line on what you did and why"}), nil
		}
		var items []json.RawMessage
		if raw, ok := args["replies"]; ok {
			if len(raw) == 0 || raw[0] != '[' {
				return refusal(&wait.FieldError{Field: "replies", Reason: "must be a list of {body, reply_to}"}), nil
			}
			if err := json.Unmarshal(raw, &items); err != nil {
				return refusal(&wait.FieldError{Field: "replies", Reason: "not valid JSON"}), nil
			}
		}
		doc, err := s.document(kind, items, args["trigger"], summary)
		if err != nil {
			return nil, err
		}
		v, err := resume.ParseVerdict(doc, s.limits())
		if err != nil {
			return refusal(s.toolField(err, "replies")), nil
		}
		if err := writeNew(s.verdictFile, doc); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return refusal(&wait.FieldError{Field: "verdict", Reason: "a verdict file already exists at " + s.verdictFile + ": one verdict per run; end your turn"}), nil
			}
			return nil, fmt.Errorf("write the verdict: %w", err)
		}
		s.written = kind
		return text(verdictDone(v)), nil
	}
}

func verdictDone(v *resume.Verdict) string {
	posts := fmt.Sprintf("%d replies will be posted", len(v.Replies))
	if len(v.Replies) == 1 {
		posts = "1 reply will be posted"
	}
	if v.Verdict == resume.VerdictRecessed {
		return "Recess recorded: " + posts + ", then recess waits for " + string(v.TriggerJSON) + ". End your turn now: you will be woken in a new run, with what people said since, when the trigger fires."
	}
	return "Adjourned: " + posts + ". End your turn now."
}

func (s *mcpServer) alreadyWritten() *mcp.CallToolResult {
	return refusal(&wait.FieldError{Field: "verdict", Reason: "this run already " + s.written + " (one verdict per run); nothing more can be posted: end your turn"})
}

// document builds the verdict document from the queued replies, the new
// reply items, and the run's own correlation id and discussion number.
func (s *mcpServer) document(kind string, items []json.RawMessage, trigger, summary json.RawMessage) ([]byte, error) {
	replies := make([]json.RawMessage, 0, len(s.queued)+len(items))
	for _, r := range s.queued {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		replies = append(replies, b)
	}
	replies = append(replies, items...)
	doc := map[string]any{"verdict": kind, "correlation_id": s.correlationID, "discussion_number": s.discussion}
	if len(replies) > 0 {
		doc["replies"] = replies
	}
	if trigger != nil {
		doc["trigger"] = trigger
	}
	if summary != nil {
		doc["summary"] = summary
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode the verdict: %w", err)
	}
	return buf.Bytes(), nil
}

// toolField renames a verdict's field to the tool's argument: the model
// sees "replies[0].body" or "trigger.of[1].elapsed", the names it sent.
// Queued replies come first in the verdict, so a new reply's index is
// shifted back; with itemsName "" (the reply tool) it is the call itself.
func (s *mcpServer) toolField(err error, itemsName string) *wait.FieldError {
	var fe *wait.FieldError
	if !errors.As(err, &fe) {
		return &wait.FieldError{Field: "verdict", Reason: err.Error()}
	}
	out := *fe
	f := strings.TrimPrefix(fe.Field, "verdict.")
	if f == "replies" {
		out.Reason = fmt.Sprintf("%s (%d queued with reply so far)", fe.Reason, len(s.queued))
	}
	if rest, ok := strings.CutPrefix(f, "replies["); ok {
		if i := strings.IndexByte(rest, ']'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil && n >= len(s.queued) {
				if itemsName == "" {
					f = strings.TrimPrefix(rest[i+1:], ".")
				} else {
					f = itemsName + "[" + strconv.Itoa(n-len(s.queued)) + "]" + rest[i+1:]
				}
			}
		}
	}
	out.Field = f
	return &out
}

// contextTool returns the resume context as the prompt renders it, and raw.
func (s *mcpServer) contextTool(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, ferr := toolArgs(req.Params.Arguments); ferr != nil {
		return refusal(ferr), nil
	}
	if s.resumeContext == "" {
		return text("This is a first run: there is no resume_context. Read the discussion itself."), nil
	}
	rc, err := decodeResumeContext([]byte(s.resumeContext))
	if err != nil {
		return nil, err // checked at start-up
	}
	return text(resume.Prompt(*rc, nil) + "\n\n```json\n" + s.resumeContext + "\n```\n"), nil
}

// toolArgs reads a tool call's arguments: an object whose keys are among
// known, each at most once. Absent arguments are an empty object; a JSON
// null value counts as absent.
func toolArgs(raw json.RawMessage, known ...string) (map[string]json.RawMessage, *wait.FieldError) {
	out := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, &wait.FieldError{Field: "arguments", Reason: "must be a JSON object"}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &wait.FieldError{Field: "arguments", Reason: "not valid JSON"}
		}
		key, _ := tok.(string)
		if !contains(known, key) {
			return nil, &wait.FieldError{Field: strconv.Quote(clipRunes(key, 64)), Reason: "unknown argument; this tool takes " + strings.Join(known, ", ")}
		}
		if _, dup := out[key]; dup {
			return nil, &wait.FieldError{Field: key, Reason: "given twice"}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &wait.FieldError{Field: key, Reason: "not valid JSON"}
		}
		if string(v) != "null" {
			out[key] = v
		}
	}
	return out, nil
}

// replyItem is the reply tool's arguments as one verdict reply.
func replyItem(args map[string]json.RawMessage) (json.RawMessage, *wait.FieldError) {
	if _, ok := args["body"]; !ok {
		return nil, &wait.FieldError{Field: "body", Reason: "missing"}
	}
	var buf bytes.Buffer
	buf.WriteString(`{"body":`)
	buf.Write(args["body"])
	if to, ok := args["reply_to"]; ok {
		buf.WriteString(`,"reply_to":`)
		buf.Write(to)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func stringOr(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "x" // not a string: ParseVerdict names the type
	}
	return s
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// refusal is a tool error the model reads: the field, the reason, and that
// nothing was written, so it can correct the call.
func refusal(fe *wait.FieldError) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: "refused: " + fe.Field + ": " + fe.Reason + ". Nothing was written; correct " + fe.Field + " and call again."}},
		StructuredContent: map[string]string{"field": fe.Field, "reason": fe.Reason},
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
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
