package action

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recess-action/recess/internal/text"
	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Each tool's schemas are generated from the Go types below (jsonschema tags
// are the descriptions, omitempty marks optional) and made portable by
// toolSchema (TestMCPSchemasArePortable); addTool decodes the arguments into
// them. Under a client's strict mode every property is required, so a zero
// value means "not given" throughout.

// replyArg is one reply, as the tools take it and the verdict spells it.
type replyArg struct {
	Body    string `json:"body" jsonschema:"the reply, GitHub markdown"`
	ReplyTo string `json:"reply_to,omitempty" jsonschema:"id of a comment to answer (from read_thread); \"\" or left out: a new top-level comment"`
}

type replyOutput struct {
	Queued      int    `json:"queued" jsonschema:"replies queued so far in this run"`
	Max         int    `json:"max" jsonschema:"the most replies one verdict may post"`
	ReplyTo     string `json:"reply_to" jsonschema:"the comment this reply answers, as given; \"\" for a new top-level comment"`
	PostedUnder string `json:"posted_under" jsonschema:"the top-level comment the reply will be posted under as the discussion stands (reply_to, or the comment reply_to is a reply under); \"\" for a new top-level comment, or when reply_to could not be checked"`
	Checked     bool   `json:"checked" jsonschema:"false when reply_to could not be checked against the discussion (no read token, or GitHub could not be reached); the verdict step then places the reply by the same rule"`
	Note        string `json:"note" jsonschema:"why the reply will not go under reply_to (it is then posted at the top level, opening with a line that says what it answered), or why reply_to could not be checked; \"\" otherwise"`
}

type recessInput struct {
	Summary       string     `json:"summary" jsonschema:"one line for the maintainers' log: what you wait for and why (not posted)"`
	Replies       []replyArg `json:"replies,omitempty" jsonschema:"replies to post besides the ones queued with reply, in order"`
	RepliesNeeded int        `json:"replies_needed,omitempty" jsonschema:"wake when this many people have replied since you recessed (1 or more); 0 or left out: do not wait for replies"`
	From          []string   `json:"from,omitempty" jsonschema:"count only replies by these GitHub logins; empty: anyone"`
	ThreadOnly    bool       `json:"thread_only,omitempty" jsonschema:"count only replies under your own replies of this verdict. Discussions only: an issue or a pull request holds no replies under comments, so it is refused there (by the verdict step, after your turn, when this run does not know the thread's kind)"`
	Elapsed       string     `json:"elapsed,omitempty" jsonschema:"wake after this much time, an ISO-8601 duration: \"P1D\", \"PT12H\", \"P1DT6H\", \"P2W\", \"PT90M\"; \"\" or left out: no time limit"`
	Signal        string     `json:"signal,omitempty" jsonschema:"wake when a maintainer writes \"/recess signal NAME\" with this name (or \"/recess resume\"); \"\" or left out: no signal"`
	Combine       string     `json:"combine,omitempty" jsonschema:"with two or more of replies_needed, elapsed and signal: wake on the first (\"any\", the default) or only when all have happened (\"all\")"`
	Expires       string     `json:"expires,omitempty" jsonschema:"give up waiting after this ISO-8601 duration; \"\" or left out: never"`
	OnExpire      string     `json:"on_expire,omitempty" jsonschema:"when expires passes: \"resume\" (wake you anyway, the default) or \"cancel\" (stop waiting and post a note)"`
}

type adjournInput struct {
	Summary string     `json:"summary" jsonschema:"one line for the maintainers' log: what you answered (not posted)"`
	Replies []replyArg `json:"replies,omitempty" jsonschema:"replies to post besides the ones queued with reply, in order"`
}

type verdictOutput struct {
	Verdict     string `json:"verdict" jsonschema:"the verdict written"`
	Replies     int    `json:"replies" jsonschema:"how many replies the verdict step will post"`
	Trigger     string `json:"trigger" jsonschema:"what recess waits for, in the verdict's trigger JSON; \"\" for adjourned"`
	VerdictFile string `json:"verdict_file" jsonschema:"where the verdict was written"`
}

