package action

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/recess-action/recess/resume"
	"github.com/recess-action/recess/state"
)

// Dry-run wrappers: every read goes to GitHub, every write is only
// described. The engine runs unchanged, so what it reports is what a real
// run would do at that moment.

// dryLine is one write a real run would have made.
type dryLine struct {
	// Discussion is the discussion the write is on (0: not known).
	Discussion int
	// What says it in words, without "would": "dispatch the agent workflow".
	What string
}

func (l dryLine) String() string {
	if l.Discussion == 0 {
		return "would " + l.What
	}
	return fmt.Sprintf("#%d: would %s", l.Discussion, l.What)
}

type dryLog struct {
	clock resume.Clock
	lines []dryLine
	seq   int
	// numbers maps the node ids of every discussion and comment read to
	// its discussion's number, so a write on a node id names the
	// discussion.
	numbers map[string]int
	// lost are the records a deleted comment held (resume.Restorer), which
	// a real run writes back: the rest of the dry run reads them as
	// written.
	lost map[int]*state.Record
}

func (l *dryLog) add(discussion int, format string, args ...any) {
	l.lines = append(l.lines, dryLine{Discussion: discussion, What: fmt.Sprintf(format, args...)})
}

// saw remembers which discussion d's node ids belong to.
func (l *dryLog) saw(d *resume.Discussion) {
	if d == nil {
		return
	}
	l.numbers[d.ID] = d.Number
	for _, c := range d.Comments {
		l.numbers[c.ID] = d.Number
	}
}

type dryStore struct {
	resume.Store
	log *dryLog
}

var (
	_ resume.DiscussionStore = dryStore{}
	_ resume.PendingAdvisor  = dryStore{}
	_ resume.Restorer        = dryStore{}
)

func (s dryStore) Save(_ context.Context, rec *state.Record) error {
	if rec.DiscussionID != "" {
		s.log.numbers[rec.DiscussionID] = rec.Discussion
	}
	what := "save the record"
	if status := PlainText(rec.Status); status != "" {
		what += fmt.Sprintf(", status %q", Excerpt(status))
	}
	s.log.add(rec.Discussion, "%s", what)
	s.log.seq++
	rec.Rev = "dry-run-" + strconv.Itoa(s.log.seq)
	return nil
}

// LoadWith forwards the wrapped store's one-read load (a dry run costs what
// a real one would); a store without one answers as resume.DiscussionStore
// allows, with the record alone.
func (s dryStore) LoadWith(ctx context.Context, number int) (*state.Record, *resume.Discussion, error) {
	ds, ok := s.Store.(resume.DiscussionStore)
	if !ok {
		rec, err := s.Store.Load(ctx, number)
		return rec, nil, err
	}
	rec, d, err := ds.LoadWith(ctx, number)
	s.log.saw(d)
	if lost := s.log.lost[number]; lost != nil && d != nil && errors.Is(err, state.ErrNotFound) {
		return lost.Clone(), d, nil
	}
	return rec, d, err
}

// Load reads as LoadWith does.
func (s dryStore) Load(ctx context.Context, number int) (*state.Record, error) {
	rec, err := s.Store.Load(ctx, number)
	if lost := s.log.lost[number]; lost != nil && errors.Is(err, state.ErrNotFound) && !errors.Is(err, resume.ErrNotFound) {
		return lost.Clone(), nil
	}
	return rec, err
}

// Lost forwards the wrapped store's reading of a deleted comment (a read),
// and remembers the record a real run would write back.
func (s dryStore) Lost(ctx context.Context, number int, gone resume.DeletedComment) (*state.Record, error) {
	r, ok := s.Store.(resume.Restorer)
	if !ok {
		return nil, nil
	}
	rec, err := r.Lost(ctx, number, gone)
	if rec != nil && err == nil {
		if s.log.lost == nil {
			s.log.lost = map[int]*state.Record{}
		}
		kept := rec.Clone()
		kept.Rev = "dry-run-restored"
		s.log.lost[number] = kept
	}
	return rec, err
}

