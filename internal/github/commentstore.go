package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shurcooL/githubv4"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
)

var (
	_ resume.Store          = (*CommentStore)(nil)
	_ resume.ThreadStore    = (*CommentStore)(nil)
	_ resume.PendingAdvisor = (*CommentStore)(nil)
	_ resume.Restorer       = (*CommentStore)(nil)
	_ resume.LabelFinder    = (*CommentStore)(nil)
	_ resume.Overlooker     = (*CommentStore)(nil)
)

// sweepSlot is the schedule's usual interval: consecutive sweeps fall in
// consecutive slots.
const sweepSlot = 5 * time.Minute

// Pending finds recess's status comment without reading the discussion:
// it looks at the first scanFirst and the last scanLast top-level comments
// of each waiting discussion (ids and authorship only), and pages further,
// scanPages pages at most, only through a discussion whose status comment
// it did not find there. GitHub charges a page of 100 discussions scanned so
// 2 points (1 + 100 + 100 connection requests, over 100) whatever the size
// of the two comment connections, so both read a full page: the answer grows
// with the comments there are, the points do not.
const (
	scanFirst = pageSize
	scanLast  = pageSize
	scanPages = 10
)

// recentDailyPages is how many pages of recently updated open discussions
// the day's first sweep reads (the other hours read one): a pending record
// without the label is found within the hour when its discussion is among
// the 100 most recently updated open ones (a failed labelling, a label
// removed by hand: both just moved it there), and within the day when it
// is among the 1,000. Cost: a request (2 points) per page, and a batched
// read of recess's own candidate comments there (see Pending).
const recentDailyPages = 10

// CommentStore keeps each discussion's record in recess's own status comment
// in that discussion (state-store: comment): visible text for people plus the
// record in a hidden marker, as state.EncodeComment writes it. Only a
// comment GitHub says recess authored (viewerDidAuthor) is trusted, wherever
// it stands in the discussion (other workflows may comment first with the
// same token).
//
// GitHub has no compare-and-swap on comments. Right before every update the
// store re-reads the status comment (one small request) and compares its
// revision (id, updatedAt and a hash of its body) with the one the caller
// loaded: a change is state.ErrConflict, and the engine decides again from a
// fresh read. What is left open is the moment between that re-read and the
// update (about one request): a write by another process there is
// overwritten. The shipped workflows keep one writer per discussion (its
// concurrency group), so this matters only for setups that do not; the
// branch store (a real compare-and-swap on a git ref) closes it. Saves
// within one process are serialised.
//
// Load and Save read and write the record and nothing else.
type CommentStore struct {
	// Clock is the sweep's moment, which alternates the search's order and
	// chooses the hour's first slot (Pending); nil: the client's clock. Set
	// it to the engine's clock, so that a pinned RECESS_NOW pins it too.
	Clock resume.Clock

	c *Client
	// saveMu serialises saves: a re-read and its update must not interleave
	// with another save of the same record.
	saveMu sync.Mutex

	mu sync.Mutex
	// forged are comments that carried a state marker recess did not
	// write: by others, or by recess's identity in a body that is not
	// exactly what recess writes for the record (see status).
	forged map[string]bool
	// stray are status comments read where a sweep's scan does not look
	// (past a discussion's first and last comments): the next save moves
	// the record to a new status comment at the end (see Save).
	stray map[string]bool
	// advice is what the last Pending that listed the waiting discussions
	// could not do (PendingAdvice).
	advice []string
	// looked: the last Pending also looked at the recently updated
	// discussions (the hour's first slot), so Overlooked has nothing to add.
	looked bool
}

// NewCommentStore returns the comment store over c.
func NewCommentStore(c *Client) *CommentStore {
	return &CommentStore{c: c, forged: map[string]bool{}, stray: map[string]bool{}}
}

// ForgedMarkers returns the ids of comments that carried a state marker
// recess did not write (not authored by recess's identity, or not exactly
// what recess writes for the record they hold), ignored and reported when
// seen.
func (s *CommentStore) ForgedMarkers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.forged))
}

// PendingAdvice says what the last Pending could not do, for the
// maintainer (resume.PendingAdvisor).
func (s *CommentStore) PendingAdvice() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.advice)
}