type noInput struct{}

type discussionOutput struct {
	Kind      string          `json:"kind" jsonschema:"the kind of thread"`
	Number    int             `json:"number" jsonschema:"the thread's number"`
	Title     string          `json:"title" jsonschema:"the title"`
	Body      string          `json:"body" jsonschema:"the opening post, GitHub markdown"`
	Category  string          `json:"category" jsonschema:"the discussion's category; \"\" for an issue or a pull request"`
	Author    string          `json:"author" jsonschema:"who opened it"`
	CreatedAt string          `json:"created_at" jsonschema:"when it was opened, RFC 3339 UTC"`
	URL       string          `json:"url" jsonschema:"its link"`
	Closed    bool            `json:"closed" jsonschema:"true when closed"`
	Locked    bool            `json:"locked" jsonschema:"true when locked"`
	Comments  []commentOutput `json:"comments" jsonschema:"every comment and reply, oldest first"`
	Resumed   resumedOutput   `json:"resumed" jsonschema:"for a resumed run: what you asked and what woke you"`
}

type commentOutput struct {
	ID         string `json:"id" jsonschema:"the comment's id: use it as reply_to"`
	Author     string `json:"author" jsonschema:"the author's GitHub login"`
	CreatedAt  string `json:"created_at" jsonschema:"when it was written, RFC 3339 UTC"`
	Thread     string `json:"thread" jsonschema:"the top-level comment it sits under (its own id for a top-level comment)"`
	Body       string `json:"body" jsonschema:"the text, GitHub markdown"`
	URL        string `json:"url" jsonschema:"its link"`
	ByRecess   bool   `json:"by_recess" jsonschema:"true when recess posted it (a reply you gave earlier, or recess's status)"`
	Hidden     bool   `json:"hidden" jsonschema:"true when it was deleted or minimized"`
	CanReplyTo bool   `json:"can_reply_to" jsonschema:"true when a reply given it as reply_to is posted in its thread; false when such a reply would be posted at the top level instead (a deleted or hidden comment, one in a deleted or hidden thread, or recess's status comment)"`
}

type resumedOutput struct {
	Resumed       bool             `json:"resumed" jsonschema:"false on a first run (the other fields are then empty)"`
	CorrelationID string           `json:"correlation_id" jsonschema:"the recess being resumed"`
	FiredBy       string           `json:"fired_by" jsonschema:"what woke you: missing_input, elapsed, escalation_needed, expired, manual, retry or intake"`
	FiredAt       string           `json:"fired_at" jsonschema:"when, RFC 3339 UTC"`
	Trigger       string           `json:"trigger" jsonschema:"what you waited for, the trigger JSON"`
	Asked         []questionOutput `json:"asked" jsonschema:"the replies you posted when you recessed, oldest first"`
}

type questionOutput struct {
	ID     string `json:"id" jsonschema:"the question's comment id"`
	Thread string `json:"thread" jsonschema:"the top-level comment it sits in: answers are replies there"`
	Body   string `json:"body" jsonschema:"what you asked"`
	URL    string `json:"url" jsonschema:"its link"`
}

// toolSchema is T's schema as every provider takes it: one type per node
// (a slice is an array, never null), and the enums the type cannot say,
// by property name.
func toolSchema[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types above are fixed: a bug, found by every test
	}
	var portable func(*jsonschema.Schema)
	portable = func(n *jsonschema.Schema) {
		if len(n.Types) == 2 && n.Types[0] == "null" {
			n.Type, n.Types = n.Types[1], nil
		}
		n.PropertyOrder = nil
		for name, p := range n.Properties {
			if e, ok := enums[name]; ok {
				p.Enum = e
			}
			portable(p)
		}
		if n.Items != nil {
			portable(n.Items)
		}
	}
	portable(s)
	if s.Properties == nil {
		// A tool without arguments says so (MCP 2025-11-25).
		s.Properties = map[string]*jsonschema.Schema{}
	}
	return s
}

