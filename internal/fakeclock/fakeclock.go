// Package fakeclock is the one fake clock of recess's tests, in the shape of
// Kubernetes' FakeClock (k8s.io/utils/clock/testing): Now reads it, Step
// moves it, SetTime sets it, and Sleep moves it instead of waiting, so that
// a test of waits and schedules runs in no real time. It is safe for
// concurrent use. It satisfies resume.Clock.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a clock that moves only when told.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// New returns a clock set to t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since returns the time elapsed since t on this clock.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Step moves the clock by d.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// SetTime sets the clock to t.
func (c *Clock) SetTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Sleep records the wait and steps the clock by d instead of waiting; it
// returns ctx's error, as a sleep cut short by cancellation would.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// Sleeps returns the waits Sleep was asked for, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
