package wait

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		years int
		month int
		weeks int
		days  int
		clock time.Duration
	}{
		{name: "one_day", in: "P1D", days: 1},
		{name: "hours", in: "PT12H", clock: 12 * time.Hour},
		{name: "day_and_hours", in: "P1DT6H", days: 1, clock: 6 * time.Hour},
		{name: "weeks", in: "P2W", weeks: 2},
		{name: "minutes_over_an_hour", in: "PT90M", clock: 90 * time.Minute},
		{name: "every_component", in: "P1Y2M3W4DT5H6M7S", years: 1, month: 2, weeks: 3, days: 4,
			clock: 5*time.Hour + 6*time.Minute + 7*time.Second},
		{name: "month", in: "P1M", month: 1},
		{name: "minute_in_time_part", in: "PT1M", clock: time.Minute},
		{name: "half_hour", in: "PT0.5H", clock: 30 * time.Minute},
		{name: "fraction_of_seconds", in: "P1DT1.5S", days: 1, clock: 1500 * time.Millisecond},
		{name: "fraction_of_day", in: "P1.5D", days: 1, clock: 12 * time.Hour},
		{name: "comma_separator", in: "P1,25D", days: 1, clock: 6 * time.Hour},
		{name: "fraction_of_week", in: "P1.5W", weeks: 1, clock: 84 * time.Hour},
		{name: "fraction_only_week", in: "P0.5W", clock: 84 * time.Hour},
		{name: "nanosecond", in: "PT0.000000001S", clock: time.Nanosecond},
		{name: "nine_digit_fraction_of_week", in: "P0.123456789W", clock: 74666665987200 * time.Nanosecond},
		{name: "leading_zeros", in: "P007D", days: 7},
		{name: "zero_component_beside_nonzero", in: "P0DT1S", clock: time.Second},
		{name: "largest_years", in: "P10000Y", years: 10000},
		{name: "large_hours", in: "PT2562047H", clock: 2562047 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDuration(tt.in)
			if err != nil {
				t.Fatalf("ParseDuration(%q) error = %v, want nil", tt.in, err)
			}
			want := Duration{Years: tt.years, Months: tt.month, Weeks: tt.weeks, Days: tt.days, Clock: tt.clock, text: tt.in}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Duration{})); diff != "" {
				t.Errorf("ParseDuration(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("ParseDuration(%q).String() = %q, want %q", tt.in, got.String(), tt.in)
			}
		})
	}
}

func TestParseDurationRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{name: "empty", in: "", reason: "empty"},
		{name: "bare_p", in: "P", reason: "no date or time components"},
		{name: "bare_pt", in: "PT", reason: "T must be followed by a time component (H, M or S)"},
		{name: "hours_in_date_part", in: "P1H", reason: "designator H belongs after T (PT1H)"},
		{name: "seconds_in_date_part", in: "P1S", reason: "designator S belongs after T (PT1S)"},
		{name: "days_in_time_part", in: "PT1D", reason: "designator D belongs before T"},
		{name: "no_p", in: "1D", reason: "must start with P"},
		{name: "dangling_t", in: "P1DT", reason: "T must be followed by a time component (H, M or S)"},
		{name: "negative", in: "-P1D", reason: "negative durations are not allowed"},
		{name: "negative_value", in: "P-1D", reason: "negative values are not allowed"},
		{name: "plus_sign", in: "+P1D", reason: "a sign is not allowed"},
		{name: "plus_value", in: "P+1D", reason: "a sign is not allowed"},
		{name: "zero_seconds", in: "PT0S", reason: "a zero duration is not allowed"},
		{name: "zero_days", in: "P0D", reason: "a zero duration is not allowed"},
		{name: "zero_fraction", in: "PT0.0S", reason: "a zero duration is not allowed"},
		{name: "fraction_not_last", in: "P1.5DT2H", reason: "only the smallest unit present may have a fraction"},
		{name: "fraction_not_last_time", in: "PT1.5H30M", reason: "only the smallest unit present may have a fraction"},
		{name: "fraction_of_year", in: "P1.5Y", reason: "a fraction of a year has no fixed length"},
		{name: "fraction_of_month", in: "P0.5M", reason: "a fraction of a month has no fixed length"},
		{name: "out_of_order_date", in: "P1D1W", reason: "date designators out of order (Y, M, W, D)"},
		{name: "out_of_order_time", in: "PT1S1H", reason: "time designators out of order (H, M, S)"},
		{name: "repeated", in: "P1D2D", reason: "designator D is repeated"},
		{name: "repeated_t", in: "PT1HT1M", reason: "T appears twice"},
		{name: "lower_case_designator", in: "P1d", reason: "designators are upper case"},
		{name: "lower_case_p", in: "p1D", reason: "designators are upper case (P, not p)"},
		{name: "no_number", in: "PD", reason: "designator D has no number before it"},
		{name: "no_designator", in: "P12", reason: "number 12 has no designator"},
		{name: "fraction_without_whole", in: "P.5D", reason: "a fraction needs a whole part (0.5, not .5)"},
		{name: "separator_without_fraction", in: "P1.D", reason: "a decimal separator must be followed by digits"},
		{name: "unknown_designator", in: "P1X", reason: `unknown designator "X"`},
		{name: "space", in: "P1D ", reason: `unexpected " " at offset 3`},
		{name: "absurd_years", in: "P99999999999Y", reason: "a number has more than 9 digits"},
		{name: "too_many_years", in: "P10001Y", reason: "years must be at most 10000"},
		{name: "too_many_months", in: "P999999999M", reason: "months must be at most 120000"},
		{name: "too_many_weeks", in: "P999999999W", reason: "weeks must be at most 530000"},
		{name: "too_many_days", in: "P999999999D", reason: "days must be at most 3660000"},
		{name: "clock_overflow", in: "PT2562048H", reason: "the time part is too long (at most about 292 years)"},
		{name: "clock_sum_overflow", in: "PT2562047H999999999M", reason: "the time part is too long (at most about 292 years)"},
		{name: "fraction_too_long", in: "PT0.0000000001S", reason: "a fraction has more than 9 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDuration(tt.in)
			var de *FieldError
			if !errors.As(err, &de) {
				t.Fatalf("ParseDuration(%q) = %v, %v, want a *FieldError", tt.in, got, err)
			}
			want := &FieldError{Field: "duration " + quote(tt.in), Reason: tt.reason}
			if diff := cmp.Diff(want, de); diff != "" {
				t.Errorf("ParseDuration(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDurationAddTo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		start    string
		duration string
		want     string
	}{
		{name: "month_end_clamped", start: "2026-01-31T00:00:00Z", duration: "P1M", want: "2026-02-28T00:00:00Z"},
		{name: "month_end_leap_year", start: "2028-01-31T00:00:00Z", duration: "P1M", want: "2028-02-29T00:00:00Z"},
		{name: "leap_day_plus_year", start: "2028-02-29T10:00:00Z", duration: "P1Y", want: "2029-02-28T10:00:00Z"},
		{name: "leap_day_plus_four_years", start: "2028-02-29T10:00:00Z", duration: "P4Y", want: "2032-02-29T10:00:00Z"},
		{name: "year_and_month_together", start: "2028-02-29T00:00:00Z", duration: "P1Y1M", want: "2029-03-29T00:00:00Z"},
		{name: "month_across_year", start: "2026-12-31T08:00:00Z", duration: "P2M", want: "2027-02-28T08:00:00Z"},
		{name: "thirteen_months", start: "2026-01-15T00:00:00Z", duration: "P13M", want: "2027-02-15T00:00:00Z"},
		{name: "months_then_days", start: "2026-01-31T00:00:00Z", duration: "P1M1D", want: "2026-03-01T00:00:00Z"},
		{name: "weeks", start: "2026-11-21T12:00:00Z", duration: "P2W", want: "2026-12-05T12:00:00Z"},
		{name: "days_and_hours", start: "2026-11-21T12:00:00Z", duration: "P1DT6H", want: "2026-11-22T18:00:00Z"},
		{name: "half_hour", start: "2026-11-21T12:00:00Z", duration: "PT0.5H", want: "2026-11-21T12:30:00Z"},
		{name: "fractional_seconds", start: "2026-11-21T12:00:00Z", duration: "P1DT1.5S", want: "2026-11-22T12:00:01.5Z"},
		{name: "fractional_day", start: "2026-11-21T12:00:00Z", duration: "P1.5D", want: "2026-11-23T00:00:00Z"},
		{name: "minutes_over_an_hour", start: "2026-11-21T12:00:00Z", duration: "PT90M", want: "2026-11-21T13:30:00Z"},
		{name: "other_zone_becomes_utc", start: "2026-01-30T23:00:00-05:00", duration: "P1M", want: "2026-02-28T04:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := mustTime(t, tt.start)
			d := mustDuration(t, tt.duration)
			got := d.AddTo(start)
			if want := mustTime(t, tt.want); !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("ParseDuration(%q).AddTo(%s) = %s, want %s", tt.duration, tt.start, got, want)
			}
		})
	}
}

