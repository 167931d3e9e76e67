package resume

import (
	"fmt"
	"regexp"
	"strconv"
)

// Temporary until state's codec provides the marker helpers.
func replyMarker(key string, i int) string { return fmt.Sprintf("<!-- recess:reply %s %d -->", key, i) }

var markerRE = regexp.MustCompile(`<!-- recess:reply ([A-Za-z0-9._-]+) (\d+) -->`)

func parseReplyMarker(body string) (string, int, bool) {
	m := markerRE.FindStringSubmatch(body)
	if m == nil {
		return "", 0, false
	}
	n, _ := strconv.Atoi(m[2])
	return m[1], n, true
}
