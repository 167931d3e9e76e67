package state_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recess-action/recess/resume/wait"
	"github.com/recess-action/recess/state"
	"github.com/recess-action/recess/state/storetest"
)

// Environment of the writer processes TestFileAcrossProcesses starts: the
// test binary itself, told by these variables to write instead of test.
const (
	writerDirEnv   = "RECESS_STATE_TEST_WRITER_DIR"
	writerIDEnv    = "RECESS_STATE_TEST_WRITER_ID"
	writerCountEnv = "RECESS_STATE_TEST_WRITER_COUNT"
)

// Both stores meet the contract the suite checks (the engine's Store port
// has the same method set).
var (
	_ storetest.Store = (*state.Memory)(nil)
	_ storetest.Store = (*state.File)(nil)
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(writerDirEnv); dir != "" {
		id, _ := strconv.Atoi(os.Getenv(writerIDEnv))
		count, _ := strconv.Atoi(os.Getenv(writerCountEnv))
		if err := writer(dir, id, count); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var epoch = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func moment(writer, i int) time.Time {
	return epoch.Add(time.Duration(writer*1000+i) * time.Second)
}

// addMoment appends one moment to the record's Dispatches by
// read-modify-write, retrying on conflict.
func addMoment(ctx context.Context, s *state.File, n int, at time.Time) error {
	for range 10000 {
		rec, err := s.Load(ctx, n)
		if err != nil {
			return err
		}
		rec.Dispatches = append(rec.Dispatches, at)
		rec.UpdatedAt = at
		if err = s.Save(ctx, rec); !errors.Is(err, state.ErrConflict) {
			return err
		}
	}
	return errors.New("conflicting forever")
}

func writer(dir string, id, count int) error {
	s, err := state.NewFile(dir)
	if err != nil {
		return err
	}
	for i := range count {
		if err := addMoment(context.Background(), s, 1, moment(id, i)); err != nil {
			return fmt.Errorf("writer %d, moment %d: %w", id, i, err)
		}
	}
	return nil
}

func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storetest.Store { return state.NewMemory() },
		Corrupt: func(t *testing.T, s storetest.Store, discussion int) {
			s.(*state.Memory).Put(discussion, []byte(`{"schema":1,"discussion":`))
		},
	})
}

func newFile(t *testing.T) *state.File {
	t.Helper()
	s, err := state.NewFile(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatalf("NewFile() = %v, want nil", err)
	}
	return s
}

func TestFileConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storetest.Store { return newFile(t) },
		// Another process: its own File over the same directory.
		Another: func(t *testing.T, s storetest.Store) storetest.Store {
			o, err := state.NewFile(s.(*state.File).Dir())
			if err != nil {
				t.Fatal(err)
			}
			return o
		},
		Corrupt: func(t *testing.T, s storetest.Store, discussion int) {
			if err := os.WriteFile(s.(*state.File).Path(discussion), []byte("{\"schema\":1,\x00"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	})
}

// pendingRecord is a record that Pending lists, due at due.
func pendingRecord(n int, due time.Time) *state.Record {
	rec := state.New(n)
	rec.UpdatedAt = epoch
	rec.Checked = epoch.Add(-time.Minute)
	rec.OpenRFCs = map[string]*state.RFC{"c-1": {Trigger: wait.MustParseTrigger(`{"kind":"elapsed","elapsed":"PT1H"}`), OpenedAt: epoch, DueAt: &due}}
	return rec
}

