// Package storetest is the conformance suite every record store passes:
// the comment and branch stores that talk to GitHub (internal/github, over
// the fake GitHub). It knows stores only through their three methods, so it
// runs the same against any of them.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/state"

	"github.com/recess-action/recess/resume/wait"
)

// Store is the store contract, the same method set as the engine's Store
// port (declared again here because state never imports the engine).
type Store interface {
	Load(ctx context.Context, discussion int) (*state.Record, error)
	Save(ctx context.Context, rec *state.Record) error
	Pending(ctx context.Context) ([]state.Summary, error)
}

// Harness tells the suite how to get stores.
type Harness struct {
	// New returns a fresh, empty store. Sub-tests run in parallel, each
	// with its own store.
	New func(t *testing.T) Store
	// Corrupt plants bytes that cannot be decoded as the stored record of
	// the discussion, in place of whatever is stored.
	Corrupt func(t *testing.T, s Store, discussion int)
	// MaxRecordBytes is the size of the largest encoded record (state.Encode's
	// output, in bytes) the store accepts for the records of this suite:
	// one of exactly that size must save, one byte more must fail with
	// state.ErrTooLarge. 0 means state.MaxEncoded.
	MaxRecordBytes int
	// Another returns a second instance of the store over the same storage,
	// as a separate run of recess has; nil when the store lives in one
	// process only. The racing writers use one instance each.
	Another func(t *testing.T, s Store) Store
	// NoCompareAndSwap says the storage offers no compare-and-swap (the
	// comment store): a write landing between a Save's last check and its
	// write (one request) is lost, so recess keeps one writer per
	// discussion (the concurrency group). The racing writers then take
	// turns inside Save only: the gap between a writer's Load and its Save,
	// where separate runs really race (a run decides for seconds), stays
	// open, and every write landing there must be detected.
	NoCompareAndSwap bool
}

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil || h.Corrupt == nil {
		t.Fatal("storetest: Harness needs New and Corrupt")
	}
	if h.MaxRecordBytes == 0 {
		h.MaxRecordBytes = state.MaxEncoded
	}
	tests := []struct {
		name string
		run  func(t *testing.T, h Harness)
	}{
		{"round_trip", testRoundTrip},
		{"updated_at_stamped_when_zero", testUpdatedAtStamped},
		{"not_found", testNotFound},
		{"create_only", testCreateOnly},
		{"stale_write", testStaleWrite},
		{"two_writers_racing", func(t *testing.T, h Harness) { testRacingWriters(t, h, 2, 10) }},
		{"write_between_load_and_save", testWriteBetween},
		{"eight_writers_racing", func(t *testing.T, h Harness) { testRacingWriters(t, h, 8, 4) }},
		{"corrupt_record_kept", testCorrupt},
		{"maximal_record", testMaximal},
		{"over_bounds_refused", testOverBounds},
		{"too_large_keeps_previous", testTooLargeKeepsPrevious},
		{"pending_order", testPendingOrder},
		{"pending_follows_writes", testPendingFollowsWrites},
		{"load_returns_copies", testLoadReturnsCopies},
		{"save_does_not_alias", testSaveDoesNotAlias},
		{"cancelled_context", testCancelledContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, h)
		})
	}
}

// recordOpts compare records as stores must keep them: times by instant
// (they come back in UTC), nil and empty alike (omitted from the wire form),
// Rev aside (checked on its own).
var recordOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(state.Record{}, "Rev"),
}

// base is a moment with nanoseconds, away from UTC, so that stores are seen
// to keep both the instant and the precision.
var base = time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("UTC+2", 2*60*60))

func ptr[T any](v T) *T { return &v }

