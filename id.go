package answerdesk

import "strconv"

// ParseID reads a numeric id as the documents' pattern ^[0-9]+$ has it: decimal digits
// only (leading zeros allowed, as the pattern allows), at least 1. strconv also takes a
// leading "+", which reached the row of the id without it.
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