// FindsPendingByLabel is resume.LabelFinder: Pending finds the waiting
// discussions by the waiting label, so the engine keeps it right.
func (s *CommentStore) FindsPendingByLabel() bool { return true }

func (s *CommentStore) now() time.Time {
	if s.Clock != nil {
		return s.Clock.Now()
	}
	return s.c.tr.clock.Now()
}

// fail is every error about a discussion the store returns.
func (s *CommentStore) fail(n int, err error) error {
	return fmt.Errorf("github: comment store: discussion %d: %w", n, err)
}

// logf logs about discussion n.
func (s *CommentStore) logf(n int, format string, args ...any) {
	s.c.logf("github: comment store: discussion %d: "+format, append([]any{n}, args...)...)
}

// Load reads the discussion (one request for most discussions) and returns
// the record in the newest trusted status comment. See LoadWith.
func (s *CommentStore) Load(ctx context.Context, discussion int) (*state.Record, error) {
	rec, _, err := s.LoadWith(ctx, resume.ThreadRef{Kind: state.KindDiscussion, Number: discussion})
	return rec, err
}

// LoadWith is resume.ThreadStore: the discussion read that finds the
// record is the discussion the engine decides on, so a run pays for one
// read.
func (s *CommentStore) LoadWith(ctx context.Context, ref resume.ThreadRef) (*state.Record, *resume.Thread, error) {
	if err := served(ref); err != nil {
		return nil, nil, err
	}
	n := ref.Number
	disc, comments, err := s.c.readThread(ctx, ref)
	if errors.Is(err, resume.ErrNotFound) {
		// A deleted discussion took its status comment with it.
		return nil, nil, s.fail(n, fmt.Errorf("%w: %w", state.ErrNotFound, err))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("github: comment store: %w", err)
	}
	id, rec, err := s.status(n, comments)
	if err != nil {
		return nil, nil, s.fail(n, err)
	}
	if rec == nil {
		return nil, disc, s.fail(n, state.ErrNotFound)
	}
	s.mu.Lock()
	s.stray[id] = outOfScan(comments, id)
	s.mu.Unlock()
	return rec, disc, nil
}

// outOfScan reports whether the top-level comment id stands where a
// sweep's scan does not look: past the first scanFirst top-level comments
// and before the last scanLast.
func outOfScan(comments []storedComment, id string) bool {
	at, top := -1, 0
	for _, c := range comments {
		if c.Root != "" {
			continue
		}
		if c.ID == id {
			at = top
		}
		top++
	}
	return at >= scanFirst && top-at > scanLast
}

// status finds the newest trusted status comment among comments (oldest
// first) and returns its id and record, Rev set. Markers in comments recess
// did not author, and in comments of recess's identity whose body is not
// exactly what recess writes for the record they hold (another workflow
// with the same token reposting someone's text), are ignored and reported;
// a corrupt marker in recess's own comment is ErrCorrupt.
func (s *CommentStore) status(n int, comments []storedComment) (string, *state.Record, error) {
	var (
		id    string
		found *state.Record
		count int
	)
	for _, cm := range slices.Backward(comments) {
		if cm.Deleted || !state.HasMarker(cm.Body) {
			continue
		}
		if !cm.Mine {
			s.ignore(n, cm.ID, fmt.Sprintf("by %q (not authored by recess)", cm.Author))
			continue
		}
		rec, err := decodeStatus(n, cm.Body)
		switch {
		case errors.Is(err, errForeign):
			s.logf(n, "status comment %s %v", cm.ID, err)
			continue
		case errors.Is(err, state.ErrNotExact):
			s.ignore(n, cm.ID, "by recess's identity, whose body is not what recess writes for the record it holds (another workflow posting with the same token?)")
			continue
		case rec == nil && err == nil:
			continue
		}
		if count++; found != nil {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("status comment %s (left as it is): %w", cm.ID, err)
		}
		rec.Rev = makeRev(cm.ID, cm.UpdatedAt, cm.Body)
		id, found = cm.ID, rec
	}
	if count > 1 {
		// The trace of a cross-process race.
		s.logf(n, "%d status comments by recess; using the newest, %s", count, id)
	}
	return id, found, nil
}

// ignore reports, once per comment, a state marker in comment id that is
// not recess's record.
func (s *CommentStore) ignore(n int, id, why string) {
	s.mu.Lock()
	first := !s.forged[id]
	s.forged[id] = true
	s.mu.Unlock()
	if first {
		s.logf(n, "ignoring a state marker in comment %s %s", id, why)
	}
}

