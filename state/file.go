package state

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Lock timing of the File store.
const (
	// lockStale is the age after which a lock file is taken to be left by a
	// crashed writer and broken. A writer holds the lock only for a read,
	// a compare and a rename.
	lockStale = 30 * time.Second
	// lockPatience bounds the wait for a lock: long enough for a stale lock
	// to age and be broken, short enough that a stuck run ends.
	lockPatience = lockStale + 15*time.Second
)

// File is a store for local runs: one file per discussion, <dir>/<n>.json,
// holding exactly what Encode gives. Rev is the hex SHA-256 of the file.
//
// Writes are atomic (a temporary file in the same directory, renamed over
// the record) and compare-and-swap safe across goroutines and processes:
// the compare and the rename happen under <n>.json.lock, a lock file
// created exclusively. A lock older than 30 s is taken to be a crashed
// writer's and broken. A record that cannot be decoded is copied to
// <n>.json.corrupt (or .corrupt.1, .2, ... when an earlier copy holds other
// bytes) and left in place; Load and Save report it.
type File struct {
	dir string
	now func() time.Time
}

// NewFile returns a store in dir, creating the directory if needed.
func NewFile(dir string, opts ...Option) (*File, error) {
	if dir == "" {
		return nil, errors.New("state: file store: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state: file store: %w", err)
	}
	o := newOptions(opts)
	return &File{dir: dir, now: o.now}, nil
}

// Dir is the directory the store keeps its records in.
func (f *File) Dir() string { return f.dir }

// Path is the file that holds the discussion's record.
func (f *File) Path(discussion int) string {
	return filepath.Join(f.dir, strconv.Itoa(discussion)+".json")
}

// fileRev is the revision of stored bytes.
func fileRev(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// read returns the stored bytes, at most MaxEncoded+1 of them (enough for
// Decode to refuse an oversized file without reading it whole), or nil when
// there is no file.
func (f *File) read(discussion int) ([]byte, error) {
	h, err := os.Open(f.Path(discussion))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: discussion %d: %w", discussion, err)
	}
	defer h.Close()
	raw, err := io.ReadAll(io.LimitReader(h, MaxEncoded+1))
	if err != nil {
		return nil, fmt.Errorf("state: discussion %d: %w", discussion, err)
	}
	return raw, nil
}

// Load returns a fresh copy of the discussion's record.
func (f *File) Load(ctx context.Context, discussion int) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, err := f.read(discussion)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("discussion %d: %w", discussion, ErrNotFound)
	}
	rec, err := decodeFor(discussion, raw)
	if err == nil {
		rec.Rev = fileRev(raw)
		return rec, nil
	}
	// Keep the bytes aside under the lock, so no writer of this discussion
	// is halfway through while they are copied.
	unlock, lerr := f.lock(ctx, discussion)
	if lerr != nil {
		return nil, errors.Join(fmt.Errorf("discussion %d: %s: %w", discussion, f.Path(discussion), err), lerr)
	}
	defer unlock()
	return f.loadLocked(discussion)
}

// loadLocked reads the record again under the lock; a corrupt one is kept
// aside and reported.
func (f *File) loadLocked(discussion int) (*Record, error) {
	raw, err := f.read(discussion)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("discussion %d: %w", discussion, ErrNotFound)
	}
	rec, err := decodeFor(discussion, raw)
	if err != nil {
		return nil, f.corrupt(discussion, err)
	}
	rec.Rev = fileRev(raw)
	return rec, nil
}

// corrupt keeps the discussion's file aside and returns derr (which wraps
// ErrCorrupt) saying where the bytes are. The caller holds the lock.
func (f *File) corrupt(discussion int, derr error) error {
	kept, err := f.keepAside(discussion)
	if err != nil {
		return errors.Join(fmt.Errorf("discussion %d: %s could not be copied aside: %w", discussion, f.Path(discussion), derr), err)
	}
	return fmt.Errorf("discussion %d: %s left in place, bytes kept in %s: %w", discussion, f.Path(discussion), kept, derr)
}

