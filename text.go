package answerdesk

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Text that a request gives (a body's strings, a query value, a path segment, an MCP
// argument) must be text that every database engine stores and compares as given: valid
// UTF-8 without NUL characters. PostgreSQL's text type refuses both, so on PostgreSQL such a
// value failed the query (a 500) where SQLite took it; the rule makes both engines refuse it
// the same way, before any query. (A JSON body's invalid UTF-8 is already replaced by U+FFFD
// when it is decoded, so from a body only NUL, written \u0000, reaches it: RefuseNUL, which
// every body parser applies.) Query values and path parameters are checked by each REST
// operation's handler after routing and authentication, MCP arguments by TextErrors.

// InvalidTextMessage is the error message of a value that is not ValidText.
const InvalidTextMessage = `must be valid UTF-8 text without NUL characters (\u0000)`

// ValidText reports whether s is valid UTF-8 without NUL characters.
func ValidText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// TextErrors names every string (or object key) in v, a decoded JSON value, that is not
// ValidText. path is v's own name ("" for a whole body); properties are joined with ".",
// array items written [i], as every other field error names them.
func TextErrors(v any, path string) []FieldError {
	if path == "" && allText(v) {
		return nil // the common case, without building names
	}
	var out []FieldError
	switch v := v.(type) {
	case string:
		if !ValidText(v) {
			out = append(out, FieldError{Field: path, Message: InvalidTextMessage})
		}
	case []any:
		for i, e := range v {
			out = append(out, TextErrors(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if path != "" {
				name = path + "." + k
			}
			if !ValidText(k) {
				out = append(out, FieldError{Field: name, Message: "is a property name that " + InvalidTextMessage})
				continue
			}
			out = append(out, TextErrors(v[k], name)...)
		}
	}
	return out
}

// allText reports whether every string and object key in v, a decoded JSON value, is
// ValidText.
func allText(v any) bool {
	switch v := v.(type) {
	case string:
		return ValidText(v)
	case []any:
		for _, e := range v {
			if !allText(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range v {
			if !ValidText(k) || !allText(e) {
				return false
			}
		}
	}
	return true
}