// decodeStatus decodes a status comment body of discussion n: nil and no
// error when it holds no marker after all; an error wrapping
// state.ErrCorrupt when its record cannot be read; one wrapping
// state.ErrNotExact when the body is not exactly what recess writes for the
// record it holds (state.ReadStatus); one wrapping errForeign when it holds
// another discussion's record.
func decodeStatus(n int, body string) (*state.Record, error) {
	rec, ok, err := state.ReadStatus(body)
	switch {
	case !ok:
		return nil, nil
	case errors.Is(err, state.ErrNotExact):
		return nil, err
	case err != nil && !errors.Is(err, state.ErrCorrupt):
		return nil, fmt.Errorf("%w: %w", state.ErrCorrupt, err)
	case err != nil:
		return nil, err
	case rec.Discussion != n:
		return nil, fmt.Errorf("holds the record of discussion %d (%w): left as it is", rec.Discussion, errForeign)
	}
	return rec, nil
}

// errForeign marks a status comment that holds another discussion's record
// (one that came with a discussion transferred from another repository, or
// another number): foreign, not corrupt. It is left as it is and this
// discussion starts a fresh record.
var errForeign = errors.New("a discussion transferred from another repository?")

// Lost is resume.Restorer: the record a deleted comment held, when the
// comment was recess's status comment of the discussion. A body without a
// record marker costs nothing; one with a marker costs one request, to
// learn recess's own login (GraphQL viewer), which the author's login must
// be exactly (wait.SameAccount: the person "foo" is not the app
// "foo[bot]"): a marker in anyone else's
// deleted comment is ignored and reported, as in a live one. The record is
// decoded as Load decodes it (decodeStatus): a record that does not decode
// is an error wrapping state.ErrCorrupt; a record of another discussion
// (one transferred from another repository), or one in a body that is not
// exactly what recess writes for it (another workflow's repost with the
// same token), is logged and not restored.
// Whether a status comment still stands is for Save to say: the engine
// writes the record back with an empty Rev.
func (s *CommentStore) Lost(ctx context.Context, n int, gone resume.DeletedComment) (*state.Record, error) {
	if !state.HasMarker(gone.Body) {
		return nil, nil
	}
	me, err := s.c.viewerLogin(ctx)
	if err != nil {
		return nil, s.fail(n, err)
	}
	if !wait.SameAccount(gone.Author, me) {
		s.logf(n, "ignoring a state marker in a deleted comment by %q (not authored by recess, %q): nothing restored", gone.Author, me)
		return nil, nil
	}
	rec, err := decodeStatus(n, gone.Body)
	switch {
	case errors.Is(err, errForeign):
		s.logf(n, "the deleted status comment %v; nothing restored", err)
		return nil, nil
	case errors.Is(err, state.ErrNotExact):
		s.logf(n, "ignoring a state marker in a deleted comment by %q: its body is not what recess writes for the record it holds (another workflow posting with the same token?): nothing restored", gone.Author)
		return nil, nil
	case err != nil:
		return nil, s.fail(n, fmt.Errorf("recess's deleted status comment holds a record that cannot be read, so it is not restored: %w", err))
	case rec != nil:
		rec.Rev = ""
	}
	return rec, nil
}

// makeRev is a status comment's version: its id, GitHub's updatedAt and a
// hash of its body, so that any edit (by anyone with access) between a read
// and a write is seen.
func makeRev(id string, updatedAt time.Time, body string) string {
	return id + "@" + updatedAt.UTC().Format(time.RFC3339Nano) + "@" + bodySum(body)
}

func bodySum(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:16])
}

