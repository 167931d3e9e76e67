package resume

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

// Clock is the engine's only source of time. Tests and RECESS_NOW pin it.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now returns f().
func (f ClockFunc) Now() time.Time { return f() }

// Store keeps one record per discussion with optimistic writes.
//
// Load returns state.ErrNotFound when no record exists, and an error wrapping
// state.ErrCorrupt when one exists but cannot be decoded (the store leaves
// it where it is; the engine refuses to overwrite it). Save writes rec if rec.Rev is
// still the stored version (empty Rev: only if none exists), updates rec.Rev,
// and returns an error wrapping state.ErrConflict otherwise. Pending lists the
// records that need watching, soonest due first.
type Store interface {
	Load(ctx context.Context, discussion int) (*state.Record, error)
	Save(ctx context.Context, rec *state.Record) error
	Pending(ctx context.Context) ([]state.Summary, error)
}

// Threads reads and writes the threads recess serves: the conversation
// itself, whatever its kind. The kind is data (ThreadRef.Kind, Thread.Kind):
// an adapter serves the kinds it knows and refuses the others.
type Threads interface {
	// Thread returns the thread with every comment and reply, oldest
	// first. A deleted thread is ErrNotFound.
	Thread(ctx context.Context, ref ThreadRef) (*Thread, error)
	// Reply posts a comment in t answering the comment to ("" answers the
	// thread itself). The adapter places it as its kind of thread can
	// hold it: in a discussion, under the top-level comment to sits in
	// (Comment.Thread), as GitHub threads only one level deep and refuses
	// a reply to a reply; in an issue or a pull request, at the top level,
	// opening with a quote line that links to. Which comment a reply may
	// answer in place is the engine's rule (PlaceReply).
	Reply(ctx context.Context, t *Thread, to, body string) (*Comment, error)
	// Edit replaces the body of a comment recess posted (to keep the copy
	// of its record that a comment carries current: see facts.keepCopy).
	Edit(ctx context.Context, commentID, body string) error
	// React adds a reaction to a discussion or comment; Unreact removes one.
	// Both are idempotent.
	React(ctx context.Context, subjectID string, r Reaction) error
	Unreact(ctx context.Context, subjectID string, r Reaction) error
	// Label adds a label to the discussion d as it was read (its Repo
	// names the label's id), creating it in the repository when it is
	// missing (an error wrapping ErrLabelUnavailable when the token may not
	// create it). Unlabel removes it (a label that does not exist is a
	// no-op).
	Label(ctx context.Context, d *Thread, name string) error
	Unlabel(ctx context.Context, d *Thread, name string) error
}

// Permissions tells what an account may do in the repository. The engine
// asks it only for the authors of comments that hold a slash command, once
// per author per Engine.
type Permissions interface {
	// Permission returns login's access to the repository as GitHub reports
	// it. An account GitHub does not know as a user (an app's "name[bot]")
	// has no access (Write false) and no error. An error wrapping
	// ErrPermissionUnreadable means the token may not ask; any other error
	// may be transient.
	Permission(ctx context.Context, login string) (Permission, error)
}

// Permission is an account's access to the repository.
type Permission struct {
	// Role is GitHub's name for it (admin, maintain, write, triage, read,
	// a custom role's name, or none), for logs and people.
	Role string
	// Write is true for write, maintain and admin (and custom roles built
	// on them): what slash commands need.
	Write bool
}

// Reaction is a GitHub reaction content.
type Reaction string

// Reactions recess uses.
const (
	Eyes     Reaction = "EYES"
	ThumbsUp Reaction = "THUMBS_UP"
	Confused Reaction = "CONFUSED"
)

// Dispatcher starts agent runs and looks them up.
type Dispatcher interface {
	// Dispatch starts the agent workflow. It returns GitHub's run id when the
	// server reports it (0 when it does not). An error wrapping
	// ErrDispatchRefused means GitHub refused the request itself (an input
	// the workflow does not declare: retrying the same request cannot help);
	// ErrNoWorkflow, that the agent workflow is not there; any other error
	// may be transient.
	Dispatch(ctx context.Context, req DispatchRequest) (runID int64, err error)
	// FindRun looks a run up by the correlation id in its run-name.
	// ErrNotFound when there is none (yet).
	FindRun(ctx context.Context, correlationID string) (*WorkflowRun, error)
	// Run returns a run by id.
	Run(ctx context.Context, id int64) (*WorkflowRun, error)
	// RecentDispatches counts the fresh dispatches among the agent runs
	// created by workflow_dispatch at or after since (FreshRun on their
	// run-names), for the repository-wide rate limit. ErrNoWorkflow when
	// the agent workflow is not there.
	RecentDispatches(ctx context.Context, since time.Time) (int, error)
}