// rich is a record with every field set, some of them with text that could
// break a careless store (comment delimiters, NUL, quotes, non-ASCII).
func rich(n int) *state.Record {
	return &state.Record{
		Schema:       state.Schema,
		Discussion:   n,
		DiscussionID: "D_kwDOJ6b3Ys4AXyZ" + strconv.Itoa(n),
		Seen:         state.Cursor{At: base, IDs: []string{"DC_kwDOJ6b3Ys4AeXlH", "DC_kwDOJ6b3Ys4AeXlI"}},
		Active: &state.Run{
			CorrelationID:  "c-active",
			State:          state.RunDispatched,
			RunID:          12345678901,
			Claimed:        true,
			IntentAt:       base.Add(time.Minute),
			DispatchedAt:   base.Add(time.Minute + 2*time.Second),
			Since:          state.Cursor{At: base.Add(-time.Hour), IDs: []string{"DC_a"}},
			Until:          state.Cursor{At: base},
			Resume:         &state.Resume{CorrelationID: "c-original", FiredBy: "missing_input", FiredAt: base, Trigger: MustTrigger(`{"kind":"missing_input","replies":2}`), RecessCount: 2},
			Attempt:        1,
			DispatchErrors: 3,
			LastError:      "502 Bad Gateway --> <!-- \x00 \"quoted\" \u2028 ünïcödé",
			EyesOn:         "DC_kwDOJ6b3Ys4AeXlH",
		},
		OpenRFCs: map[string]*state.RFC{
			"c-1": {
				Trigger:      MustTrigger(`{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}],"expires":"P7D","on_expire":"cancel"}`),
				OpenedAt:     base,
				RepliesAfter: state.Cursor{At: base, IDs: []string{"DC_r1"}},
				Since:        state.Cursor{At: base.Add(-time.Hour)},
				DueAt:        ptr(base.Add(48 * time.Hour)),
				RecessCount:  1,
				ReplyIDs:     []string{"DC_r1", "DC_r2"},
				ThreadRoots:  []string{"DC_t1"},
				Summary:      "waiting for the storage owners <!-- recess:state v1 --> -->",
			},
			"c-2 \"odd\" -->": {
				Trigger:     MustTrigger(`{"kind":"escalation_needed","signal":"security-review"}`),
				OpenedAt:    base.Add(time.Second),
				RecessCount: 3,
			},
		},
		Queued:     &state.Queued{Until: base.Add(-time.Minute), Reason: "rate limit"},
		Escalated:  &state.Escalation{At: base.Add(-24 * time.Hour), Reason: "2 failed runs"},
		Dispatches: []time.Time{base.Add(-50 * time.Minute), base.Add(-10 * time.Minute)},
		Applied:    []string{"c-0", "c-00"},
		Commands:   state.Cursor{At: base.Add(-time.Hour), IDs: []string{"DC_cmd"}},
		Checked:    base.Add(-time.Second),
		Closed:     "",
		UpdatedAt:  base.Add(2 * time.Minute),
		Status:     "⏸ Waiting for 2 more replies, or until 2026-11-23 10:00 UTC",
	}
}

// saveNew saves rec as a new record and fails the test if that fails.
func saveNew(t *testing.T, s Store, rec *state.Record) {
	t.Helper()
	rec.Rev = ""
	if err := s.Save(t.Context(), rec); err != nil {
		t.Fatalf("Save(new record %d) = %v, want nil", rec.Discussion, err)
	}
	if rec.Rev == "" {
		t.Fatalf("Save(new record %d) left Rev empty", rec.Discussion)
	}
}

// mustLoad loads a record that must exist.
func mustLoad(t *testing.T, s Store, n int) *state.Record {
	t.Helper()
	rec, err := s.Load(t.Context(), n)
	if err != nil {
		t.Fatalf("Load(%d) = %v, want nil", n, err)
	}
	return rec
}

// wantStored checks that the store holds want for its discussion.
func wantStored(t *testing.T, s Store, want *state.Record) {
	t.Helper()
	got := mustLoad(t, s, want.Discussion)
	if diff := cmp.Diff(want, got, recordOpts); diff != "" {
		t.Errorf("Load(%d) mismatch (-want +got):\n%s", want.Discussion, diff)
	}
}

func testRoundTrip(t *testing.T, h Harness) {
	s := h.New(t)
	rec := rich(1)
	saveNew(t, s, rec)
	got := mustLoad(t, s, 1)
	if diff := cmp.Diff(rich(1), got, recordOpts); diff != "" {
		t.Errorf("Load(1) after Save mismatch (-want +got):\n%s", diff)
	}
	if got.Rev != rec.Rev {
		t.Errorf("Load(1).Rev = %q, want the Rev Save set, %q", got.Rev, rec.Rev)
	}

	revs := []string{rec.Rev}
	for i, change := range []func(r *state.Record){
		func(r *state.Record) { r.Applied = append(r.Applied, "c-next") },
		func(r *state.Record) { delete(r.OpenRFCs, "c-1"); r.Active = nil },
		func(r *state.Record) { r.Status = ""; r.Queued = nil; r.UpdatedAt = r.UpdatedAt.Add(time.Hour) },
	} {
		change(got)
		if err := s.Save(t.Context(), got); err != nil {
			t.Fatalf("Save(change %d) = %v, want nil", i, err)
		}
		if slices.Contains(revs, got.Rev) || got.Rev == "" {
			t.Errorf("Save(change %d) set Rev %q, want a new one (earlier: %q)", i, got.Rev, revs)
		}
		revs = append(revs, got.Rev)
		again := mustLoad(t, s, 1)
		if diff := cmp.Diff(got, again, recordOpts); diff != "" {
			t.Errorf("Load(1) after change %d mismatch (-want +got):\n%s", i, diff)
		}
		if again.Rev != got.Rev {
			t.Errorf("Load(1).Rev after change %d = %q, want %q", i, again.Rev, got.Rev)
		}
		got = again
	}
}