// replyDescription says the verdict's own reply limit.
var replyDescription = `Queue a reply to post in the thread. Nothing is posted yet: queued replies are posted, in order, when you call recess or adjourn (at most ` + strconv.Itoa(resume.MaxReplies) + ` replies in all). Use reply_to (a comment id from read_thread) to answer a comment (under it in a discussion; quoting it in an issue or a pull request); without it the reply is a new top-level comment. Put a question you want answered in a reply before you recess: people answer under it in a discussion, and in a later comment (often quoting it) in an issue or a pull request.`

// Tool descriptions teach the model the convention and the trigger; the
// model reads nothing else about recess.
const (
	recessDescription = `Pause: post your queued replies (and "replies" here), then wait for people and be woken later. Call it, then end your turn: do not poll or wait. You will be woken (a new run, given everything said since) when what you wait for happens.

Say what to wait for with one or more of: replies_needed (that many people replied; "from" and "thread_only" narrow who counts), elapsed (an ISO-8601 duration such as P1D, PT12H, P2W: upper case, only the smallest unit may be fractional), signal (a maintainer writes "/recess signal NAME"). With two or more, combine says "any" (the first wakes you; the default) or "all". expires with on_expire ("resume" or "cancel") bounds the wait.
Typical: replies_needed 1 and elapsed "P3D" — wake on the first answer, or after 3 days at the latest.

An invalid call writes nothing and names the field to fix. One verdict per run: after recess or adjourn succeeded, no other verdict is accepted.`

	adjournDescription = `Finish: post your queued replies (and "replies" here) as your answer, and end this conversation's work until people write again. Call it, then end your turn. An invalid call writes nothing and names the field to fix. One verdict per run: after recess or adjourn succeeded, no other verdict is accepted.`

	readDescription = `Read the thread this run is about (a discussion, an issue or a pull request's conversation): its kind, title, body, category, and every comment and reply with its id (use it as reply_to), author, time, thread, and whether recess posted it. For a resumed run also what you asked and what woke you. Reading posts nothing.`
)

func (s *mcpServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "recess", Version: "v1"}, &mcp.ServerOptions{
		Instructions: "You answer a GitHub thread: a discussion, an issue or a pull request's conversation. Read it with read_thread. To ask people something and wait for their answers, queue your question with reply and call recess; to give your final answer, call adjourn. Either way: call it, then end your turn. When answers arrive you are woken in a new run; your prompt and read_thread tell you what you asked, what woke you and what people said.",
	})
	recessIn := toolSchema[recessInput](map[string][]any{"combine": {wait.KindAny, wait.KindAll}, "on_expire": {wait.OnExpireResume, wait.OnExpireCancel}})
	recessIn.Properties["from"].Items.Description = "a GitHub login"
	verdictOut := toolSchema[verdictOutput](map[string][]any{"verdict": {resume.VerdictRecessed, resume.VerdictAdjourned}})
	// read_discussion is read_thread under its first name: one tool.
	for name, desc := range map[string]string{"read_thread": readDescription, "read_discussion": readDescription + " The same tool as read_thread."} {
		addTool(srv, s, &mcp.Tool{Name: name, Description: desc, InputSchema: toolSchema[noInput](nil),
			OutputSchema: toolSchema[discussionOutput](map[string][]any{"kind": kindValues()}), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.readThread)
	}
	addTool(srv, s, &mcp.Tool{Name: "reply", Description: replyDescription, InputSchema: toolSchema[replyArg](nil),
		OutputSchema: toolSchema[replyOutput](nil)}, s.reply)
	addTool(srv, s, &mcp.Tool{Name: "recess", Description: recessDescription,
		InputSchema: recessIn, OutputSchema: verdictOut}, s.recess)
	addTool(srv, s, &mcp.Tool{Name: "adjourn", Description: adjournDescription, InputSchema: toolSchema[adjournInput](nil),
		OutputSchema: verdictOut}, s.adjourn)
	return srv
}

