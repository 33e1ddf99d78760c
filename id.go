package answerdesk

import "strconv"

// ParseID reads a numeric id as the API writes it: decimal digits only, at least 1. Signs,
// spaces and other spellings strconv would take ("+5", "٥") are not ids, so a path or
// filter has one spelling per thing and the documents' pattern ^[0-9]+$ is what is served.
func ParseID(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}