// Errors the engine branches on, returned (wrapped) by the ports.
var (
	ErrNotFound = errors.New("not found")
	// ErrDispatchRefused and ErrNoWorkflow are GitHub's refusals of a
	// dispatch that no retry fixes: the request does not fit the agent
	// workflow (ErrDispatchRefused), or the repository has no agent
	// workflow by the name recess was given (ErrNoWorkflow, the workflow
	// input). The run that meets one fails, naming the cause, and escalates
	// the dispatch once; nothing is lost to it: what is owed stays owed,
	// and is tried again once the setup changes (SetupReader) or on
	// "/recess retry".
	ErrDispatchRefused = errors.New("dispatch refused")
	ErrNoWorkflow      = errors.New("no such agent workflow")
	// ErrPermissionUnreadable: the token may not read an account's
	// permission on the repository (GitHub answered 401, 403 or 404).
	ErrPermissionUnreadable = errors.New("permission unreadable")
	// ErrLabelUnavailable: a label recess needs does not exist and the
	// token may not create it. The error says which label and the fix.
	ErrLabelUnavailable = errors.New("label unavailable")
)

// SetupReader is an optional extension of Dispatcher: what a dispatch
// depends on besides its request, as one string that changes when a person
// changes something that could make a refused dispatch go through (the
// agent workflow's file, its inputs, which workflow and ref recess is set
// to dispatch). A dispatch refused for a reason no retry fixes waits for
// it to change (state.Escalation.Setup); a sweep looks at it (one cheap
// read) only while such a dispatch waits. Without it, only "/recess retry"
// tries again.
type SetupReader interface {
	Setup(ctx context.Context) (string, error)
}

// setupUnknown is the setup a refused dispatch waits on when it could not
// be read (or the Dispatcher cannot tell): the first answer that can be
// read differs, and brings one more try.
const setupUnknown = "unknown"

// DispatchRequest is one workflow_dispatch of the agent workflow.
type DispatchRequest struct {
	CorrelationID string
	Discussion    int
	// ResumeContext is the resume_context input (empty for a fresh dispatch).
	ResumeContext string
	// Repo is what the discussion's read learned of the repository
	// (Thread.Repo): the branch a dispatch runs on when none is
	// configured. It is no input.
	Repo Repo
}

// Inputs returns the workflow_dispatch inputs for the request.
func (r DispatchRequest) Inputs() map[string]string {
	return map[string]string{
		"correlation_id":    r.CorrelationID,
		"discussion_number": strconv.Itoa(r.Discussion),
		"resume_context":    r.ResumeContext,
	}
}

// WorkflowRun is what the engine needs to know of an agent run.
type WorkflowRun struct {
	ID         int64
	Name       string
	Status     string // queued, in_progress, completed, ...
	Conclusion string // success, failure, cancelled, timed_out, ... (when completed)
	CreatedAt  time.Time
	URL        string
}

// ThreadRef addresses a thread: its kind and its number. Issue, pull
// request and discussion numbers share one space in a repository, so the
// number alone names the record; the kind says how to read the thread.
type ThreadRef struct {
	Kind   state.Kind
	Number int
}

// Comment is the comment id of t, nil when t holds none.
func (t *Thread) Comment(id string) *Comment {
	if i := slices.IndexFunc(t.Comments, func(c Comment) bool { return c.ID == id }); i >= 0 {
		return &t.Comments[i]
	}
	return nil
}

// AnyKind addresses a thread whose kind the asker does not know (a
// workflow_dispatch carries only the number) where more than one kind is
// served: the engine then addresses it as its record says, and an adapter
// asked for it reads whichever kind the number names.
const AnyKind state.Kind = "any"