// Save writes rec into its discussion's status comment if the comment is
// still at rec.Rev (an empty Rev: only if there is no status comment yet),
// and sets rec.Rev. It returns an error wrapping state.ErrConflict when the
// comment changed, appeared or vanished since it was read, and
// state.ErrCorrupt when the stored record is corrupt (it is never
// overwritten). Every update is preceded by a re-read of the status comment
// (for a first save, of the discussion: see CommentStore).
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#updatediscussioncomment
func (s *CommentStore) Save(ctx context.Context, rec *state.Record) error {
	if rec == nil {
		return errors.New("github: comment store: nil record")
	}
	n := rec.Discussion
	stamped := s.c.stamped(rec)
	body, err := state.StatusBody(&stamped)
	if err != nil {
		return s.fail(n, err)
	}

	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	written, err := s.write(ctx, resume.ThreadRef{Kind: rec.Kind.OrDiscussion(), Number: n}, rec.Rev, body)
	if err != nil {
		return s.fail(n, err)
	}
	rec.Rev = makeRev(written.ID, written.UpdatedAt, written.Body)
	rec.UpdatedAt = stamped.UpdatedAt
	return nil
}

// write writes body into the status comment rev names, if a re-read finds
// it still at rev (or into a new one at the end: see move); an empty rev
// posts the first status comment, unless one appeared since the caller's
// read.
func (s *CommentStore) write(ctx context.Context, ref resume.ThreadRef, rev, body string) (commentNode, error) {
	n := ref.Number
	if rev == "" {
		disc, comments, err := s.c.readThread(ctx, ref)
		if err != nil {
			return commentNode{}, err
		}
		id, rec, err := s.status(n, comments)
		switch {
		case err != nil:
			return commentNode{}, err
		case rec != nil:
			return commentNode{}, fmt.Errorf("a status comment (%s) already exists: %w", id, state.ErrConflict)
		}
		return s.c.addComment(ctx, ref.Kind, disc.ID, "", body)
	}
	id, _, found := strings.Cut(rev, "@")
	if !found || id == "" {
		return commentNode{}, fmt.Errorf("revision %q is not this store's: %w", rev, state.ErrConflict)
	}
	got, err := s.c.commentsByID(ctx, ref.Kind, []string{id})
	if err != nil {
		return commentNode{}, err
	}
	cur, now := got[id], ""
	if cur.ID != "" && cur.DeletedAt == nil && cur.ViewerDidAuthor && cur.Discussion.Number == n {
		now = makeRev(id, cur.UpdatedAt, cur.Body)
	}
	if now != rev {
		return commentNode{}, judgeChange("status comment "+id, rev, now, func() error {
			_, err := decodeStatus(n, cur.Body)
			return err
		})
	}
	s.mu.Lock()
	stray := s.stray[id]
	s.mu.Unlock()
	var written commentNode
	if stray {
		written, err = s.move(ctx, ref, cur.Discussion.ID, id, body)
	} else {
		written, err = s.c.updateComment(ctx, id, body)
	}
	if errors.Is(err, resume.ErrNotFound) {
		return commentNode{}, fmt.Errorf("status comment %s is gone: %w: %w", id, state.ErrConflict, err)
	}
	return written, err
}

// move writes the record of discussion n into a new status comment at the
// end of the discussion and deletes the old one (id), which stands where a
// sweep's scan does not look (outOfScan): otherwise every sweep would page
// through the discussion to find it. It happens once per hundred top-level
// comments written after the status comment, in a run that writes the
// record anyway. The new comment is written, then edited with the same
// body (the scan takes recess's edited comments for status comments, as
// every status comment is after its second save), then the old one is
// deleted: a run that dies in between leaves two status comments, and the
// newest wins (see status) until the next save moves it again.
//
// GitHub docs: https://docs.github.com/graphql/reference/mutations#deletediscussioncomment,
// https://docs.github.com/graphql/reference/mutations#deleteissuecomment
func (s *CommentStore) move(ctx context.Context, ref resume.ThreadRef, threadID, id, body string) (commentNode, error) {
	written, err := s.c.addComment(ctx, ref.Kind, threadID, "", body)
	if err != nil {
		return commentNode{}, err
	}
	if written, err = s.c.updateComment(ctx, written.ID, body); err != nil {
		return commentNode{}, err
	}
	s.mu.Lock()
	delete(s.stray, id)
	s.mu.Unlock()
	if err := s.c.deleteComment(ctx, id); err != nil && !errors.Is(err, resume.ErrNotFound) {
		s.logf(ref.Number, "moved the status comment to %s; the old one, %s, is left (the newer wins): %v", written.ID, id, err)
	}
	return written, nil
}

// scanComment is what Pending reads of a top-level comment to tell recess's
// status comment from its other comments without their bodies.
type scanComment struct {
	ID              string
	ViewerDidAuthor bool
	LastEditedAt    *time.Time
}