func testUpdatedAtStamped(t *testing.T, h Harness) {
	s := h.New(t)
	rec := state.New(2)
	rec.Applied = []string{"c-1"}
	saveNew(t, s, rec)
	if rec.UpdatedAt.IsZero() {
		t.Fatalf("Save(record without UpdatedAt) left UpdatedAt zero, want the store's stamp")
	}
	wantStored(t, s, rec)

	// The caller's clock wins whenever it is set, even far from the store's.
	got := mustLoad(t, s, 2)
	got.UpdatedAt = base.AddDate(-3, 0, 0)
	if err := s.Save(t.Context(), got); err != nil {
		t.Fatalf("Save(record with UpdatedAt) = %v, want nil", err)
	}
	if !got.UpdatedAt.Equal(base.AddDate(-3, 0, 0)) {
		t.Errorf("Save changed the caller's UpdatedAt to %v, want %v", got.UpdatedAt, base.AddDate(-3, 0, 0))
	}
	wantStored(t, s, got)
}

func testNotFound(t *testing.T, h Harness) {
	s := h.New(t)
	saveNew(t, s, rich(3))
	for _, n := range []int{4, 30, 300} {
		if rec, err := s.Load(t.Context(), n); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Load(%d) = %v, %v, want ErrNotFound", n, rec, err)
		}
	}
	// A Rev for a record that is not there is stale by definition.
	rec := rich(4)
	rec.Rev = "no-such-revision"
	if err := s.Save(t.Context(), rec); !errors.Is(err, state.ErrConflict) {
		t.Errorf("Save(Rev %q, nothing stored) = %v, want ErrConflict", "no-such-revision", err)
	}
	if _, err := s.Load(t.Context(), 4); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Load(4) after refused Save = %v, want ErrNotFound", err)
	}
}

func testCreateOnly(t *testing.T, h Harness) {
	s := h.New(t)
	first := rich(5)
	saveNew(t, s, first)
	second := state.New(5)
	second.Applied = []string{"c-second"}
	if err := s.Save(t.Context(), second); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save(empty Rev over an existing record) = %v, want ErrConflict", err)
	}
	if second.Rev != "" {
		t.Errorf("refused Save set Rev to %q, want it left empty", second.Rev)
	}
	wantStored(t, s, first)
}

func testStaleWrite(t *testing.T, h Harness) {
	s := h.New(t)
	saveNew(t, s, rich(6))
	a := mustLoad(t, s, 6)
	b := mustLoad(t, s, 6)
	a.Applied = append(a.Applied, "c-a")
	if err := s.Save(t.Context(), a); err != nil {
		t.Fatalf("Save(first writer) = %v, want nil", err)
	}
	staleRev := b.Rev
	b.Applied = append(b.Applied, "c-b")
	if err := s.Save(t.Context(), b); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save(second writer, stale Rev) = %v, want ErrConflict", err)
	}
	if b.Rev != staleRev {
		t.Errorf("refused Save changed Rev from %q to %q", staleRev, b.Rev)
	}
	wantStored(t, s, a)
	// Re-reading and retrying is how a conflict resolves.
	c := mustLoad(t, s, 6)
	c.Applied = append(c.Applied, "c-b")
	if err := s.Save(t.Context(), c); err != nil {
		t.Fatalf("Save(retry from a fresh read) = %v, want nil", err)
	}
	wantStored(t, s, c)
}