func TestDurationAddToLargest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		duration string
	}{
		{name: "largest_date_part", duration: "P10000Y120000M530000W3660000D"},
		{name: "largest_clock", duration: "PT2562047H47M16.854775807S"},
		{name: "largest_everything", duration: "P10000Y120000M530000W3660000DT2562047H"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := mustDuration(t, tt.duration)
			for _, start := range []time.Time{
				time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
				time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
			} {
				if got := d.AddTo(start); !got.After(start) || got.Year() > 60000 {
					t.Errorf("ParseDuration(%q).AddTo(%s) = %s, want a moment after it and before year 60000", tt.duration, start, got)
				}
			}
		})
	}
}

func TestDurationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Duration
		want string
	}{
		{name: "zero", in: Duration{}, want: ""},
		{name: "date_part", in: Duration{Years: 1, Months: 2, Weeks: 3, Days: 4}, want: "P1Y2M3W4D"},
		{name: "time_part", in: Duration{Clock: 90*time.Minute + 1500*time.Millisecond}, want: "PT1H30M1.5S"},
		{name: "both", in: Duration{Days: 2, Clock: 12 * time.Hour}, want: "P2DT12H"},
		{name: "nanosecond", in: Duration{Clock: time.Nanosecond}, want: "PT0.000000001S"},
		{name: "as_written", in: mustDuration(t, "PT0,5H"), want: "PT0,5H"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.in.String(); got != tt.want {
				t.Errorf("%#v.String() = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDurationCanonicalParsesBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Duration
	}{
		{name: "date_part", in: Duration{Years: 1, Months: 2, Weeks: 3, Days: 4}},
		{name: "time_part", in: Duration{Clock: 90*time.Minute + 1500*time.Millisecond}},
		{name: "both", in: Duration{Days: 2, Clock: 12*time.Hour + time.Nanosecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.in.String()
			got, err := ParseDuration(s)
			if err != nil {
				t.Fatalf("ParseDuration(%q) error = %v", s, err)
			}
			if !got.Equal(tt.in) {
				t.Errorf("ParseDuration(%q) = %#v, want %#v", s, got, tt.in)
			}
		})
	}
}

func TestDurationText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{name: "valid", in: "P1DT6H"},
		{name: "comma", in: "PT1,5S"},
		{name: "invalid", in: "P1H", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d Duration
			err := d.UnmarshalText([]byte(tt.in))
			var de *FieldError
			if tt.wantErr {
				if !errors.As(err, &de) {
					t.Fatalf("UnmarshalText(%q) error = %v, want a *FieldError", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalText(%q) error = %v", tt.in, err)
			}
			out, err := d.MarshalText()
			if err != nil || string(out) != tt.in {
				t.Errorf("MarshalText() = %q, %v, want %q, nil", out, err, tt.in)
			}
		})
	}
}

func TestDurationErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := ParseDuration("P1\nH")
	want := `duration "P1\nH": unknown designator "\n"`
	if err == nil || err.Error() != want {
		t.Errorf("ParseDuration(%q) error = %v, want %s", "P1\nH", err, want)
	}
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time.Parse(%q): %v", s, err)
	}
	return tm
}

func mustDuration(t testing.TB, s string) Duration {
	t.Helper()
	d, err := ParseDuration(s)
	if err != nil {
		t.Fatalf("ParseDuration(%q): %v", s, err)
	}
	return d
}