// scanNode is what Pending reads of each discussion: its number, and which
// of its first and last comments recess wrote (the status comment stands
// among them unless it slipped between: see move and scanDeeper). The
// literals are scanFirst and scanLast (a struct tag cannot name a constant;
// a test keeps them equal).
type scanNode struct {
	Number int
	First  struct {
		PageInfo pageInfo
		Nodes    []scanComment
	} `graphql:"first: comments(first: 100)"`
	Last backConn `graphql:"last: comments(last: 100)"`
}

// scanThread is a thread Pending scanned, of kind kind (empty: a discussion,
// as state.Summary says).
type scanThread struct {
	scanNode
	kind state.Kind
}

// backConn is a page of top-level comments read backwards.
type backConn struct {
	PageInfo backInfo
	Nodes    []scanComment
}

// backInfo is a connection's page info read backwards.
type backInfo struct {
	HasPreviousPage bool
	StartCursor     *string
}

// candidates are the comments that may be recess's status comment: recess's
// own that were ever edited (every save after the first edits it), else all
// of recess's own.
func candidates(comments ...[]scanComment) []string {
	var edited, mine []string
	seen := map[string]bool{}
	for _, cm := range slices.Concat(comments...) {
		if !cm.ViewerDidAuthor || seen[cm.ID] {
			continue
		}
		seen[cm.ID] = true
		mine = append(mine, cm.ID)
		if cm.LastEditedAt != nil {
			edited = append(edited, cm.ID)
		}
	}
	if len(edited) > 0 {
		return edited
	}
	return mine
}

func (d scanNode) candidates() []string { return candidates(d.First.Nodes, d.Last.Nodes) }

// Pending lists the discussions a sweep must consider, soonest due first,
// without reading any discussion whole. Discussions carrying the waiting
// label are found with a search (one request per 100); for each, recess's
// own comments among its first 100 and last 100 top-level comments are the
// candidates for its status comment (see candidates), whose bodies are read
// in one batched request per 100. A discussion whose status comment stands
// between those is paged through further (scanDeeper: a request per
// further 100 top-level comments, only for such discussions). Where the
// status comment is found, the summary carries the record's NextDue and
// Checked (Known); elsewhere Known is false and the sweep must visit.
// Other workflows commenting first with the same token change nothing of
// this.
//
// Once an hour (the sweep in its first slot) Pending also looks at the
// recently updated open discussions, which finds a pending record whose
// label is missing (removed by hand, a failed labelling, a run that died
// between a new record's write and its label, a record older than the
// label); its visit puts the label back. Once a day (the day's first slot)
// the look reaches further (recentDailyPages).
//
// GitHub search reaches 1,000 results at most: past that, sweeps alternate
// the search's order (oldest first, newest first), so that 2,000 waiting
// discussions are all seen every other sweep, and PendingAdvice recommends
// the branch store. GitHub's search index trails writes by seconds to
// minutes, so a label added moments ago may be missed until the next sweep.
//
// GitHub docs: https://docs.github.com/graphql/reference/queries#search
func (s *CommentStore) Pending(ctx context.Context) ([]state.Summary, error) {
	out, err := s.pending(ctx)
	if err != nil {
		return nil, fmt.Errorf("github: comment store: pending: %w", err)
	}
	state.SortSummaries(out)
	return out, nil
}

func (s *CommentStore) pending(ctx context.Context) ([]state.Summary, error) {
	scanned, err := s.searchWaiting(ctx)
	if err != nil {
		return nil, err
	}
	// The first labelled are found by the label's search; those after
	// them by the hourly look.
	labelled := len(scanned)
	now := s.now().UTC()
	looked := now.Minute() < int(sweepSlot/time.Minute)
	if looked {
		look := 1
		if now.Hour() == 0 {
			look = recentDailyPages
		}
		recent, err := s.recentlyUpdated(ctx, look)
		if err != nil {
			return nil, err
		}
		for _, d := range recent {
			if !slices.ContainsFunc(scanned[:labelled], func(l scanThread) bool { return l.Number == d.Number }) {
				scanned = append(scanned, d)
			}
		}
	}
	s.mu.Lock()
	s.looked = looked
	s.mu.Unlock()
	return s.summaries(ctx, scanned, labelled)
}