// addTool adds a tool whose arguments are read by the decoder every other
// outside JSON goes through (wait.DecodeJSON: unknown and duplicate members,
// wrong types), so that a refusal names the field as the model sent it
// ("replies[1].body"); the schema is what the model is shown. The answer
// carries out as structured content.
func addTool[In, Out any](srv *mcp.Server, s *mcpServer, t *mcp.Tool, h func(context.Context, In) (*mcp.CallToolResult, Out, error)) {
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if s.down != "" {
			res := &mcp.CallToolResult{}
			res.SetError(errors.New(s.down))
			return res, nil
		}
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		var in In
		var res *mcp.CallToolResult
		var out Out
		err := wait.DecodeJSON(args, "", &in, wait.JSONLimits{})
		if err == nil {
			res, out, err = h(ctx, in)
		}
		if err != nil {
			res = &mcp.CallToolResult{}
			res.SetError(errors.New(refusal(t, err)))
			return res, nil
		}
		res.StructuredContent = out
		return res, nil
	})
}

// refuse is a refusal the model can act on: refusal names the field and
// says to correct it.
func refuse(field, reason string) error {
	return &wait.FieldError{Field: field, Reason: reason}
}

// stopError is a refusal no call can change (a second verdict, no read
// token): it says so, and what to do instead.
type stopError struct{ field, reason, instead string }

func (e *stopError) Error() string {
	return "refused: " + e.field + ": " + e.reason + ". No call can change this: " + e.instead
}

// refusal words a tool's error for the model: the field it sent and what
// is wrong, then what to change, or, when nothing it sends can help, that
// it should stop.
func refusal(t *mcp.Tool, err error) string {
	var stop *stopError
	var fe *wait.FieldError
	switch {
	case errors.As(err, &stop):
		return stop.Error()
	case !errors.As(err, &fe):
		return err.Error()
	}
	field := cmp.Or(fe.Field, "arguments")
	text := "refused: " + field + ": " + fe.Reason + ". "
	if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
		text += "Nothing was written; "
	}
	if !errors.Is(err, wait.ErrUnknownField) {
		return text + "correct " + field + " and call again."
	}
	switch owner, takes, ok := fieldsBeside(t, field); {
	case !ok:
		return text + "leave " + field + " out and call again."
	case len(takes) == 0:
		return text + owner + " takes no arguments: call it again with none ({})."
	default:
		return text + "leave " + field + " out (" + owner + " takes only " + strings.Join(takes, ", ") + ") and call again."
	}
}

// fieldsBeside names the object an unknown field was sent in (the tool, or
// "replies[0]") and the fields that object takes, sorted; ok is false when
// the tool's schema does not say.
func fieldsBeside(t *mcp.Tool, field string) (owner string, takes []string, ok bool) {
	s, _ := t.InputSchema.(*jsonschema.Schema)
	owner = t.Name
	if i := strings.LastIndexAny(field, ".["); i > 0 {
		owner = field[:i]
		for _, part := range strings.FieldsFunc(owner, func(r rune) bool { return r == '.' || r == '[' }) {
			switch {
			case s == nil:
			case strings.HasSuffix(part, "]"):
				s = s.Items
			default:
				s = s.Properties[part]
			}
		}
	}
	if s == nil {
		return owner, nil, false
	}
	for name := range s.Properties {
		takes = append(takes, name)
	}
	slices.Sort(takes)
	return owner, takes, true
}

// toolResult is a tool's answer: a sentence for the model, the structured
// output, and the same JSON as text for clients that read text only.
func toolResult(sentence string, out any) *mcp.CallToolResult {
	b, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sentence}, &mcp.TextContent{Text: string(b)}}}
}