// keepAside copies the record file to the first <n>.json.corrupt[.k] that
// is free, unless one of them already holds the same bytes.
func (f *File) keepAside(discussion int) (string, error) {
	src := f.Path(discussion)
	sum, err := hashFile(src)
	if err != nil {
		return "", err
	}
	for k := 0; k < 1000; k++ {
		name := src + ".corrupt"
		if k > 0 {
			name += "." + strconv.Itoa(k)
		}
		have, err := hashFile(name)
		switch {
		case err == nil && have == sum:
			return name, nil
		case err == nil:
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		if err := copyFile(src, name); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("state: discussion %d: too many corrupt copies beside %s", discussion, src)
}

func hashFile(name string) (string, error) {
	h, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer h.Close()
	s := sha256.New()
	if _, err := io.Copy(s, h); err != nil {
		return "", err
	}
	return hex.EncodeToString(s.Sum(nil)), nil
}

// copyFile copies src to a new file dst; it fails with fs.ErrExist when dst
// exists, so an earlier copy is never overwritten.
func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Sync()
}

// Save writes rec if rec.Rev is still the stored revision (an empty Rev:
// only if no file exists) and sets rec.Rev, and rec.UpdatedAt when it was
// zero. It refuses to replace a corrupt file (ErrCorrupt).
func (f *File) Save(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	raw, stamp, _, err := prepare(rec, f.now)
	if err != nil {
		return err
	}
	unlock, err := f.lock(ctx, rec.Discussion)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := f.read(rec.Discussion)
	if err != nil {
		return err
	}
	if cur != nil {
		if _, derr := decodeFor(rec.Discussion, cur); derr != nil {
			return f.corrupt(rec.Discussion, derr)
		}
	}
	stored := ""
	if cur != nil {
		stored = fileRev(cur)
	}
	if err := compareRev(rec, cur != nil, stored); err != nil {
		return err
	}
	if err := f.write(rec.Discussion, raw); err != nil {
		return err
	}
	rec.Rev = fileRev(raw)
	rec.UpdatedAt = stamp
	return nil
}

// write replaces the record file atomically.
func (f *File) write(discussion int, raw []byte) (err error) {
	tmp, err := os.CreateTemp(f.dir, "."+strconv.Itoa(discussion)+".json.tmp-*")
	if err != nil {
		return fmt.Errorf("state: discussion %d: %w", discussion, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
			err = fmt.Errorf("state: discussion %d: %w", discussion, err)
		}
	}()
	if _, err := tmp.Write(raw); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.Path(discussion)); err != nil {
		return err
	}
	// Make the rename itself durable where directories can be synced; where
	// they cannot (Windows), the rename is already as durable as it gets.
	if d, err := os.Open(f.dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// lock takes the discussion's lock file, waiting while another writer holds
// it, and returns the function that releases it.
func (f *File) lock(ctx context.Context, discussion int) (func(), error) {
	path := f.Path(discussion) + ".lock"
	token := []byte(rand.Text() + " pid " + strconv.Itoa(os.Getpid()) + "\n")
	// Lock ages are file modification times, set by the operating system's
	// wall clock; the store's clock (which may be pinned) cannot judge them.
	deadline := time.Now().Add(lockPatience)
	wait := time.Millisecond
	for {
		h, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := h.Write(token)
			if cerr := h.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				_ = os.Remove(path)
				return nil, fmt.Errorf("state: discussion %d: lock: %w", discussion, werr)
			}
			return func() { release(path, token) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("state: discussion %d: lock: %w", discussion, err)
		}
		if breakStale(path) {
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("state: discussion %d: lock %s held for more than %s", discussion, path, lockPatience)
		}
		t := time.NewTimer(wait + mrand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("state: discussion %d: waiting for lock %s: %w", discussion, path, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// release removes the lock file if it is still ours (a writer stalled past
// lockStale may have lost it to another).
func release(path string, token []byte) {
	if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, token) {
		_ = os.Remove(path)
	}
}

// breakStale removes the lock file at path if it is older than lockStale
// (or dated implausibly far in the future) and reports whether it did.
// It moves the lock away under a unique name first and checks that what it
// moved is the stale lock it saw, so two processes breaking the same stale
// lock at once do not also break the fresh lock one of them takes next.
func breakStale(path string) bool {
	info, err := os.Stat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) // gone already: retry at once
	}
	age := time.Since(info.ModTime())
	if age < lockStale && age > -lockStale {
		return false
	}
	seen, err := os.ReadFile(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	moved := path + ".stale-" + rand.Text()
	if err := os.Rename(path, moved); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	got, err := os.ReadFile(moved)
	if err == nil && !bytes.Equal(got, seen) {
		// We moved a lock taken after the stale one was broken by someone
		// else: put it back unless yet another writer holds the lock now.
		_ = os.Link(moved, path)
	}
	_ = os.Remove(moved)
	return true
}

// Pending lists the records that need watching, soonest due first, by
// reading every record file in the directory. A file that cannot be decoded
// is listed too, as not Known, so the sweep visits it and reports it.
func (f *File) Pending(ctx context.Context) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, fmt.Errorf("state: file store: %w", err)
	}
	var out []Summary
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, ok := recordNumber(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		raw, err := f.read(n)
		if err != nil {
			return nil, err
		}
		if raw == nil {
			continue
		}
		rec, err := decodeFor(n, raw)
		switch {
		case err != nil:
			out = append(out, Summary{Discussion: n})
		case rec.Pending():
			out = append(out, summarize(rec).listing(n))
		}
	}
	SortSummaries(out)
	return out, nil
}

// recordNumber reads the discussion number from a record file's name,
// accepting only the spelling Path gives.
func recordNumber(name string) (int, bool) {
	num, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}