// summaries is what a sweep must consider of the scanned discussions, the
// first labelled of which carry the waiting label (see Pending): it reads
// the bodies of recess's candidate comments there, in one batched request
// per 100.
func (s *CommentStore) summaries(ctx context.Context, scanned []scanThread, labelled int) ([]state.Summary, error) {
	// A pull request's comments are read apart (see anyComment).
	ids := map[bool][]string{}
	for _, d := range scanned {
		pull := d.kind == state.KindPullRequest
		ids[pull] = append(ids[pull], d.candidates()...)
	}
	got, err := s.c.commentsByID(ctx, state.KindDiscussion, ids[false])
	if err != nil {
		return nil, err
	}
	pulls, err := s.c.commentsByID(ctx, state.KindPullRequest, ids[true])
	if err != nil {
		return nil, err
	}
	maps.Copy(got, pulls)
	seen := map[int]bool{}
	var out []state.Summary
	for i, d := range scanned {
		if d.Number <= 0 || seen[d.Number] {
			continue
		}
		seen[d.Number] = true
		rec := statusAmong(d.Number, d.candidates(), got)
		if rec == nil && i < labelled {
			if rec, err = s.scanDeeper(ctx, d); err != nil {
				return nil, err
			}
		}
		switch {
		case rec != nil && !rec.Pending():
			// Nothing pending under the label: a stale label, which the
			// visit of any run puts right.
		case rec != nil && i < labelled:
			out = append(out, summaryOf(rec))
		case rec != nil, i < labelled:
			// A pending record found without its label is visited, which
			// puts the label back (the next search finds it again); a
			// labelled discussion whose record was not read is visited
			// too. A discussion found without the label counts only when
			// its pending record was read.
			out = append(out, state.Summary{Discussion: d.Number, Kind: d.kind})
		}
	}
	return out, nil
}

// Overlooked is resume.Overlooker: the pending records whose discussions
// lost their waiting label (a person removed it, a labelling failed, a run
// died between a new record's write and its label), among the 100 most
// recently updated open discussions, each to be visited. Removing a label
// updates the discussion, so a label removed since the last sweep is found
// there. The look is the one the hour's first sweep makes (see Pending): a
// sweep about to switch itself off makes it whatever its slot, and one
// whose Pending made it already costs nothing more. Cost: a request for the
// page, and one for the bodies of recess's comments there.
//
// GitHub docs: https://docs.github.com/graphql/reference/objects#repository
func (s *CommentStore) Overlooked(ctx context.Context) ([]state.Summary, error) {
	s.mu.Lock()
	looked := s.looked
	s.mu.Unlock()
	if looked {
		return nil, nil
	}
	recent, err := s.recentlyUpdated(ctx, 1)
	if err != nil {
		return nil, fmt.Errorf("github: comment store: overlooked: %w", err)
	}
	// Pending's rule, none of them labelled: a pending record counts.
	out, err := s.summaries(ctx, recent, 0)
	if err != nil {
		return nil, fmt.Errorf("github: comment store: overlooked: %w", err)
	}
	return out, nil
}

// statusAmong returns the record of the first of ids that is recess's
// status comment of discussion n (its comment read in got); nil when none is.
func statusAmong(n int, ids []string, got map[string]commentNode) *state.Record {
	for _, id := range ids {
		if cm, ok := got[id]; ok && cm.ViewerDidAuthor {
			if rec, err := decodeStatus(n, cm.Body); rec != nil && err == nil {
				return rec
			}
		}
	}
	return nil
}

// searchWaiting finds the threads of the kinds the setup serves
// (Config.Kinds) that carry the waiting label, in the order of the sweep's
// moment (see Pending): discussions, then issues and pull requests.
func (s *CommentStore) searchWaiting(ctx context.Context) ([]scanThread, error) {
	// Sweeps keep no memory: the order alternates with the sweep's moment.
	order := "created-asc"
	if s.now().Unix()/int64(sweepSlot/time.Second)%2 == 1 {
		order = "created-desc"
	}
	query := fmt.Sprintf("repo:%s/%s label:%q sort:%s", s.c.owner, s.c.repo, resume.LabelWaiting, order)
	out, total, err := s.search(ctx, "DISCUSSION", query, 0)
	if err != nil {
		return nil, err
	}
	advice := s.beyondReach(nil, "discussions", total, len(out))
	if terms, ok := s.flatTerms(); ok {
		flat, total, err := s.search(ctx, "ISSUE", query+terms, 0)
		if err != nil {
			return nil, err
		}
		advice = s.beyondReach(advice, "issues and pull requests", total, len(flat))
		out = append(out, flat...)
	}
	s.mu.Lock()
	s.advice = advice
	s.mu.Unlock()
	return out, nil
}