// reply queues one reply after checking it as the verdict will, and says
// where the verdict step will post it.
func (s *mcpServer) reply(ctx context.Context, in replyArg) (*mcp.CallToolResult, replyOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != "" {
		return nil, replyOutput{}, s.alreadyWritten()
	}
	doc, err := s.document(resume.VerdictAdjourned, []replyArg{in}, nil, "")
	if err != nil {
		return nil, replyOutput{}, err
	}
	if _, err := resume.ParseVerdict(doc, s.limits()); err != nil {
		fe := s.toolField(err, "")
		if fe.Field == "replies" && len(s.queued) >= resume.MaxReplies {
			return nil, replyOutput{}, &stopError{"replies", "the verdict already holds " + strconv.Itoa(len(s.queued)) + " replies queued with reply, the most it may post",
				"queued replies stay queued; queue no more, and call recess or adjourn without replies."}
		}
		return nil, replyOutput{}, fe
	}
	w := s.where(ctx, []replyArg{in})[0]
	s.queued = append(s.queued, in)
	out := replyOutput{Queued: len(s.queued), Max: resume.MaxReplies, ReplyTo: in.ReplyTo, PostedUnder: w.Under, Checked: w.unchecked == "", Note: w.note()}
	return toolResult(fmt.Sprintf("Queued reply %d of at most %d, %s. It is posted when you call recess or adjourn.", out.Queued, out.Max, w.words()), out), out, nil
}

// landing is where a reply will be posted, as the agent is told: the
// verdict's own rule (resume.PlaceReply) applied to the discussion as it
// stands, or why that could not be looked at.
type landing struct {
	replyTo string
	resume.Placement
	// unchecked says why the discussion could not be read ("" when it
	// was, or when there was nothing to check).
	unchecked string
	// kind is the thread's kind as the server addresses it (resume.AnyKind
	// when not known): the unchecked note's words follow it.
	kind state.Kind
}

// where places each reply by the verdict's rule, reading the discussion
// once when any of them names a comment. A read that fails leaves them
// unchecked, and says why: a check that could not run never passes.
func (s *mcpServer) where(ctx context.Context, items []replyArg) []landing {
	out := make([]landing, len(items))
	var d *resume.Thread
	unchecked := ""
	for i, r := range items {
		out[i].replyTo, out[i].kind = r.ReplyTo, s.ref().Kind
		if r.ReplyTo == "" {
			continue
		}
		if d == nil && unchecked == "" {
			var err error
			switch d, err = s.read(ctx); {
			case s.reader == nil:
				unchecked = "recess mcp was started without --token, so it cannot read the thread"
			case err != nil:
				unchecked = "the thread could not be read (" + text.OneLine(err.Error()) + ")"
			}
		}
		if unchecked != "" {
			out[i].unchecked = unchecked
			continue
		}
		out[i].Placement = resume.PlaceReply(d, r.ReplyTo)
	}
	return out
}

// read reads the thread; nil without a read token.
func (s *mcpServer) read(ctx context.Context) (*resume.Thread, error) {
	if s.reader == nil {
		return nil, nil
	}
	return s.reader.Thread(ctx, s.ref())
}

// ref addresses the run's thread as the engine does: of the kind the
// resume_context names, else as a number of unknown kind where the setup
// serves --threads (resume.UnknownKind).
func (s *mcpServer) ref() resume.ThreadRef {
	k := s.numberKind
	if s.rc != nil && s.rc.Kind != "" {
		k = s.rc.Kind
	}
	return resume.NumberRef(k, s.discussion)
}

// kindValues are the kinds of thread, as read_thread names them.
func kindValues() []any {
	out := make([]any, len(state.Kinds))
	for i, k := range state.Kinds {
		out[i] = string(k)
	}
	return out
}

// words says where the reply goes, for the model.
func (l landing) words() string {
	switch {
	case l.replyTo == "":
		return "as a new top-level comment"
	case l.unchecked != "":
		return "for comment " + l.replyTo + ", not checked: " + l.note()
	case l.Moved != "":
		return "as a new top-level comment that opens with a line saying what it answered, because " + l.Moved
	case l.Under == "": // a flat thread (resume.Placement)
		return "as a new comment that opens with a quote line linking comment " + l.To
	case l.Under != l.replyTo:
		return "under comment " + l.Under + ", as comment " + l.replyTo + " is a reply in its thread (GitHub threads replies only under a top-level comment)"
	}
	return "under comment " + l.replyTo
}

