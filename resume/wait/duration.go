package wait

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is an ISO-8601 duration as SPEC.md defines it. Years and months
// are calendar arithmetic in UTC, then weeks and days, then the time part.
//
// Parse one with ParseDuration; it remembers the text as written so a
// trigger document round trips unchanged.
type Duration struct {
	Years, Months, Weeks, Days int
	// Clock is the time part plus any fraction of the smallest date unit
	// (P1.5D: Days 1, Clock 12h).
	Clock time.Duration
	text  string
}

// FieldError is refused outside input, the one error recess gives for it
// wherever the input comes from: a trigger or a verdict, a record a store
// hands back, an event payload, a config file, a flag. Field names what was
// refused, as a path into the document ("trigger.of[1].elapsed",
// `open_rfcs["c-1"].opened_at`), a file or an input name; Reason says what
// is wrong with it, in lowercase words for people.
//
// A sentinel the caller branches on (state.ErrCorrupt, resume.ErrRefused)
// wraps the FieldError (fmt.Errorf("%w: %w", sentinel, fe)), so errors.Is
// finds the sentinel and errors.As the field.
type FieldError struct {
	Field  string
	Reason string
	Err    error // underlying error (a refused duration, a JSON error), may be nil
}

// Error reads "field: reason", the form annotations and the CLI print.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Unwrap exposes the underlying error.
func (e *FieldError) Unwrap() error { return e.Err }

// quote renders s as a JSON string, so hostile input cannot put a newline or
// a control character into an error message (and from there into a workflow
// annotation). HTML characters stay as written: the text is for people, and
// whatever renders it as Markdown escapes it there.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Bounds on the components of a duration. They keep every arithmetic step
// far from overflow for any start in years 1970..9999: the date part spans
// at most about 40,000 years, which time.Date handles, and the clock part
// must fit a time.Duration (about 292 years).
const (
	maxDurationDigits = 9
	maxYears          = 10000
	maxMonths         = 12 * maxYears
	maxWeeks          = 53 * maxYears
	maxDays           = 366 * maxYears
)

// Component ranks in the order ISO 8601 requires: date part, then time part.
const (
	rankYear = iota
	rankMonth
	rankWeek
	rankDay
	rankHour
	rankMinute
	rankSecond
	rankCount
)

// unitNanos is the exact length of a unit whose fraction goes to Clock; zero
// for years and months, whose length depends on the calendar. Every value is
// a multiple of 10^9, so a fraction of at most 9 digits converts exactly.
var unitNanos = [rankCount]int64{
	rankWeek:   int64(7 * 24 * time.Hour),
	rankDay:    int64(24 * time.Hour),
	rankHour:   int64(time.Hour),
	rankMinute: int64(time.Minute),
	rankSecond: int64(time.Second),
}