func TestStoresKnowWhatIsDue(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		new  func(t *testing.T) storetest.Store
	}{
		{"memory", func(t *testing.T) storetest.Store { return state.NewMemory() }},
		{"file", func(t *testing.T) storetest.Store { return newFile(t) }},
	}
	for _, tc := range stores {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.new(t)
			for i, n := range []int{3, 1, 2} {
				if err := s.Save(t.Context(), pendingRecord(n, epoch.Add(time.Duration(i)*time.Hour))); err != nil {
					t.Fatalf("Save(%d) = %v, want nil", n, err)
				}
			}
			got, err := s.Pending(t.Context())
			if err != nil {
				t.Fatalf("Pending() = %v, want nil", err)
			}
			want := []state.Summary{
				{Discussion: 3, NextDue: epoch, Known: true, Checked: epoch.Add(-time.Minute)},
				{Discussion: 1, NextDue: epoch.Add(time.Hour), Known: true, Checked: epoch.Add(-time.Minute)},
				{Discussion: 2, NextDue: epoch.Add(2 * time.Hour), Known: true, Checked: epoch.Add(-time.Minute)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoresListCorruptRecordsAsUnknown(t *testing.T) {
	t.Parallel()
	mem := state.NewMemory()
	mem.Put(4, []byte("not json"))
	file := newFile(t)
	if err := os.WriteFile(file.Path(4), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    storetest.Store
	}{{"memory", mem}, {"file", file}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.s.Save(t.Context(), pendingRecord(5, epoch)); err != nil {
				t.Fatalf("Save(5) = %v, want nil", err)
			}
			got, err := tc.s.Pending(t.Context())
			if err != nil {
				t.Fatalf("Pending() = %v, want nil", err)
			}
			want := []state.Summary{
				{Discussion: 5, NextDue: epoch, Known: true, Checked: epoch.Add(-time.Minute)},
				{Discussion: 4},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryPutRaw(t *testing.T) {
	t.Parallel()
	m := state.NewMemory()
	if _, ok := m.Raw(1); ok {
		t.Errorf("Raw(1) of an empty store: ok = true, want false")
	}
	rec := pendingRecord(1, epoch)
	if err := m.Save(t.Context(), rec); err != nil {
		t.Fatalf("Save(1) = %v, want nil", err)
	}
	raw, ok := m.Raw(1)
	want, err := state.Encode(rec)
	if err != nil {
		t.Fatalf("Encode(1) = %v", err)
	}
	if !ok || string(raw) != string(want) {
		t.Errorf("Raw(1) = %q, %v, want what Encode gives, %q", raw, ok, want)
	}
	raw[0] = 'X' // a copy: the store must not change
	// A record planted with Put under another number is corrupt there.
	good, _ := m.Raw(1)
	m.Put(2, good)
	if _, err := m.Load(t.Context(), 2); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Load(2) of discussion 1's record = %v, want ErrCorrupt", err)
	}
	m.Put(3, []byte(`{"schema":2}`))
	_, err = m.Load(t.Context(), 3)
	var re *wait.FieldError
	if !errors.As(err, &re) || re.Field != "schema" {
		t.Errorf("Load(3) of a schema 2 record = %v, want a *wait.FieldError on schema", err)
	}
	if got, err := m.Load(t.Context(), 1); err != nil || !got.UpdatedAt.Equal(rec.UpdatedAt) {
		t.Errorf("Load(1) = %v, %v, want the record unchanged by Raw's caller", got, err)
	}
}

func TestStoresHonourContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		s    storetest.Store
	}{{"memory", state.NewMemory()}, {"file", newFile(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.s.Save(ctx, pendingRecord(1, epoch)); !errors.Is(err, context.Canceled) {
				t.Errorf("Save(cancelled) = %v, want context.Canceled", err)
			}
			if _, err := tc.s.Load(ctx, 1); !errors.Is(err, context.Canceled) {
				t.Errorf("Load(cancelled) = %v, want context.Canceled", err)
			}
			if _, err := tc.s.Pending(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Pending(cancelled) = %v, want context.Canceled", err)
			}
			if _, err := tc.s.Load(t.Context(), 1); !errors.Is(err, state.ErrNotFound) {
				t.Errorf("Load(1) after cancelled Save = %v, want ErrNotFound", err)
			}
		})
	}
}

func TestStoresStampWithTheirClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	clock := state.WithClock(func() time.Time { return at })
	file, err := state.NewFile(t.TempDir(), clock)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    storetest.Store
	}{{"memory", state.NewMemory(clock)}, {"file", file}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := state.New(9)
			if err := tc.s.Save(t.Context(), rec); err != nil {
				t.Fatalf("Save(9) = %v, want nil", err)
			}
			if !rec.UpdatedAt.Equal(at) {
				t.Errorf("Save(9) stamped UpdatedAt %v, want the store clock's %v", rec.UpdatedAt, at)
			}
		})
	}
}

func TestNewFileRefusesEmptyDir(t *testing.T) {
	t.Parallel()
	if s, err := state.NewFile(""); err == nil {
		t.Errorf("NewFile(%q) = %v, nil, want an error", "", s)
	}
}

func TestFileKeepsCorruptCopies(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newFile(t)
	path := s.Path(8)
	plant := func(b string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("ReadFile(%q) = %v", name, err)
		}
		return string(b)
	}
	steps := []struct {
		name    string
		planted string
		op      func() error
		kept    string // where the bytes must be kept
	}{
		{"load_keeps_first_copy", "first bad", func() error { _, err := s.Load(ctx, 8); return err }, path + ".corrupt"},
		{"same_bytes_reuse_copy", "", func() error { _, err := s.Load(ctx, 8); return err }, path + ".corrupt"},
		{"save_keeps_other_bytes", "second bad", func() error { return s.Save(ctx, state.New(8)) }, path + ".corrupt.1"},
		{"third_copy", `{"schema":1,"discussion":9}`, func() error { _, err := s.Load(ctx, 8); return err }, path + ".corrupt.2"},
	}
	for _, st := range steps {
		if st.planted != "" {
			plant(st.planted)
		}
		planted := read(path)
		err := st.op()
		if !errors.Is(err, state.ErrCorrupt) {
			t.Fatalf("%s: error = %v, want ErrCorrupt", st.name, err)
		}
		if got := read(st.kept); got != planted {
			t.Errorf("%s: %s holds %q, want %q", st.name, st.kept, got, planted)
		}
		if got := read(path); got != planted {
			t.Errorf("%s: record file holds %q, want the corrupt bytes left in place, %q", st.name, got, planted)
		}
		if msg := err.Error(); !strings.Contains(msg, st.kept) {
			t.Errorf("%s: error %q does not say the bytes are kept in %s", st.name, msg, st.kept)
		}
	}
	// The earlier copies were never overwritten.
	for name, want := range map[string]string{path + ".corrupt": "first bad", path + ".corrupt.1": "second bad"} {
		if got := read(name); got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(path + ".corrupt.3"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(.corrupt.3) = %v, want no fourth copy", err)
	}
}