// beyondReach adds to advice, and logs, that more threads (what) wait than
// the search reached: GitHub search reaches 1,000 results at most, and the
// other order comes next sweep.
func (s *CommentStore) beyondReach(advice []string, what string, total, reached int) []string {
	if total <= reached {
		return advice
	}
	a := fmt.Sprintf("%d %s wait, more than the %d a search of the comment store reaches: sweeps alternate between the oldest and the newest, and past %d some wait for their own events; the branch store (state-store: branch) has no such limit", total, what, reached, 2*reached)
	s.c.logf("github: comment store: %s", a)
	return append(advice, a)
}

// flatTerms narrows a search of type ISSUE to the kinds the setup serves
// (Config.Kinds); ok is false when it serves neither issues nor pull requests.
func (s *CommentStore) flatTerms() (terms string, ok bool) {
	issues, pulls := s.c.serves(state.KindIssue), s.c.serves(state.KindPullRequest)
	switch {
	case issues && pulls:
		return "", true
	case issues:
		return " is:issue", true
	case pulls:
		return " is:pr", true
	}
	return "", false
}

// search reads up to limit pages (0: all) of GitHub's search of type typ,
// DISCUSSION or ISSUE (issues and pull requests, told apart by
// __typename), and the number of results GitHub counts. Discussions are
// never asked for where the setup does not serve them (a token may not
// read them, and GitHub refuses the field then): none are found.
func (s *CommentStore) search(ctx context.Context, typ, query string, limit int) ([]scanThread, int, error) {
	if typ == "DISCUSSION" && !s.c.serves(state.KindDiscussion) {
		return nil, 0, nil
	}
	total := 0
	out, err := pages(limit, func(after *string) ([]scanThread, pageInfo, error) {
		vars := map[string]any{"query": githubv4.String(query), "after": (*githubv4.String)(after)}
		var nodes []scanThread
		var pi pageInfo
		if typ == "DISCUSSION" {
			var q struct {
				Search struct {
					DiscussionCount int
					PageInfo        pageInfo
					Nodes           []struct {
						D scanNode `graphql:"... on Discussion"`
					}
				} `graphql:"search(query: $query, type: DISCUSSION, first: 100, after: $after)"`
			}
			if err := s.c.query(ctx, &q, vars); err != nil {
				return nil, pageInfo{}, fmt.Errorf("search %s: %w", query, err)
			}
			for _, n := range q.Search.Nodes {
				nodes = append(nodes, scanThread{scanNode: n.D})
			}
			total, pi = q.Search.DiscussionCount, q.Search.PageInfo
			return nodes, pi, nil
		}
		var q struct {
			Search struct {
				IssueCount int
				PageInfo   pageInfo
				Nodes      []struct {
					Typename string   `graphql:"__typename"`
					I        scanNode `graphql:"... on Issue"`
					P        scanNode `graphql:"... on PullRequest"`
				}
			} `graphql:"search(query: $query, type: ISSUE, first: 100, after: $after)"`
		}
		if err := s.c.query(ctx, &q, vars); err != nil {
			return nil, pageInfo{}, fmt.Errorf("search %s: %w", query, err)
		}
		for _, n := range q.Search.Nodes {
			if n.Typename == "PullRequest" {
				nodes = append(nodes, scanThread{n.P, state.KindPullRequest})
			} else {
				nodes = append(nodes, scanThread{n.I, state.KindIssue})
			}
		}
		total, pi = q.Search.IssueCount, q.Search.PageInfo
		return nodes, pi, nil
	})
	return out, total, err
}

