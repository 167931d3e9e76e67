package fakeclock_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/recess-action/recess/internal/fakeclock"
	"github.com/recess-action/recess/resume"
)

var _ resume.Clock = (*fakeclock.Clock)(nil)

func TestClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	c := fakeclock.New(t0)
	c.Step(time.Minute)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("Now() after Step(1m) = %v", got)
	}
	if err := c.Sleep(context.Background(), 5*time.Second); err != nil {
		t.Errorf("Sleep = %v", err)
	}
	if got := c.Since(t0); got != time.Minute+5*time.Second {
		t.Errorf("Since(t0) = %v, want 1m5s", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); err == nil {
		t.Errorf("Sleep on a cancelled context = nil, want its error")
	}
	if got, want := c.Sleeps(), []time.Duration{5 * time.Second, time.Second}; !slices.Equal(got, want) {
		t.Errorf("Sleeps() = %v, want %v", got, want)
	}
	c.SetTime(t0)
	if !c.Now().Equal(t0) {
		t.Errorf("Now() after SetTime(t0) = %v", c.Now())
	}
}
