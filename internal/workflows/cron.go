package workflows

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cronFields are a schedule's five fields, with the values each takes and
// the names some take instead (GitHub's cron: POSIX, with ranges, lists
// and steps).
var cronFields = []struct {
	name   string
	lo, hi int
	names  []string // names[i] is lo+i
}{
	{name: "minute", lo: 0, hi: 59},
	{name: "hour", lo: 0, hi: 23},
	{name: "day of the month", lo: 1, hi: 31},
	{name: "month", lo: 1, hi: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{name: "day of the week", lo: 0, hi: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
}

// readCron reads a schedule GitHub would run: five fields (minute, hour,
// day of the month, month, day of the week), each a list of *, values and
// ranges within the field (a range runs upwards), with an optional /step
// (N/step runs from N to the field's end). It says which values each field
// takes; this is the one reader of cron in recess.
func readCron(cron string) (fields [][]int, err error) {
	texts := strings.Fields(cron)
	if len(texts) != len(cronFields) {
		return nil, fmt.Errorf("%d fields, not five (minute hour day-of-month month day-of-week)", len(texts))
	}
	for i, field := range texts {
		spec := cronFields[i]
		num := func(s string) (int, bool) {
			if n, err := strconv.Atoi(s); err == nil {
				return n, spec.lo <= n && n <= spec.hi
			}
			n := slices.Index(spec.names, strings.ToUpper(s))
			return spec.lo + n, n >= 0
		}
		var values []int
		for _, item := range strings.Split(field, ",") {
			rng, stepText, stepped := strings.Cut(item, "/")
			step := 1
			if stepped {
				n, err := strconv.Atoi(stepText)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("the %s field %q has a step that is not a positive number", spec.name, field)
				}
				step = n
			}
			from, to := spec.lo, spec.hi
			if rng != "*" {
				a, b, ranged := strings.Cut(rng, "-")
				var ok bool
				if from, ok = num(a); !ok {
					return nil, fmt.Errorf("the %s field %q is not a value from %d to %d, a range, a list or *", spec.name, field, spec.lo, spec.hi)
				}
				switch {
				case ranged:
					if to, ok = num(b); !ok {
						return nil, fmt.Errorf("the %s field %q is not a value from %d to %d, a range, a list or *", spec.name, field, spec.lo, spec.hi)
					}
					if to < from {
						return nil, fmt.Errorf("the %s field %q has a range that runs backwards", spec.name, field)
					}
				case !stepped:
					to = from
				}
			}
			for v := from; v <= to; v += step {
				values = append(values, v)
			}
		}
		slices.Sort(values)
		fields = append(fields, slices.Compact(values))
	}
	return fields, nil
}

// CheckCron refuses a schedule GitHub would not run, saying which field
// is wrong.
func CheckCron(cron string) error {
	_, err := readCron(cron)
	return err
}

// TopOfHour says whether a schedule runs at minute 0, when GitHub's
// scheduler is busiest. A schedule CheckCron refuses is not judged.
func TopOfHour(cron string) bool {
	fields, err := readCron(cron)
	return err == nil && slices.Contains(fields[0], 0)
}

// SweepsPerDay is how many times a day a schedule runs (its minutes times
// its hours); everyDay is false when its day fields are not all *.
func SweepsPerDay(cron string) (n int, everyDay bool, err error) {
	fields, err := readCron(cron)
	if err != nil {
		return 0, false, err
	}
	texts := strings.Fields(cron)
	everyDay = texts[2] == "*" && texts[3] == "*" && texts[4] == "*"
	return len(fields[0]) * len(fields[1]), everyDay, nil
}