// recentlyUpdated reads up to limit pages of the most recently updated open
// threads of each kind the setup serves (Config.Kinds), as the search reads
// the labelled ones: discussions, then issues and pull requests.
func (s *CommentStore) recentlyUpdated(ctx context.Context, limit int) ([]scanThread, error) {
	out, err := pages(limit, func(after *string) ([]scanThread, pageInfo, error) {
		if !s.c.serves(state.KindDiscussion) {
			return nil, pageInfo{}, nil // never asked for (see search)
		}
		var q repoQuery[struct {
			Discussions struct {
				PageInfo pageInfo
				Nodes    []scanNode
			} `graphql:"discussions(first: 100, after: $after, states: [OPEN], orderBy: {field: UPDATED_AT, direction: DESC})"`
		}]
		vars := s.c.repoVars()
		vars["after"] = (*githubv4.String)(after)
		if err := s.c.query(ctx, &q, vars); err != nil {
			return nil, pageInfo{}, fmt.Errorf("recently updated discussions: %w", err)
		}
		var nodes []scanThread
		for _, n := range q.Repository.Discussions.Nodes {
			nodes = append(nodes, scanThread{scanNode: n})
		}
		return nodes, q.Repository.Discussions.PageInfo, nil
	})
	if terms, ok := s.flatTerms(); ok && err == nil {
		var flat []scanThread
		flat, _, err = s.search(ctx, "ISSUE", fmt.Sprintf("repo:%s/%s is:open sort:updated-desc%s", s.c.owner, s.c.repo, terms), limit)
		out = append(out, flat...)
	}
	return out, err
}

// scanDeeper looks for d's status comment between the first and the last
// comments the search scanned, paging backwards from the last ones (a
// status comment that slipped out of the last comments is likelier near
// them): one request per further 100 top-level comments and one for the
// candidates' bodies, scanPages pages at most. It returns nil when it finds
// none, or when the first and the last comments scanned meet (the sweep
// then visits the discussion, as for any unknown).
func (s *CommentStore) scanDeeper(ctx context.Context, d scanThread) (*state.Record, error) {
	first := map[string]bool{}
	for _, c := range d.First.Nodes {
		first[c.ID] = true
	}
	isFirst := func(c scanComment) bool { return first[c.ID] }
	conn := d.Last
	for page := 0; conn.PageInfo.HasPreviousPage && conn.PageInfo.StartCursor != nil && !slices.ContainsFunc(conn.Nodes, isFirst); page++ {
		if page == scanPages {
			s.logf(d.Number, "no status comment among its first %d top-level comments and its last %d; the sweep visits it", scanFirst, scanLast*(scanPages+1))
			return nil, nil
		}
		page, err := s.before(ctx, d, *conn.PageInfo.StartCursor)
		if errors.Is(err, resume.ErrNotFound) || err == nil && page == nil {
			return nil, nil // deleted meanwhile: the visit will tell
		}
		if err != nil {
			return nil, fmt.Errorf("comments of %s %d before %s: %w", d.kind.OrDiscussion(), d.Number, *conn.PageInfo.StartCursor, err)
		}
		conn = *page
		if ids := candidates(slices.DeleteFunc(slices.Clone(conn.Nodes), isFirst)); len(ids) > 0 {
			got, err := s.c.commentsByID(ctx, d.kind, ids)
			if err != nil {
				return nil, err
			}
			if rec := statusAmong(d.Number, ids, got); rec != nil {
				return rec, nil
			}
		}
	}
	return nil, nil
}

// before reads the page of d's top-level comments before cursor; nil when
// d is gone.
func (s *CommentStore) before(ctx context.Context, d scanThread, cursor string) (*backConn, error) {
	type comments struct {
		Comments backConn `graphql:"comments(last: 100, before: $before)"`
	}
	if d.kind != "" {
		var q repoQuery[flatRead[comments]]
		vars := s.c.flatVars(d.kind, d.Number)
		vars["before"] = githubv4.String(cursor)
		if err := s.c.query(ctx, &q, vars); err != nil || q.Repository.thread() == nil {
			return nil, err
		}
		return &q.Repository.thread().Comments, nil
	}
	var q repoQuery[struct {
		Discussion *comments `graphql:"discussion(number: $number)"`
	}]
	vars := s.c.repoVars()
	vars["number"] = githubv4.Int(d.Number)
	vars["before"] = githubv4.String(cursor)
	if err := s.c.query(ctx, &q, vars); err != nil || q.Repository.Discussion == nil {
		return nil, err
	}
	return &q.Repository.Discussion.Comments, nil
}