// testRacingWriters has writers each add their own moments to Dispatches by
// read-modify-write, retrying on conflict; every moment must survive.
//
// Each writer has its own instance of the store when the harness can make
// one (Another), as separate runs of recess do. A store without
// compare-and-swap has its writers take turns inside Save (see
// Harness.NoCompareAndSwap); their Loads and the gaps after them still race.
func testRacingWriters(t *testing.T, h Harness, writers, each int) {
	const n = 7
	const maxAttempts = 1000
	s := h.New(t)
	rec := state.New(n)
	rec.UpdatedAt = base
	saveNew(t, s, rec)
	stores := make([]Store, writers)
	for w := range stores {
		stores[w] = s
		if h.Another != nil {
			stores[w] = h.Another(t, s)
		}
	}
	// inSave closes the one request inside a Save of a store without
	// compare-and-swap, which no check can close.
	var inSave sync.Mutex
	save := func(ctx context.Context, s Store, rec *state.Record) error {
		if h.NoCompareAndSwap {
			inSave.Lock()
			defer inSave.Unlock()
		}
		return s.Save(ctx, rec)
	}

	moment := func(w, i int) time.Time { return base.Add(time.Duration(w*1000+i) * time.Second) }
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			for i := range each {
				if err := appendDispatch(t.Context(), stores[w], save, n, moment(w, i), maxAttempts); err != nil {
					errs <- fmt.Errorf("writer %d, moment %d: %w", w, i, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var want []time.Time
	for w := range writers {
		for i := range each {
			want = append(want, moment(w, i))
		}
	}
	got := mustLoad(t, s, n).Dispatches
	byTime := cmpopts.SortSlices(func(a, b time.Time) bool { return a.Before(b) })
	if diff := cmp.Diff(want, got, byTime); diff != "" {
		t.Errorf("Dispatches after %d racing writers (-want +got):\n%s", writers, diff)
	}
}

func appendDispatch(ctx context.Context, s Store, save func(context.Context, Store, *state.Record) error, n int, at time.Time, maxAttempts int) error {
	for range maxAttempts {
		rec, err := s.Load(ctx, n)
		if err != nil {
			return fmt.Errorf("Load: %w", err)
		}
		rec.Dispatches = append(rec.Dispatches, at)
		rec.UpdatedAt = at
		// Let the other writers in between the read and the write, where a
		// store without a real compare-and-swap loses updates.
		runtime.Gosched()
		err = save(ctx, s, rec)
		if err == nil {
			return nil
		}
		if !errors.Is(err, state.ErrConflict) {
			return fmt.Errorf("Save: %w", err)
		}
	}
	return fmt.Errorf("still conflicting after %d attempts", maxAttempts)
}

// testCancelledContext: a store gives up when its caller does, saying so,
// and a cancelled Save has stored nothing.
func testCancelledContext(t *testing.T, h Harness) {
	s := h.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Save(ctx, rich(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Save(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := s.Load(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Load(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := s.Pending(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Pending(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := s.Load(t.Context(), 1); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Load(1) after a cancelled Save = %v, want ErrNotFound", err)
	}
}

func testCorrupt(t *testing.T, h Harness) {
	ctx := t.Context()
	s := h.New(t)
	pending := rich(12)
	saveNew(t, s, pending)

	// Corrupt where nothing was stored.
	h.Corrupt(t, s, 10)
	// Corrupt over a record a writer has read.
	saveNew(t, s, rich(11))
	held := mustLoad(t, s, 11)
	h.Corrupt(t, s, 11)

	for _, tc := range []struct {
		name string
		rec  *state.Record
	}{
		{"empty_rev", state.New(10)},
		{"held_rev", held},
	} {
		n := tc.rec.Discussion
		if _, err := s.Load(ctx, n); !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("%s: Load(%d) of a corrupt record = %v, want ErrCorrupt", tc.name, n, err)
		}
		err := s.Save(ctx, tc.rec)
		if !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("%s: Save(%d) over a corrupt record = %v, want ErrCorrupt", tc.name, n, err)
		}
		if errors.Is(err, state.ErrConflict) {
			t.Errorf("%s: Save(%d) over a corrupt record = %v, want ErrCorrupt and not ErrConflict", tc.name, n, err)
		}
		// Still reported: never replaced behind the reader's back.
		for range 2 {
			if _, err := s.Load(ctx, n); !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("%s: Load(%d) after refused Save = %v, want ErrCorrupt", tc.name, n, err)
			}
		}
	}
	// Other discussions are unaffected, and a sweep still finds them.
	wantStored(t, s, pending)
	saveNew(t, s, rich(13))
	list, err := s.Pending(ctx)
	if err != nil {
		t.Fatalf("Pending() with a corrupt record stored = %v, want nil", err)
	}
	for _, n := range []int{12, 13} {
		if !slices.ContainsFunc(list, func(x state.Summary) bool { return x.Discussion == n }) {
			t.Errorf("Pending() with a corrupt record stored = %v, want discussion %d listed", list, n)
		}
	}
}

// Realistic GitHub node ids, so that a record at every count bound is as
// large as it will be in real use.
func nodeID(kind string, i int) string { return fmt.Sprintf("%s_kwDOJ6b3Ys4A%04d", kind, i) }

func ids(kind string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = nodeID(kind, from+i)
	}
	return out
}

// MustTrigger parses a trigger document written in a test and panics when
// it is not a valid trigger.
func MustTrigger(doc string) *wait.Trigger {
	t, err := wait.ParseTrigger([]byte(doc), wait.TriggerLimits{})
	if err != nil {
		panic("storetest.MustTrigger(" + doc + "): " + err.Error())
	}
	return t
}

// triggerOf returns a trigger document of exactly size bytes.
// TriggerOf returns a valid trigger whose canonical JSON is size bytes, or
// as close below it as ParseTrigger's limits allow (for bounds tests).
func TriggerOf(size int) *wait.Trigger {
	// An any of missing_input children, each with up to 100 logins of up to
	// 39 characters (what ParseTrigger accepts), grown login by login; the
	// last login's length then makes up the rest.
	t := &wait.Trigger{Kind: wait.KindAny}
	length := func() int {
		b, err := t.MarshalJSON()
		if err != nil {
			panic(err)
		}
		return len(b)
	}
	add := func(login string) {
		if n := len(t.Of); n == 0 || len(t.Of[n-1].From) == wait.MaxFromLogins {
			t.Of = append(t.Of, &wait.Trigger{Kind: wait.KindMissingInput, Replies: 1, Scope: wait.ScopeDiscussion})
		}
		c := t.Of[len(t.Of)-1]
		c.From = append(c.From, login)
	}
	for i := 0; length() < size; i++ {
		add(fmt.Sprintf("u%038d", i))
	}
	last := t.Of[len(t.Of)-1]
	for over := length() - size; over > 0 && len(last.From[len(last.From)-1]) > 1; over = length() - size {
		l := last.From[len(last.From)-1]
		last.From[len(last.From)-1] = l[:max(1, len(l)-over)]
	}
	return t
}

// atBounds is a record with every bounded list at its bound, the largest
// stored trigger and realistic ids.
func atBounds(n int) *state.Record {
	cur := func(from int) state.Cursor {
		return state.Cursor{At: base.Add(time.Duration(from) * time.Second), IDs: ids("DC", from, state.MaxCursorIDs)}
	}
	rec := &state.Record{
		Schema:       state.Schema,
		Discussion:   n,
		DiscussionID: "D_kwDOJ6b3Ys4AXyZt",
		Seen:         cur(0),
		Active: &state.Run{
			CorrelationID: "c-0123456789abcdef",
			State:         state.RunDispatching,
			IntentAt:      base,
			Since:         cur(100),
			Until:         cur(200),
			Attempt:       1,
		},
		OpenRFCs:  make(map[string]*state.RFC),
		Commands:  cur(300),
		UpdatedAt: base,
	}
	for i := range state.MaxOpenRFCs {
		trigger := MustTrigger(`{"kind":"missing_input","replies":2}`)
		if i == 0 {
			trigger = TriggerOf(state.MaxTriggerBytes)
		}
		rec.OpenRFCs[fmt.Sprintf("c-%016d", i)] = &state.RFC{
			Trigger:      trigger,
			OpenedAt:     base,
			RepliesAfter: cur(1000 + 100*i),
			Since:        cur(2000 + 100*i),
			DueAt:        ptr(base.Add(time.Duration(i+1) * time.Hour)),
			RecessCount:  i + 1,
			ReplyIDs:     ids("DC", 3000+100*i, state.MaxReplyIDs),
			ThreadRoots:  ids("DC", 4000+100*i, state.MaxReplyIDs),
			Summary:      "s",
		}
	}
	for i := range state.MaxDispatchTimes {
		rec.Dispatches = append(rec.Dispatches, base.Add(time.Duration(i)*time.Second+time.Duration(i)))
	}
	rec.Applied = make([]string, state.MaxApplied)
	for i := range rec.Applied {
		rec.Applied[i] = fmt.Sprintf("c-%016d", 100+i)
	}
	return rec
}

// ofSize returns atBounds(n) padded to exactly size encoded bytes.
func ofSize(t *testing.T, n, size int) *state.Record {
	t.Helper()
	rec := atBounds(n)
	raw, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode(record at every bound) = %v, want nil", err)
	}
	if len(raw) > size {
		t.Fatalf("a record at every count bound encodes to %d bytes, more than the store's MaxRecordBytes %d", len(raw), size)
	}
	// One ASCII letter is one encoded byte.
	rec.OpenRFCs[fmt.Sprintf("c-%016d", 1)].Summary += strings.Repeat("x", size-len(raw))
	if raw, err := state.Encode(rec); err != nil || len(raw) != size {
		t.Fatalf("padded record encodes to %d bytes, %v, want exactly %d", len(raw), err, size)
	}
	return rec
}

func testMaximal(t *testing.T, h Harness) {
	s := h.New(t)
	rec := ofSize(t, 20, h.MaxRecordBytes)
	saveNew(t, s, rec)
	wantStored(t, s, rec)
	// And it can be read, changed and written back at the limit.
	got := mustLoad(t, s, 20)
	got.Applied[0] = "c-9999999999999999"
	if err := s.Save(t.Context(), got); err != nil {
		t.Fatalf("Save(changed record of MaxRecordBytes) = %v, want nil", err)
	}
	wantStored(t, s, got)
}

func testOverBounds(t *testing.T, h Harness) {
	small := func(n int) *state.Record {
		rec := state.New(n)
		rec.UpdatedAt = base
		return rec
	}
	rfc := func() *state.RFC {
		return &state.RFC{Trigger: MustTrigger(`{"kind":"missing_input","replies":1}`), OpenedAt: base}
	}
	tests := []struct {
		name string
		rec  func(t *testing.T, n int) *state.Record
	}{
		{"one_byte_over_max_record_bytes", func(t *testing.T, n int) *state.Record {
			rec := ofSize(t, n, h.MaxRecordBytes)
			rec.OpenRFCs[fmt.Sprintf("c-%016d", 1)].Summary += "x"
			return rec
		}},
		{"one_byte_over_max_encoded", func(t *testing.T, n int) *state.Record {
			rec := ofSize(t, n, min(h.MaxRecordBytes, state.MaxEncoded))
			rec.OpenRFCs[fmt.Sprintf("c-%016d", 1)].Summary += strings.Repeat("x", state.MaxEncoded+1-min(h.MaxRecordBytes, state.MaxEncoded))
			return rec
		}},
		{"open_rfcs", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			rec.OpenRFCs = make(map[string]*state.RFC)
			for i := range state.MaxOpenRFCs + 1 {
				rec.OpenRFCs["c-"+strconv.Itoa(i)] = rfc()
			}
			return rec
		}},
		{"applied", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			for i := range state.MaxApplied + 1 {
				rec.Applied = append(rec.Applied, "c-"+strconv.Itoa(i))
			}
			return rec
		}},
		{"dispatches", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			for i := range state.MaxDispatchTimes + 1 {
				rec.Dispatches = append(rec.Dispatches, base.Add(time.Duration(i)*time.Second))
			}
			return rec
		}},
		{"cursor_ids", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			rec.Seen = state.Cursor{At: base, IDs: ids("DC", 0, state.MaxCursorIDs+1)}
			return rec
		}},
		{"reply_ids", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			o := rfc()
			o.ReplyIDs = ids("DC", 0, state.MaxReplyIDs+1)
			rec.OpenRFCs = map[string]*state.RFC{"c-1": o}
			return rec
		}},
		{"trigger_bytes", func(t *testing.T, n int) *state.Record {
			rec := small(n)
			o := rfc()
			o.Trigger = TriggerOf(state.MaxTriggerBytes + 1)
			rec.OpenRFCs = map[string]*state.RFC{"c-1": o}
			return rec
		}},
	}
	s := h.New(t)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := 30 + i
			rec := tc.rec(t, n)
			if err := s.Save(t.Context(), rec); !errors.Is(err, state.ErrTooLarge) {
				t.Errorf("Save(record over the bound) = %v, want ErrTooLarge", err)
			}
			if rec.Rev != "" {
				t.Errorf("refused Save set Rev to %q, want it left empty", rec.Rev)
			}
			if got, err := s.Load(t.Context(), n); !errors.Is(err, state.ErrNotFound) {
				t.Errorf("Load(%d) after refused Save = %v, %v, want ErrNotFound (nothing stored)", n, got, err)
			}
		})
	}
}

