package state

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Option configures a store.
type Option func(*options)

type options struct {
	now func() time.Time
}

// WithClock sets the clock a store stamps UpdatedAt with when the caller
// left it zero. The engine always sets UpdatedAt itself (its clock can be
// pinned), so this matters only to other callers; the default is the wall
// clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

func newOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// prepare encodes what Save will store: rec with UpdatedAt stamped when the
// caller left it zero. It returns the bytes, the stamp used and the summary
// Pending reports for them.
func prepare(rec *Record, now func() time.Time) ([]byte, time.Time, summary, error) {
	if rec == nil {
		return nil, time.Time{}, summary{}, refuse(ErrInvalid, "", "nil record", nil)
	}
	c := canonical(rec)
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = now().UTC()
	}
	raw, err := encode(c)
	if err != nil {
		return nil, time.Time{}, summary{}, fmt.Errorf("discussion %d: %w", rec.Discussion, err)
	}
	return raw, c.UpdatedAt, summarize(c), nil
}

// decodeFor decodes the bytes stored under a discussion number; a record
// that names another discussion is corrupt (moved or copied by hand).
func decodeFor(discussion int, raw []byte) (*Record, error) {
	rec, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	if rec.Discussion != discussion {
		return nil, refuse(ErrCorrupt, "discussion", fmt.Sprintf("%d, stored as discussion %d", rec.Discussion, discussion), nil)
	}
	return rec, nil
}

// summary is what Pending needs to know of a stored record.
type summary struct {
	pending bool
	next    time.Time
	checked time.Time
}

func summarize(r *Record) summary {
	return summary{pending: r.Pending(), next: r.NextDue(), checked: r.Checked}
}

// listing is the Summary Pending reports for a stored record.
func (s summary) listing(discussion int) Summary {
	return Summary{Discussion: discussion, NextDue: s.next, Known: true, Checked: s.checked}
}

// SortSummaries puts summaries in the order every store's Pending returns
// them: soonest due first, those with nothing due by time last, ties by
// discussion number.
func SortSummaries(s []Summary) {
	slices.SortFunc(s, func(a, b Summary) int {
		switch {
		case a.NextDue.IsZero() != b.NextDue.IsZero():
			if a.NextDue.IsZero() {
				return 1
			}
			return -1
		case !a.NextDue.Equal(b.NextDue):
			return a.NextDue.Compare(b.NextDue)
		}
		return cmp.Compare(a.Discussion, b.Discussion)
	})
}

// Memory is a store in memory, for tests: a map behind a mutex, holding
// exactly the bytes Encode gives, so it enforces the same limits as any
// other store.
type Memory struct {
	now func() time.Time

	mu   sync.Mutex
	seq  uint64
	recs map[int]*memEntry
}

type memEntry struct {
	raw []byte
	rev string
	// bad is the decoding error of raw bytes planted by Put; nil for a
	// readable record.
	bad     error
	summary summary
}

// NewMemory returns an empty store.
func NewMemory(opts ...Option) *Memory {
	o := newOptions(opts)
	return &Memory{now: o.now, recs: make(map[int]*memEntry)}
}

// nextRev returns a revision never used before in this store, so a write
// always changes it. The caller holds m.mu.
func (m *Memory) nextRev() string {
	m.seq++
	return "m" + strconv.FormatUint(m.seq, 10)
}

func (m *Memory) corrupt(discussion int, e *memEntry) error {
	return fmt.Errorf("discussion %d: bytes kept in the memory store (Raw(%d)): %w", discussion, discussion, e.bad)
}

// Load returns a fresh copy of the discussion's record.
func (m *Memory) Load(ctx context.Context, discussion int) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	e := m.recs[discussion]
	m.mu.Unlock()
	if e == nil {
		return nil, fmt.Errorf("discussion %d: %w", discussion, ErrNotFound)
	}
	if e.bad != nil {
		return nil, m.corrupt(discussion, e)
	}
	// Entries are never changed in place, only replaced, so e.raw can be
	// read without the lock.
	rec, err := decodeFor(discussion, e.raw)
	if err != nil {
		return nil, fmt.Errorf("discussion %d: %w", discussion, err)
	}
	rec.Rev = e.rev
	return rec, nil
}

// Save stores rec if rec.Rev is still the stored revision (an empty Rev:
// only if nothing is stored) and sets rec.Rev, and rec.UpdatedAt when it was
// zero. It refuses to replace a corrupt record (ErrCorrupt).
func (m *Memory) Save(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	raw, stamp, sum, err := prepare(rec, m.now)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.recs[rec.Discussion]
	if cur != nil && cur.bad != nil {
		return m.corrupt(rec.Discussion, cur)
	}
	if err := compareRev(rec, cur != nil, revOf(cur)); err != nil {
		return err
	}
	rev := m.nextRev()
	m.recs[rec.Discussion] = &memEntry{raw: raw, rev: rev, summary: sum}
	rec.Rev = rev
	rec.UpdatedAt = stamp
	return nil
}

func revOf(e *memEntry) string {
	if e == nil {
		return ""
	}
	return e.rev
}

// compareRev is the compare half of compare-and-swap.
func compareRev(rec *Record, exists bool, stored string) error {
	switch {
	case rec.Rev == "" && exists:
		return fmt.Errorf("discussion %d: a record exists already: %w", rec.Discussion, ErrConflict)
	case rec.Rev != "" && !exists:
		return fmt.Errorf("discussion %d: revision %s is gone, nothing is stored: %w", rec.Discussion, rec.Rev, ErrConflict)
	case rec.Rev != stored:
		return fmt.Errorf("discussion %d: revision %s is not the stored %s: %w", rec.Discussion, rec.Rev, stored, ErrConflict)
	}
	return nil
}

// Pending lists the records that need watching, soonest due first. A
// corrupt record is listed too, as not Known, so the sweep visits it and
// reports it rather than forgetting the discussion.
func (m *Memory) Pending(ctx context.Context) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	var out []Summary
	for n, e := range m.recs {
		switch {
		case e.bad != nil:
			out = append(out, Summary{Discussion: n})
		case e.summary.pending:
			out = append(out, e.summary.listing(n))
		}
	}
	m.mu.Unlock()
	SortSummaries(out)
	return out, nil
}

// Put plants raw bytes as the discussion's stored record, whatever they
// are: tests use it for corrupt records.
func (m *Memory) Put(discussion int, raw []byte) {
	e := &memEntry{raw: slices.Clone(raw)}
	if rec, err := decodeFor(discussion, e.raw); err != nil {
		e.bad = err
	} else {
		e.summary = summarize(rec)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e.rev = m.nextRev()
	m.recs[discussion] = e
}

// Raw returns a copy of the bytes stored for the discussion.
func (m *Memory) Raw(discussion int) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.recs[discussion]
	if e == nil {
		return nil, false
	}
	return slices.Clone(e.raw), true
}