// UnknownKind is the kind of a thread known by its number alone (a
// workflow_dispatch, a visit, a first run's read_thread) where the setup
// serves kinds (none: discussions alone): the one kind served (a
// discussion is ""), else AnyKind. A number of a kind not served is then
// not found.
func UnknownKind(served []state.Kind) state.Kind {
	switch {
	case len(served) == 0:
		return ""
	case len(served) > 1:
		return AnyKind
	case served[0] == state.KindDiscussion:
		return ""
	}
	return served[0]
}

// NumberRef addresses thread number n of kind k as the entry points do:
// an empty kind is a discussion (state.Kind.OrDiscussion).
func NumberRef(k state.Kind, n int) ThreadRef { return ThreadRef{Kind: k.OrDiscussion(), Number: n} }

// Ref addresses thread number n as the entry points do (Engine.Kind).
func (e *Engine) Ref(n int) ThreadRef { return e.ref(n, input{}) }

// DiscussionRef addresses discussion number n.
func DiscussionRef(n int) ThreadRef { return ThreadRef{Kind: state.KindDiscussion, Number: n} }

// Thread is a snapshot of a thread (a discussion) and its comments.
type Thread struct {
	// Kind is the thread's kind (state.KindDiscussion, KindIssue,
	// KindPullRequest); empty: a discussion.
	Kind   state.Kind
	ID     string
	Number int
	Title  string
	Body   string
	Author string
	// AuthorBot is set when the author is an app's account (see
	// Comment.AuthorBot).
	AuthorBot bool
	CreatedAt time.Time
	URL       string
	// Closed is set for a closed thread; Merged, besides, for a merged
	// pull request.
	Closed, Merged bool
	Locked         bool
	// Mine is true when recess's own identity authored the discussion.
	Mine bool
	// Labels are the discussion's label names.
	Labels []string
	// Category and CategorySlug name the discussion's category.
	Category, CategorySlug string
	// Comments are all comments and replies, ordered by creation time.
	Comments []Comment
	// Repo is what the read learned of the repository.
	Repo Repo
}

// Repo is what the adapter reads of the repository with every discussion, at
// no extra cost, for the calls that follow on that discussion (Label,
// Dispatch), so that the adapter keeps nothing between calls. The zero value
// knows nothing: the adapter then asks GitHub what it needs.
type Repo struct {
	// ID is the repository's node id.
	ID string
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
	// Labels are the node ids of recess's labels (LabelWaiting,
	// LabelEscalated) by name, "" for one the repository does not have; a
	// name it does not hold is unknown.
	Labels map[string]string
}

// DeletedAccount is the login GitHub shows for whatever a deleted account
// wrote (see wait.DeletedAccount).
const DeletedAccount = wait.DeletedAccount

// Comment is one discussion comment or reply.
type Comment struct {
	ID string
	// Root is the top-level comment a reply sits under ("" for a
	// top-level comment).
	Root string
	// Author is the author's login; DeletedAccount for an account that
	// was deleted since.
	Author string
	// AuthorBot is set when the author is an app's account: GraphQL gives
	// its login without the "[bot]" suffix, so the login alone would not
	// tell it from the person of that name (see authorityKey).
	AuthorBot bool
	// Association is GitHub's authorAssociation (OWNER, MEMBER,
	// COLLABORATOR, CONTRIBUTOR, ...), for logs only: it is no proof of
	// access (MEMBER may only read the repository). Who may use slash
	// commands is the Permissions port's answer.
	Association string
	Body        string
	CreatedAt   time.Time
	URL         string
	// Mine is GitHub's viewerDidAuthor: recess's own identity wrote it.
	Mine      bool
	Minimized bool
	Deleted   bool
}

// ActivityProber is an optional extension of Threads: one cheap, batched
// look at many threads of every kind, so that a sweep can find the threads
// whose events were lost without reading each of them. The engine
// type-asserts it on its Threads port; without it a sweep visits every
// record that waits on people alone, every time.
type ActivityProber interface {
	// Activity returns, for each waiting record's thread (of the summary's
	// kind) it can vouch for, the creation time (GitHub's clock) of the
	// newest comment or reply it sees, or the thread's own creation time
	// when it sees none. In a discussion it sees every reply in the
	// record's question threads (state.Summary.ThreadRoots), however many
	// comments follow them, at a constant cost each. A thread left out of
	// the answer (a deleted, closed or locked thread, or one it could not
	// read) must be visited. What else "sees" covers is the implementation's to document;
	// it never reports a time older than a comment it saw.
	Activity(ctx context.Context, waiting []state.Summary) (map[int]time.Time, error)
}