func testTooLargeKeepsPrevious(t *testing.T, h Harness) {
	s := h.New(t)
	saveNew(t, s, rich(40))
	before := mustLoad(t, s, 40)
	big := mustLoad(t, s, 40)
	big.OpenRFCs["c-1"].Summary = strings.Repeat("y", h.MaxRecordBytes)
	if err := s.Save(t.Context(), big); !errors.Is(err, state.ErrTooLarge) {
		t.Fatalf("Save(grown over MaxRecordBytes) = %v, want ErrTooLarge", err)
	}
	got := mustLoad(t, s, 40)
	if diff := cmp.Diff(before, got, recordOpts); diff != "" {
		t.Errorf("Load(40) after refused Save mismatch (-want +got):\n%s", diff)
	}
	if got.Rev != before.Rev {
		t.Errorf("Load(40).Rev after refused Save = %q, want %q", got.Rev, before.Rev)
	}
}

// pendingCase is a record of one of the kinds Pending must tell apart, with
// the NextDue it must be listed with (nil: not listed at all).
type pendingCase struct {
	rec  *state.Record
	want *time.Time
}

func pendingCases() []pendingCase {
	withRFC := func(n int, due *time.Time) *state.Record {
		rec := state.New(n)
		rec.UpdatedAt = base
		rec.Checked = base.Add(-time.Duration(n) * time.Minute)
		rec.OpenRFCs = map[string]*state.RFC{"c-" + strconv.Itoa(n): {
			Trigger: MustTrigger(`{"kind":"elapsed","elapsed":"PT1H"}`), OpenedAt: base, DueAt: due,
		}}
		return rec
	}
	plain := func(n int) *state.Record {
		rec := state.New(n)
		rec.UpdatedAt = base
		rec.Applied = []string{"c-done"}
		rec.Dispatches = []time.Time{base}
		return rec
	}
	dispatching := withRFC(53, nil)
	dispatching.OpenRFCs = nil
	dispatching.Active = &state.Run{CorrelationID: "c-53", State: state.RunDispatching, IntentAt: base.Add(30 * time.Minute)}
	escalated := plain(58)
	escalated.Active = &state.Run{CorrelationID: "c-58", State: state.RunEscalated, IntentAt: base}
	blocked := plain(61)
	blocked.Active = &state.Run{CorrelationID: "c-61", State: state.RunEscalated, IntentAt: base}
	blocked.Escalated = &state.Escalation{At: base, Reason: "no such agent workflow", Setup: "agent.yml@HEAD blob absent"}
	queued := plain(56)
	queued.Queued = &state.Queued{Until: base.Add(-time.Hour), Reason: "rate limit"}
	closed := plain(59)
	closed.Closed = "discussion locked"
	twoRFCs := withRFC(60, ptr(base.Add(3*time.Hour)))
	twoRFCs.OpenRFCs["c-60b"] = &state.RFC{Trigger: MustTrigger(`{"kind":"elapsed","elapsed":"PT90M"}`), OpenedAt: base, DueAt: ptr(base.Add(90 * time.Minute))}
	return []pendingCase{
		{withRFC(51, ptr(base.Add(2*time.Hour))), ptr(base.Add(2 * time.Hour))},
		{withRFC(52, ptr(base.Add(time.Hour))), ptr(base.Add(time.Hour))},
		{dispatching, ptr(base.Add(30 * time.Minute))},
		{withRFC(54, nil), &time.Time{}},
		{plain(55), nil},
		{queued, ptr(base.Add(-time.Hour))},
		{withRFC(57, ptr(base.Add(time.Hour))), ptr(base.Add(time.Hour))},
		{escalated, &time.Time{}},
		{blocked, &time.Time{}},
		{closed, nil},
		{twoRFCs, ptr(base.Add(90 * time.Minute))},
		{withRFC(50, nil), &time.Time{}},
	}
}