// ParseDuration parses an ISO-8601 duration (P[nY][nM][nW][nD][T[nH][nM][nS]]).
// Only the last component may carry a fraction, written with "." or ",";
// a fraction of a week or day becomes exact hours in Clock, a fraction of a
// year or month is refused. Errors are *FieldError naming the duration as
// written (quoted, so it stays on one line): `duration "P1H": ...`.
func ParseDuration(s string) (Duration, error) {
	fail := func(reason string) (Duration, error) {
		return Duration{}, &FieldError{Field: "duration " + quote(s), Reason: reason}
	}
	if s == "" {
		return fail("empty")
	}
	switch s[0] {
	case '-':
		return fail("negative durations are not allowed")
	case '+':
		return fail("a sign is not allowed")
	case 'P':
	case 'p':
		return fail("designators are upper case (P, not p)")
	default:
		return fail("must start with P")
	}

	var (
		whole      [rankCount]int64
		fracNum    [rankCount]int64
		fracDigits [rankCount]int
		seen       bool
		inTime     bool
		last       = -1
		fraction   = -1 // rank of the component carrying a fraction
	)
	for i := 1; i < len(s); {
		c := s[i]
		if c == 'T' {
			if inTime {
				return fail("T appears twice")
			}
			inTime = true
			i++
			if i == len(s) {
				return fail("T must be followed by a time component (H, M or S)")
			}
			continue
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			switch {
			case c == '-':
				return fail("negative values are not allowed")
			case c == '+':
				return fail("a sign is not allowed")
			case c == '.' || c == ',':
				return fail("a fraction needs a whole part (0.5, not .5)")
			case isDesignator(c):
				return fail("designator " + string(c) + " has no number before it")
			case isDesignator(c - 'a' + 'A'):
				return fail("designators are upper case")
			default:
				return fail("unexpected " + quote(string(rune(c))) + " at offset " + strconv.Itoa(i))
			}
		}
		if i-start > maxDurationDigits {
			return fail("a number has more than 9 digits")
		}
		n, _ := strconv.ParseInt(s[start:i], 10, 64) // at most 9 digits: cannot fail
		var fn int64
		fd := 0
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			fstart := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			fd = i - fstart
			if fd == 0 {
				return fail("a decimal separator must be followed by digits")
			}
			if fd > maxDurationDigits {
				return fail("a fraction has more than 9 digits")
			}
			fn, _ = strconv.ParseInt(s[fstart:i], 10, 64)
		}
		if i == len(s) {
			return fail("number " + s[start:i] + " has no designator")
		}
		d := s[i]
		i++
		rank, reason := designatorRank(d, inTime)
		if reason != "" {
			return fail(reason)
		}
		if rank == last {
			return fail("designator " + string(d) + " is repeated")
		}
		if rank < last {
			if inTime {
				return fail("time designators out of order (H, M, S)")
			}
			return fail("date designators out of order (Y, M, W, D)")
		}
		if fraction >= 0 {
			return fail("only the smallest unit present may have a fraction")
		}
		if fd > 0 {
			switch rank {
			case rankYear:
				return fail("a fraction of a year has no fixed length")
			case rankMonth:
				return fail("a fraction of a month has no fixed length")
			}
			fraction = rank
		}
		whole[rank], fracNum[rank], fracDigits[rank] = n, fn, fd
		last = rank
		seen = true
	}
	if !seen {
		return fail("no date or time components")
	}

	out := Duration{text: s}
	switch {
	case whole[rankYear] > maxYears:
		return fail("years must be at most " + strconv.Itoa(maxYears))
	case whole[rankMonth] > maxMonths:
		return fail("months must be at most " + strconv.Itoa(maxMonths))
	case whole[rankWeek] > maxWeeks:
		return fail("weeks must be at most " + strconv.Itoa(maxWeeks))
	case whole[rankDay] > maxDays:
		return fail("days must be at most " + strconv.Itoa(maxDays))
	}
	out.Years, out.Months = int(whole[rankYear]), int(whole[rankMonth])
	out.Weeks, out.Days = int(whole[rankWeek]), int(whole[rankDay])

	var clock int64
	ok := true
	for r := rankHour; r <= rankSecond; r++ {
		clock, ok = addMul(clock, whole[r], unitNanos[r], ok)
	}
	if fraction >= 0 {
		// unit/10^k is exact (every unit is a multiple of 10^9) and the
		// product stays below the unit because the numerator is below 10^k.
		clock, ok = addMul(clock, fracNum[fraction], unitNanos[fraction]/pow10(fracDigits[fraction]), ok)
	}
	if !ok {
		return fail("the time part is too long (at most about 292 years)")
	}
	out.Clock = time.Duration(clock)
	if out.Years == 0 && out.Months == 0 && out.Weeks == 0 && out.Days == 0 && out.Clock == 0 {
		return fail("a zero duration is not allowed")
	}
	return out, nil
}