// note is why the reply does not go under its reply_to, or why that could
// not be checked; "" when it goes there.
func (l landing) note() string {
	switch {
	case l.unchecked != "":
		return l.unchecked + ". The verdict step places the reply by the same rule: " + inPlace(l.kind) + "; or, when the thread does not show the comment or shows it deleted or hidden, at the top level with a line saying what it answered"
	case l.Moved != "":
		return l.Moved + ": the verdict step posts the reply at the top level, opening with a line that says what it answered"
	}
	return ""
}

// inPlace is where a reply goes in place of its reply_to on a thread of
// kind k (resume.PlaceReply).
func inPlace(k state.Kind) string {
	const quoted = "as a new comment that opens with a quote line linking that comment"
	switch {
	case k.Flat():
		return quoted
	case k == resume.AnyKind:
		return "in that comment's thread in a discussion, " + quoted + " in an issue or pull request"
	}
	return "in that comment's thread"
}

func (s *mcpServer) recess(ctx context.Context, in recessInput) (*mcp.CallToolResult, verdictOutput, error) {
	trigger, rename, err := flatTrigger(in)
	if err != nil {
		return nil, verdictOutput{}, err
	}
	return s.verdict(ctx, resume.VerdictRecessed, in.Summary, in.Replies, trigger, rename)
}

func (s *mcpServer) adjourn(ctx context.Context, in adjournInput) (*mcp.CallToolResult, verdictOutput, error) {
	return s.verdict(ctx, resume.VerdictAdjourned, in.Summary, in.Replies, nil, nil)
}

// flatTrigger maps the recess tool's flat fields to the verdict's trigger
// JSON. rename maps a field of that trigger ("of[1].elapsed") back to the
// tool's field ("elapsed"), so a refusal names what the model sent.
func flatTrigger(in recessInput) (trigger json.RawMessage, rename func(string) string, err error) {
	type cond struct {
		field string
		t     map[string]any
	}
	if in.Combine != "" && in.Combine != wait.KindAny && in.Combine != wait.KindAll {
		return nil, nil, refuse("combine", strconv.Quote(in.Combine)+` is not "any" or "all"`)
	}
	var conds []cond
	if in.RepliesNeeded != 0 {
		t := map[string]any{"kind": wait.KindMissingInput, "replies": in.RepliesNeeded}
		if len(in.From) > 0 {
			t["from"] = in.From
		}
		if in.ThreadOnly {
			t["scope"] = wait.ScopeThread
		}
		conds = append(conds, cond{"replies_needed", t})
	} else if len(in.From) > 0 || in.ThreadOnly {
		return nil, nil, refuse("replies_needed", "from and thread_only say whose replies count: give replies_needed (1 or more) too")
	}
	if in.Elapsed != "" {
		conds = append(conds, cond{"elapsed", map[string]any{"kind": wait.KindElapsed, "elapsed": in.Elapsed}})
	}
	if in.Signal != "" {
		conds = append(conds, cond{"signal", map[string]any{"kind": wait.KindEscalationNeeded, "signal": in.Signal}})
	}
	if len(conds) == 0 {
		return nil, nil, refuse("replies_needed", "nothing to wait for: give replies_needed, elapsed or signal (one or more)")
	}
	top := conds[0].t
	if len(conds) > 1 {
		of := make([]any, len(conds))
		for i, c := range conds {
			of[i] = c.t
		}
		top = map[string]any{"kind": cmp.Or(in.Combine, wait.KindAny), "of": of}
	}
	if in.Expires != "" {
		top["expires"] = in.Expires
		if in.OnExpire != "" {
			top["on_expire"] = in.OnExpire
		}
	}
	names := map[string]string{"replies": "replies_needed", "from": "from", "scope": "thread_only", "elapsed": "elapsed",
		"signal": "signal", "expires": "expires", "on_expire": "on_expire", "of": "combine"}
	rename = func(f string) string {
		c := conds[0]
		if len(conds) > 1 {
			c = cond{field: "combine"}
			if rest, ok := strings.CutPrefix(f, "of["); ok {
				i := strings.Index(rest, "].")
				n, err := strconv.Atoi(rest[:max(i, 0)])
				if i < 0 || err != nil || n >= len(conds) {
					return "combine"
				}
				c, f = conds[n], rest[i+2:]
			}
		}
		key, index := f, ""
		if i := strings.IndexByte(f, '['); i >= 0 {
			key, index = f[:i], f[i:]
		}
		if key == "kind" {
			return c.field
		}
		if name, ok := names[key]; ok {
			return name + index
		}
		return c.field
	}
	b, err := json.Marshal(top)
	return b, rename, err
}