// PendingAdvice forwards the wrapped store's advice, so a dry run warns as
// a real one would.
func (s dryStore) PendingAdvice() []string {
	if a, ok := s.Store.(resume.PendingAdvisor); ok {
		return a.PendingAdvice()
	}
	return nil
}

type dryDiscussions struct {
	resume.Discussions
	log *dryLog
}

var _ resume.ActivityProber = dryDiscussions{}

func (d dryDiscussions) Discussion(ctx context.Context, number int) (*resume.Discussion, error) {
	disc, err := d.Discussions.Discussion(ctx, number)
	d.log.saw(disc)
	return disc, err
}

func (d dryDiscussions) Reply(_ context.Context, discussionID, replyTo, body string) (*resume.Comment, error) {
	where := "a comment"
	if replyTo != "" {
		where = "a reply"
	}
	d.log.add(d.log.numbers[discussionID], "post %s: %q", where, Excerpt(PlainText(body)))
	d.log.seq++
	id := "dry-run-comment-" + strconv.Itoa(d.log.seq)
	return &resume.Comment{ID: id, ParentID: replyTo, Body: body, CreatedAt: d.log.clock.Now().UTC(), Mine: true}, nil
}

func (d dryDiscussions) React(_ context.Context, id string, r resume.Reaction) error {
	d.log.add(d.log.numbers[id], "react with %s", reactionWords(r))
	return nil
}

func (d dryDiscussions) Unreact(_ context.Context, id string, r resume.Reaction) error {
	d.log.add(d.log.numbers[id], "remove its %s reaction", reactionWords(r))
	return nil
}

func (d dryDiscussions) Label(_ context.Context, id, name string) error {
	d.log.add(d.log.numbers[id], "add the label %s", name)
	return nil
}

func (d dryDiscussions) Unlabel(_ context.Context, id, name string) error {
	d.log.add(d.log.numbers[id], "remove the label %s", name)
	return nil
}

// Activity forwards the sweep's batched probe (a read) when the wrapped
// adapter has one, so a dry-run sweep costs what a real one would.
func (d dryDiscussions) Activity(ctx context.Context, numbers []int) (map[int]time.Time, error) {
	p, ok := d.Discussions.(resume.ActivityProber)
	if !ok {
		return nil, errors.New("the discussions adapter has no activity probe")
	}
	return p.Activity(ctx, numbers)
}

type dryDispatcher struct {
	resume.Dispatcher
	log *dryLog
}

func (d dryDispatcher) Dispatch(_ context.Context, req resume.DispatchRequest) (int64, error) {
	what := "a fresh run"
	if req.ResumeContext != "" {
		what = fmt.Sprintf("a resumed run with a resume_context of %d bytes", len(req.ResumeContext))
	}
	d.log.add(req.Discussion, "dispatch the agent workflow: %s", what)
	return 0, nil
}

func reactionWords(r resume.Reaction) string {
	switch r {
	case resume.Eyes:
		return "👀"
	case resume.ThumbsUp:
		return "👍"
	case resume.Confused:
		return "😕"
	}
	return string(r)
}

// htmlTag matches the HTML recess writes into comments (<sub>, hidden
// markers); PlainText leaves it out of what a terminal or a summary shows.
var htmlTag = regexp.MustCompile(`<!--[\s\S]*?-->|</?[a-zA-Z][^<>]*>`)

// PlainText is markdown or HTML from a comment as one line of plain words.
func PlainText(s string) string {
	return strings.Join(strings.Fields(htmlTag.ReplaceAllString(s, " ")), " ")
}

// FirstLine is s up to its first line break.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Excerpt is the first line of s, cut at 100 characters.
func Excerpt(s string) string {
	return ClipRunes(FirstLine(s), 100)
}
