package wait

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
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
)

type unit struct {
	d      byte
	inTime bool
	nanos  int64
	max    int64
	name   string
}

// units are the designators in the order ISO 8601 requires them, the date
// part's and then the time part's. nanos is the exact length of a unit
// whose fraction goes to Clock (a multiple of 10^9, so a fraction of at
// most 9 digits converts exactly); zero for years and months, whose length
// depends on the calendar. max bounds a date component.
var units = [...]unit{
	{'Y', false, 0, maxYears, "year"},
	{'M', false, 0, 12 * maxYears, "month"},
	{'W', false, int64(7 * 24 * time.Hour), 53 * maxYears, "week"},
	{'D', false, int64(24 * time.Hour), 366 * maxYears, "day"},
	{'H', true, int64(time.Hour), 0, ""},
	{'M', true, int64(time.Minute), 0, ""},
	{'S', true, int64(time.Second), 0, ""},
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
	switch {
	case s == "":
		return fail("empty")
	case s[0] == '-':
		return fail("negative durations are not allowed")
	case s[0] == '+':
		return fail("a sign is not allowed")
	case s[0] == 'p':
		return fail("designators are upper case (P, not p)")
	case s[0] != 'P':
		return fail("must start with P")
	}

	var (
		whole      [len(units)]int64
		fracNum    int64
		fracDigits int
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
			if i++; i == len(s) {
				return fail("T must be followed by a time component (H, M or S)")
			}
			continue
		}
		start := i
		i = skipDigits(s, i)
		switch {
		case i > start:
		case c == '-':
			return fail("negative values are not allowed")
		case c == '+':
			return fail("a sign is not allowed")
		case c == '.' || c == ',':
			return fail("a fraction needs a whole part (0.5, not .5)")
		case strings.IndexByte("YMWDHS", c) >= 0:
			return fail("designator " + string(c) + " has no number before it")
		case strings.IndexByte("ymwdhs", c) >= 0:
			return fail("designators are upper case")
		default:
			return fail("unexpected " + quote(string(rune(c))) + " at offset " + strconv.Itoa(i))
		}
		number, frac := s[start:i], ""
		separated := i < len(s) && (s[i] == '.' || s[i] == ',')
		if separated {
			frac = s[i+1 : skipDigits(s, i+1)]
			i += 1 + len(frac)
		}
		switch {
		case len(number) > maxDurationDigits:
			return fail("a number has more than 9 digits")
		case separated && frac == "":
			return fail("a decimal separator must be followed by digits")
		case len(frac) > maxDurationDigits:
			return fail("a fraction has more than 9 digits")
		case i == len(s):
			return fail("number " + s[start:i] + " has no designator")
		}
		// At most 9 digits each: parsing cannot fail ("" is no fraction).
		n, _ := strconv.ParseInt(number, 10, 64)
		fn, _ := strconv.ParseInt(frac, 10, 64)
		d := s[i]
		i++
		rank := slices.IndexFunc(units[:], func(u unit) bool { return u.d == d && u.inTime == inTime })
		switch {
		case rank >= 0:
		case inTime && strings.IndexByte("YWD", d) >= 0:
			return fail("designator " + string(d) + " belongs before T")
		case !inTime && strings.IndexByte("HS", d) >= 0:
			return fail("designator " + string(d) + " belongs after T (PT1" + string(d) + ")")
		case strings.IndexByte("ymwdhs", d) >= 0:
			return fail("designators are upper case")
		default:
			return fail("unknown designator " + quote(string(rune(d))))
		}
		switch {
		case rank == last:
			return fail("designator " + string(d) + " is repeated")
		case rank < last && inTime:
			return fail("time designators out of order (H, M, S)")
		case rank < last:
			return fail("date designators out of order (Y, M, W, D)")
		case fraction >= 0:
			return fail("only the smallest unit present may have a fraction")
		case frac != "" && units[rank].nanos == 0:
			return fail("a fraction of a " + units[rank].name + " has no fixed length")
		case frac != "":
			fraction, fracNum, fracDigits = rank, fn, len(frac)
		}
		whole[rank], last = n, rank
	}
	if last < 0 {
		return fail("no date or time components")
	}
	for r, u := range units[:4] {
		if whole[r] > u.max {
			return fail(u.name + "s must be at most " + strconv.FormatInt(u.max, 10))
		}
	}

	clock, ok := int64(0), true
	for r := 4; r < len(units) && ok; r++ {
		clock, ok = addMul(clock, whole[r], units[r].nanos)
	}
	if fraction >= 0 && ok {
		// unit/10^k is exact and the product stays below the unit because
		// the numerator is below 10^k.
		clock, ok = addMul(clock, fracNum, units[fraction].nanos/int64(math.Pow10(fracDigits)))
	}
	if !ok {
		return fail("the time part is too long (at most about 292 years)")
	}
	out := Duration{Years: int(whole[0]), Months: int(whole[1]), Weeks: int(whole[2]), Days: int(whole[3]), Clock: time.Duration(clock), text: s}
	if out.IsZero() {
		return fail("a zero duration is not allowed")
	}
	return out, nil
}

// skipDigits returns the offset of the first byte at or after i that is not
// a digit.
func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// addMul returns acc + a*b for non-negative operands, and false when that
// would overflow int64.
func addMul(acc, a, b int64) (int64, bool) {
	if a != 0 && b > (math.MaxInt64-acc)/a {
		return 0, false
	}
	return acc + a*b, true
}

// AddTo returns t moved forward by d, in UTC: years and months first with
// the day clamped to the target month's last day (time.AddDate would roll
// 31 January + 1 month over into March), then weeks and days as calendar
// days, then Clock.
func (d Duration) AddTo(t time.Time) time.Time {
	t = t.UTC()
	if months := d.Years*12 + d.Months; months != 0 {
		y, m, day := t.Date()
		// Day 0 of the month after the target is the target's last day.
		last := time.Date(y, m+time.Month(months)+1, 0, 0, 0, 0, 0, time.UTC)
		hh, mm, ss := t.Clock()
		t = time.Date(last.Year(), last.Month(), min(day, last.Day()), hh, mm, ss, t.Nanosecond(), time.UTC)
	}
	if days := d.Weeks*7 + d.Days; days != 0 {
		t = t.AddDate(0, 0, days)
	}
	return t.Add(d.Clock)
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
	b, c := []byte{'P'}, d.Clock
	parts := []int64{int64(d.Years), int64(d.Months), int64(d.Weeks), int64(d.Days), int64(c / time.Hour), int64(c % time.Hour / time.Minute)}
	for r, n := range parts {
		if r == 4 && c != 0 {
			b = append(b, 'T')
		}
		if n != 0 {
			b = append(strconv.AppendInt(b, n, 10), units[r].d)
		}
	}
	if c %= time.Minute; c != 0 {
		sec := strings.TrimRight(fmt.Sprintf("%d.%09d", c/time.Second, c%time.Second), "0")
		b = append(append(b, strings.TrimSuffix(sec, ".")...), 'S')
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