// verdict checks the whole verdict, then writes it.
func (s *mcpServer) verdict(ctx context.Context, kind, summary string, items []replyArg, trigger json.RawMessage, rename func(string) string) (*mcp.CallToolResult, verdictOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != "" {
		return nil, verdictOutput{}, s.alreadyWritten()
	}
	exists := &stopError{"verdict", "a verdict file already exists at " + s.verdictFile + " (one verdict per run)", "that verdict stands: end your turn now."}
	if _, err := os.Lstat(s.verdictFile); !errors.Is(err, fs.ErrNotExist) {
		return nil, verdictOutput{}, exists
	}
	if strings.TrimSpace(summary) == "" {
		return nil, verdictOutput{}, refuse("summary", "missing: one line on what you did and why")
	}
	doc, err := s.document(kind, items, trigger, summary)
	if err != nil {
		return nil, verdictOutput{}, err
	}
	v, err := resume.ParseVerdict(doc, s.limits())
	if err == nil && v.Trigger != nil {
		err = resume.CheckScope(v.Trigger, s.ref().Kind) // an unknown kind: the verdict step's
	}
	if err != nil {
		fe := s.toolField(err, "replies")
		if f, ok := strings.CutPrefix(fe.Field, "trigger."); ok && rename != nil {
			fe.Field = rename(f)
		} else if fe.Field == "trigger" && rename != nil {
			fe.Field = rename("kind")
		}
		return nil, verdictOutput{}, fe
	}
	// Where the new replies go, said before the verdict is written: the
	// read may wait on GitHub.
	var placed []string
	for i, w := range s.where(ctx, items) {
		if w.replyTo != "" {
			placed = append(placed, "replies["+strconv.Itoa(i)+"]: "+w.words()+".")
		}
	}
	if err := writeNew(s.verdictFile, doc); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, verdictOutput{}, exists
		}
		return nil, verdictOutput{}, &stopError{"verdict", "could not write the verdict file " + s.verdictFile + ": " + text.OneLine(err.Error()),
			"end your turn now: this run ends without a verdict, and recess dispatches it again (or escalates)."}
	}
	s.written = kind
	out := verdictOutput{Verdict: kind, Replies: len(v.Replies), Trigger: string(v.TriggerJSON), VerdictFile: s.verdictFile}
	posts := text.Count(len(v.Replies), "reply", "replies") + " will be posted"
	if len(placed) > 0 {
		posts += " (" + strings.Join(placed, " ") + ")"
	}
	if kind == resume.VerdictRecessed {
		return toolResult("Recess recorded: "+posts+", then recess waits for "+out.Trigger+". End your turn now: you will be woken in a new run, with what people said since, when it fires.", out), out, nil
	}
	return toolResult("Adjourned: "+posts+". End your turn now.", out), out, nil
}

func (s *mcpServer) alreadyWritten() error {
	return &stopError{"verdict", "this run already " + s.written + " (one verdict per run)", "that verdict stands and nothing more is posted: end your turn now."}
}