// checkPending checks a Pending listing against the records stored: the
// pending ones listed once each, sorted soonest due first (nothing due
// last, ties by number), and NextDue, Checked and Blocked right wherever the
// store says it knows them.
func checkPending(t *testing.T, got []state.Summary, stored []*state.Record) {
	t.Helper()
	want := make(map[int]*state.Record)
	for _, rec := range stored {
		if rec.Pending() {
			want[rec.Discussion] = rec
		}
	}
	var gotNums, wantNums []int
	for _, s := range got {
		gotNums = append(gotNums, s.Discussion)
	}
	for n := range want {
		wantNums = append(wantNums, n)
	}
	if diff := cmp.Diff(wantNums, gotNums, cmpopts.SortSlices(func(a, b int) bool { return a < b })); diff != "" {
		t.Errorf("Pending() discussions (-want +got):\n%s", diff)
	}
	for _, s := range got {
		rec := want[s.Discussion]
		if rec == nil || !s.Known {
			continue
		}
		if !s.NextDue.Equal(rec.NextDue()) || !s.Checked.Equal(rec.Checked) || s.Blocked != rec.Blocked() {
			t.Errorf("Pending() lists %d with NextDue %v, Checked %v, Blocked %q, want %v, %v, %q", s.Discussion, s.NextDue, s.Checked, s.Blocked, rec.NextDue(), rec.Checked, rec.Blocked())
		}
	}
	sorted := slices.IsSortedFunc(got, func(a, b state.Summary) int {
		switch {
		case a.NextDue.IsZero() != b.NextDue.IsZero():
			if a.NextDue.IsZero() {
				return 1
			}
			return -1
		case !a.NextDue.Equal(b.NextDue):
			return a.NextDue.Compare(b.NextDue)
		}
		return a.Discussion - b.Discussion
	})
	if !sorted {
		t.Errorf("Pending() = %v, want soonest NextDue first, zero NextDue last, ties by discussion number", got)
	}
}

