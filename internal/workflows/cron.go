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

// CheckCron refuses a schedule GitHub would not run: anything but five
// fields (minute, hour, day of the month, month, day of the week), each a
// list of *, values and ranges within the field, with an optional /step.
func CheckCron(cron string) error {
	fields := strings.Fields(cron)
	if len(fields) != len(cronFields) {
		return fmt.Errorf("%d fields, not five (minute hour day-of-month month day-of-week)", len(fields))
	}
	for i, field := range fields {
		spec := cronFields[i]
		num := func(s string) bool {
			if n, err := strconv.Atoi(s); err == nil {
				return spec.lo <= n && n <= spec.hi
			}
			return slices.Contains(spec.names, strings.ToUpper(s))
		}
		for _, item := range strings.Split(field, ",") {
			rng, step, stepped := strings.Cut(item, "/")
			if n, err := strconv.Atoi(step); stepped && (err != nil || n < 1) {
				return fmt.Errorf("the %s field %q has a step that is not a positive number", spec.name, field)
			}
			lo, hi, ranged := strings.Cut(rng, "-")
			if rng == "*" || num(lo) && (!ranged || num(hi)) {
				continue
			}
			return fmt.Errorf("the %s field %q is not a value from %d to %d, a range, a list or *", spec.name, field, spec.lo, spec.hi)
		}
	}
	return nil
}