// document builds the verdict document from the queued replies, the new
// reply items, and the run's own correlation id and discussion number.
func (s *mcpServer) document(kind string, items []replyArg, trigger json.RawMessage, summary string) ([]byte, error) {
	replies := append(append([]replyArg{}, s.queued...), items...)
	doc := map[string]any{"verdict": kind, "correlation_id": s.correlationID, "discussion_number": s.discussion}
	if len(replies) > 0 {
		doc["replies"] = replies
	}
	if trigger != nil {
		doc["trigger"] = trigger
	}
	if summary != "" {
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
// sees "replies[0].body", the name it sent. Queued replies come first in
// the verdict, so a new reply's index is shifted back; with itemsName ""
// (the reply tool) it is the call itself.
func (s *mcpServer) toolField(err error, itemsName string) *wait.FieldError {
	var fe *wait.FieldError
	if !errors.As(err, &fe) {
		return &wait.FieldError{Field: "verdict", Reason: err.Error()}
	}
	out := *fe
	f := strings.TrimPrefix(fe.Field, "verdict.")
	switch {
	case f == "replies" && len(s.queued) > 0:
		out.Reason = fmt.Sprintf("%s (%d queued with reply so far, which stay queued: give at most %d more)", fe.Reason, len(s.queued), max(resume.MaxReplies-len(s.queued), 0))
	case f == "verdict": // the whole document is too long
		f = cmp.Or(itemsName, "body")
		out.Reason = "the verdict would be " + fe.Reason + ": shorten the replies"
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

// readThread (read_thread, read_discussion) returns the thread, and for
// a resumed run what was asked and what fired.
func (s *mcpServer) readThread(ctx context.Context, _ noInput) (*mcp.CallToolResult, discussionOutput, error) {
	if s.reader == nil {
		return nil, discussionOutput{}, &stopError{"read_thread", "recess mcp was started without --token, so it cannot read the thread",
			"do not call read_thread again; work from your prompt (the workflow's author can pass --token)."}
	}
	d, err := s.read(ctx)
	if err != nil {
		return nil, discussionOutput{}, fmt.Errorf("read_thread: could not read %s #%d from GitHub (%s); nothing in your call caused it: call read_thread once more, and if it fails again, work from your prompt", resume.Noun(s.ref().Kind), s.discussion, text.OneLine(err.Error()))
	}
	out := discussionOutput{Kind: string(d.Kind.OrDiscussion()), Number: d.Number, Title: d.Title, Body: d.Body, Category: d.Category, Author: d.Author,
		CreatedAt: rfc3339(d.CreatedAt), URL: d.URL, Closed: d.Closed, Locked: d.Locked, Comments: []commentOutput{},
		Resumed: resumedOutput{Asked: []questionOutput{}}}
	for _, c := range d.Comments {
		body := c.Body
		if c.Mine {
			body = state.Visible(body)
		}
		out.Comments = append(out.Comments, commentOutput{ID: c.ID, Author: c.Author, CreatedAt: rfc3339(c.CreatedAt), Thread: c.Thread(),
			Body: body, URL: c.URL, ByRecess: c.Mine, Hidden: c.Deleted || c.Minimized, CanReplyTo: resume.PlaceReply(d, c.ID).Moved == ""})
	}
	if rc := s.rc; rc != nil {
		out.Resumed = resumedOutput{Resumed: true, CorrelationID: rc.CorrelationID, FiredBy: rc.FiredBy, FiredAt: rfc3339(rc.FiredAt),
			Trigger: string(rc.Trigger), Asked: []questionOutput{}}
		for _, q := range resume.Questions(d, rc.CorrelationID) {
			out.Resumed.Asked = append(out.Resumed.Asked, questionOutput{ID: q.ID, Thread: q.Thread, Body: q.Body, URL: q.URL})
		}
	}
	sentence := fmt.Sprintf("%s #%d, %q: %s.", text.Capital(resume.Noun(d.Kind)), d.Number, text.Clip(d.Title, 120), text.Count(len(d.Comments), "comment or reply", "comments and replies"))
	return toolResult(sentence, out), out, nil
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