// ReactionReader is an optional extension of Threads: which subjects
// carry recess's own reaction. The engine type-asserts it on its
// Threads port, and asks it only when a record restored from recess's
// copy of it would dispatch (see facts.unaccountedRun): every dispatch puts
// recess's 👀 on what it answers and every verdict takes it off, so a 👀
// the copy does not account for is a run whose record went with the status
// comment. Without it, such a run goes unseen.
type ReactionReader interface {
	// Reacted returns those of subjects (comment or discussion node ids)
	// that carry recess's own reaction r.
	Reacted(ctx context.Context, subjects []string, r Reaction) ([]string, error)
}

// ThreadStore is an optional extension of Store, for a store that reads
// the discussion itself to find the record (the comment store keeps the
// record in a comment of the discussion). The engine type-asserts it on its
// Store port: a run then pays for one read of the discussion, not two.
//
// LoadWith returns the record and the discussion it was read from. When the
// discussion exists but holds no record, it returns the discussion and an
// error wrapping state.ErrNotFound. When the discussion does not exist, the
// error wraps both state.ErrNotFound and ErrNotFound, and the discussion is
// nil. A corrupt record is an error wrapping state.ErrCorrupt, as for Load.
// A store that could not read the discussion (it keeps the record
// elsewhere) returns the record as Load would with a nil discussion, and the
// engine reads the discussion through Threads.
type ThreadStore interface {
	LoadWith(ctx context.Context, ref ThreadRef) (*state.Record, *Thread, error)
}

// DeletedComment is a comment deleted from a discussion as the deletion's
// event tells it: its body and its author's login. It is outside input,
// whoever wrote it.
type DeletedComment struct {
	Body   string
	Author string
}

// Restorer is an optional extension of Store, for a store that keeps the
// record where a person can delete it (the comment store keeps it in a
// status comment). The engine type-asserts it on its Store port when a
// comment was deleted (Engine.Deleted).
//
// Lost returns the record the deleted comment held when that comment was
// this store's record of the discussion, written by recess's own identity;
// nil when it was anything else (a marker in someone else's comment is
// reported and ignored, as everywhere). The record is decoded with the
// store's own codec: one that does not decode is an error wrapping
// state.ErrCorrupt, never adopted. Lost writes nothing: the engine writes
// the record back with Save and an empty Rev, which succeeds only while no
// record stands in its place.
type Restorer interface {
	Lost(ctx context.Context, discussion int, gone DeletedComment) (*state.Record, error)
}

// PendingAdvisor is an optional extension of Store: what its last Pending
// could not do (list every pending record, say), in words for the
// maintainer. A sweep or a plan reports it as a warning.
type PendingAdvisor interface {
	PendingAdvice() []string
}

// Overlooker is an optional extension of Store, for a store whose Pending
// can leave a pending record out (the comment store finds records by the
// waiting label, which a person may remove). A sweep that found nothing
// pending asks it before switching the sweep off (Config.SweepOnlyWhileWaiting):
// the sweep is the only thing that fires a recess waiting for time alone,
// so it must not stop while such a record may exist.
type Overlooker interface {
	// Overlooked lists pending records the last Pending may have left out,
	// each to be visited (Known false), which puts right whatever hid it.
	Overlooked(ctx context.Context) ([]state.Summary, error)
}

// LabelFinder is an optional extension of Store, for a store whose Pending
// finds the waiting discussions by the LabelWaiting label (the comment
// store). The engine then keeps that label on a discussion exactly while
// its record is pending, as an effect of every decision that read the
// discussion, applied after the record write (but before the write that
// makes an existing record pending: see facts.waitingLabel); the store's Load
// and Save write no labels. A store without it (the branch store keeps an index)
// gets no waiting label.
type LabelFinder interface {
	FindsPendingByLabel() bool
}