func TestFileRefusesOversizedFile(t *testing.T) {
	t.Parallel()
	s := newFile(t)
	big := make([]byte, state.MaxEncoded+10)
	for i := range big {
		big[i] = ' '
	}
	if err := os.WriteFile(s.Path(3), big, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load(t.Context(), 3)
	if !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("Load(oversized file) = %v, want ErrCorrupt", err)
	}
	kept, err := os.ReadFile(s.Path(3) + ".corrupt")
	if err != nil || len(kept) != len(big) {
		t.Errorf("corrupt copy of the oversized file: %d bytes, %v, want all %d", len(kept), err, len(big))
	}
}

func TestFilePendingIgnoresOtherFiles(t *testing.T) {
	t.Parallel()
	s := newFile(t)
	if err := s.Save(t.Context(), pendingRecord(7, epoch)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(s.Path(7))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(s.Path(7))
	for _, name := range []string{"07.json", "+7.json", "0.json", "-7.json", "7.json.corrupt", "7.json.lock", ".7.json.tmp-1", "x.json", "7.JSON"} {
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "8.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The lock file planted above is fresh: release it so Save is not held.
	if err := os.Remove(s.Path(7) + ".lock"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pending(t.Context())
	if err != nil {
		t.Fatalf("Pending() = %v, want nil", err)
	}
	want := []state.Summary{{Discussion: 7, NextDue: epoch, Known: true, Checked: epoch.Add(-time.Minute)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
	}
}

func TestFileBreaksStaleLock(t *testing.T) {
	t.Parallel()
	s := newFile(t)
	lock := s.Path(1) + ".lock"
	if err := os.WriteFile(lock, []byte("crashed writer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Save(ctx, state.New(1)); err != nil {
		t.Fatalf("Save() behind a stale lock = %v, want nil", err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(lock) after Save = %v, want the lock released", err)
	}
	leftovers, err := filepath.Glob(lock + "*")
	if err != nil || len(leftovers) != 0 {
		t.Errorf("lock files left behind: %v, %v", leftovers, err)
	}
}

func TestFileWaitsForFreshLock(t *testing.T) {
	t.Parallel()
	s := newFile(t)
	lock := s.Path(1) + ".lock"
	if err := os.WriteFile(lock, []byte("live writer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := s.Save(ctx, state.New(1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Save() behind a live lock = %v, want context.DeadlineExceeded", err)
	}
	if _, err := s.Load(t.Context(), 1); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Load(1) = %v, want ErrNotFound", err)
	}
	if b, err := os.ReadFile(lock); err != nil || string(b) != "live writer\n" {
		t.Errorf("lock file = %q, %v, want the live writer's lock untouched", b, err)
	}
	// Once the writer lets go, a save goes through.
	done := make(chan error, 1)
	go func() { done <- s.Save(t.Context(), state.New(1)) }()
	time.Sleep(20 * time.Millisecond)
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("Save() after the lock was released = %v, want nil", err)
	}
}

func TestFileAcrossProcesses(t *testing.T) {
	t.Parallel()
	const processes, goroutines, each = 3, 2, 8
	dir := t.TempDir()
	s, err := state.NewFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(t.Context(), state.New(1)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, processes+goroutines)
	for p := range processes {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerDirEnv+"="+dir, writerIDEnv+"="+strconv.Itoa(p), writerCountEnv+"="+strconv.Itoa(each))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer process %d: %w: %s", p, err, out)
			}
		})
	}
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if err := addMoment(t.Context(), s, 1, moment(processes+g, i)); err != nil {
					errs <- fmt.Errorf("writer goroutine %d: %w", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rec, err := s.Load(t.Context(), 1)
	if err != nil {
		t.Fatalf("Load(1) = %v", err)
	}
	var want []time.Time
	for w := range processes + goroutines {
		for i := range each {
			want = append(want, moment(w, i))
		}
	}
	got := slices.Clone(rec.Dispatches)
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b time.Time) bool { return a.Before(b) })); diff != "" {
		t.Errorf("Dispatches after writers in %d processes (-want +got):\n%s", processes, diff)
	}
}