func testPendingOrder(t *testing.T, h Harness) {
	s := h.New(t)
	if got, err := s.Pending(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("Pending() of an empty store = %v, %v, want none", got, err)
	}
	var stored []*state.Record
	for _, c := range pendingCases() {
		if got := c.rec.Pending(); got != (c.want != nil) {
			t.Fatalf("test data: record %d Pending() = %v, want %v", c.rec.Discussion, got, c.want != nil)
		}
		if c.want != nil && !c.rec.NextDue().Equal(*c.want) {
			t.Fatalf("test data: record %d NextDue() = %v, want %v", c.rec.Discussion, c.rec.NextDue(), *c.want)
		}
		saveNew(t, s, c.rec)
		stored = append(stored, c.rec)
	}
	got, err := s.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending() = %v, want nil", err)
	}
	checkPending(t, got, stored)
}

func testPendingFollowsWrites(t *testing.T, h Harness) {
	s := h.New(t)
	cases := pendingCases()
	var stored []*state.Record
	for _, c := range cases {
		saveNew(t, s, c.rec)
		stored = append(stored, c.rec)
	}
	// 51 stops being pending, 55 starts, 52 moves to the front.
	change := map[int]func(r *state.Record){
		51: func(r *state.Record) { r.OpenRFCs = nil },
		55: func(r *state.Record) {
			r.OpenRFCs = map[string]*state.RFC{"c-55": {Trigger: MustTrigger(`{"kind":"elapsed","elapsed":"PT5M"}`), OpenedAt: base, DueAt: ptr(base.Add(5 * time.Minute))}}
		},
		52: func(r *state.Record) { r.OpenRFCs["c-52"].DueAt = ptr(base.Add(-2 * time.Hour)) },
	}
	for i, rec := range stored {
		f := change[rec.Discussion]
		if f == nil {
			continue
		}
		got := mustLoad(t, s, rec.Discussion)
		f(got)
		if err := s.Save(t.Context(), got); err != nil {
			t.Fatalf("Save(%d) = %v, want nil", rec.Discussion, err)
		}
		stored[i] = got
	}
	// A refused write changes nothing.
	stale := rich(56)
	stale.Rev = "stale"
	if err := s.Save(t.Context(), stale); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save(stale 56) = %v, want ErrConflict", err)
	}
	got, err := s.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending() = %v, want nil", err)
	}
	checkPending(t, got, stored)
}