// designatorRank maps a designator to its rank in the part it appears in.
func designatorRank(d byte, inTime bool) (int, string) {
	if inTime {
		switch d {
		case 'H':
			return rankHour, ""
		case 'M':
			return rankMinute, ""
		case 'S':
			return rankSecond, ""
		case 'Y', 'W', 'D':
			return 0, "designator " + string(d) + " belongs before T"
		}
	} else {
		switch d {
		case 'Y':
			return rankYear, ""
		case 'M':
			return rankMonth, ""
		case 'W':
			return rankWeek, ""
		case 'D':
			return rankDay, ""
		case 'H', 'S':
			return 0, "designator " + string(d) + " belongs after T (PT1" + string(d) + ")"
		}
	}
	if isDesignator(d - 'a' + 'A') {
		return 0, "designators are upper case"
	}
	return 0, "unknown designator " + quote(string(rune(d)))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isDesignator(c byte) bool {
	switch c {
	case 'Y', 'M', 'W', 'D', 'H', 'S':
		return true
	}
	return false
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// addMul returns acc + a*b for non-negative operands, and false once any
// step would overflow int64.
func addMul(acc, a, b int64, ok bool) (int64, bool) {
	if !ok {
		return 0, false
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	p := a * b
	if acc > math.MaxInt64-p {
		return 0, false
	}
	return acc + p, true
}

// AddTo returns t moved forward by d, in UTC: years and months first with
// the day clamped to the target month's last day (time.AddDate would roll
// 31 January + 1 month over into March), then weeks and days as calendar
// days, then Clock.
func (d Duration) AddTo(t time.Time) time.Time {
	t = t.UTC()
	if months := d.Years*12 + d.Months; months != 0 {
		y, m, day := t.Date()
		total := int(m) - 1 + months
		year := y + floorDiv(total, 12)
		month := time.Month(total - floorDiv(total, 12)*12 + 1)
		if last := daysIn(year, month); day > last {
			day = last
		}
		hh, mm, ss := t.Clock()
		t = time.Date(year, month, day, hh, mm, ss, t.Nanosecond(), time.UTC)
	}
	if days := d.Weeks*7 + d.Days; days != 0 {
		t = t.AddDate(0, 0, days)
	}
	return t.Add(d.Clock)
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// daysIn returns the number of days in the month: day 0 of the next month
// is the last day of this one.
func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// IsZero reports whether d is the zero Duration (no components), as in an
// unset TriggerLimits.MaxRecess.
func (d Duration) IsZero() bool {
	return d.Years == 0 && d.Months == 0 && d.Weeks == 0 && d.Days == 0 && d.Clock == 0
}

// String returns the duration as it was written. A non-zero Duration built
// by hand (not parsed) gets a canonical form instead, so it still prints and
// marshals as something ParseDuration reads back; the zero Duration (no
// duration at all) is "".
func (d Duration) String() string {
	if d.text != "" || d.IsZero() {
		return d.text
	}
	return d.canonical()
}

func (d Duration) canonical() string {
	b := []byte{'P'}
	part := func(n int, c byte) {
		if n != 0 {
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, c)
		}
	}
	part(d.Years, 'Y')
	part(d.Months, 'M')
	part(d.Weeks, 'W')
	part(d.Days, 'D')
	if d.Clock != 0 {
		b = append(b, 'T')
		c := d.Clock
		h := c / time.Hour
		c -= h * time.Hour
		m := c / time.Minute
		c -= m * time.Minute
		part(int(h), 'H')
		part(int(m), 'M')
		if c != 0 {
			sec := c / time.Second
			b = strconv.AppendInt(b, int64(sec), 10)
			if ns := c - sec*time.Second; ns != 0 {
				frac := strconv.AppendInt(nil, int64(ns)+1e9, 10)[1:] // zero-padded to 9 digits
				for len(frac) > 0 && frac[len(frac)-1] == '0' {
					frac = frac[:len(frac)-1]
				}
				b = append(b, '.')
				b = append(b, frac...)
			}
			b = append(b, 'S')
		}
	}
	return string(b)
}

// Equal reports whether d and e are the same duration written the same way.
// go-cmp uses it, so Triggers compare without reaching into unexported fields.
func (d Duration) Equal(e Duration) bool {
	return d.Years == e.Years && d.Months == e.Months && d.Weeks == e.Weeks &&
		d.Days == e.Days && d.Clock == e.Clock && d.String() == e.String()
}

// MarshalText writes the duration as written, so a Duration is a JSON string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses text with ParseDuration.
func (d *Duration) UnmarshalText(text []byte) error {
	p, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = p
	return nil
}