func testLoadReturnsCopies(t *testing.T, h Harness) {
	s := h.New(t)
	saveNew(t, s, rich(70))
	first := mustLoad(t, s, 70)
	first.OpenRFCs["c-1"].ReplyIDs[0] = "changed"
	first.OpenRFCs["c-1"].Trigger.Of[0].Replies = 99
	*first.OpenRFCs["c-1"].DueAt = base
	first.OpenRFCs["c-new"] = &state.RFC{}
	first.Active.Resume.Trigger.Replies = 99
	first.Active.Since.IDs[0] = "changed"
	first.Seen.IDs[0] = "changed"
	first.Dispatches[0] = base
	first.Applied[0] = "changed"
	first.Commands.IDs[0] = "changed"
	first.Queued.Reason = "changed"
	first.Escalated.Reason = "changed"
	wantStored(t, s, rich(70))
}

func testSaveDoesNotAlias(t *testing.T, h Harness) {
	s := h.New(t)
	rec := rich(71)
	saveNew(t, s, rec)
	rec.OpenRFCs["c-1"].ReplyIDs[0] = "changed"
	rec.OpenRFCs["c-1"].Trigger.Of[0].Replies = 99
	rec.Active.Resume.Trigger.Replies = 99
	rec.Seen.IDs[0] = "changed"
	rec.Dispatches[0] = base
	rec.Applied[0] = "changed"
	rec.Status = "changed"
	delete(rec.OpenRFCs, "c-2 \"odd\" -->")
	wantStored(t, s, rich(71))
}

// testWriteBetween: another instance (a separate run) writes between this
// instance's Load and Save; the Save must be refused with ErrConflict, and
// the other write kept.
func testWriteBetween(t *testing.T, h Harness) {
	if h.Another == nil {
		t.Skip("the store lives in one process: no other instance can write")
	}
	ctx := t.Context()
	const n = 8
	s := h.New(t)
	first := state.New(n)
	first.UpdatedAt = base
	saveNew(t, s, first)
	other := h.Another(t, s)

	mine := mustLoad(t, s, n)
	theirs := mustLoad(t, other, n)
	theirs.Applied = append(theirs.Applied, "c-theirs")
	if err := other.Save(ctx, theirs); err != nil {
		t.Fatalf("other instance's Save = %v, want nil", err)
	}
	mine.Applied = append(mine.Applied, "c-mine")
	if err := s.Save(ctx, mine); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save after another instance wrote since the Load = %v, want ErrConflict", err)
	}
	if got := mustLoad(t, s, n).Applied; len(got) != 1 || got[0] != "c-theirs" {
		t.Errorf("Applied after the refused Save = %v, want the other instance's write kept", got)
	}
}
