package mcp

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// args reads the arguments of a call, refusing names the tool does not take.
type args struct {
	m map[string]any
}

func readArgs(req mcpgo.CallToolRequest, known ...string) (args, error) {
	raw := req.Params.Arguments // decoded from the request's JSON
	if raw == nil {
		return args{m: map[string]any{}}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return args{}, invalidArg("arguments", "must be a JSON object", "Pass the arguments as an object, e.g. {\"query\": \"...\"}.")
	}
	for name := range m {
		if !slices.Contains(known, name) {
			takes := "no arguments"
			if len(known) > 0 {
				takes = "only " + strings.Join(known, ", ")
			}
			return args{}, invalidArg(name, "is not an argument of this tool", "Remove it; this tool takes "+takes+".")
		}
	}
	// The text rule of every request (answerdesk.ValidText), before any argument is read:
	// the domain's validation error, worded as REST words a query value's.
	if bad := answerdesk.TextErrors(m, ""); len(bad) > 0 {
		var v answerdesk.ValidationErrors
		for _, f := range bad {
			v.Add(f.Field, f.Message)
		}
		return args{}, v.Err()
	}
	return args{m: m}, nil
}

// str returns a string argument ("" when absent or null), trimmed. maxLen counts
// characters, as the tools' input schemas (JSON Schema maxLength) say.
func (a args) str(name string, maxLen int) (string, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidArg(name, fmt.Sprintf("must be a string, not %s", jsonType(v)), "Pass "+name+" as a JSON string.")
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > maxLen {
		return "", invalidArg(name, fmt.Sprintf("is %d characters long, over the limit of %d", n, maxLen), "Shorten "+name+".")
	}
	return s, nil
}

// text returns a string argument ("" when absent or null), trimmed, for a domain rule to
// check (its length included); the request body's limit (bytes, so never more characters)
// bounds it meanwhile.
func (a args) text(name string) (string, error) {
	return a.str(name, maxBodyBytes)
}

// integer returns an integer argument in lo..hi, def when absent or null. A whole number
// given as a string ("5") is accepted.
func (a args) integer(name string, lo, hi, def int) (int, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	bad := invalidArg(name, fmt.Sprintf("must be an integer from %d to %d", lo, hi),
		fmt.Sprintf("Pass %s as a whole number from %d to %d, or leave it out for the default %d.", name, lo, hi, def))
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, bad
		}
		n = f
	default:
		return 0, bad
	}
	if n != float64(int(n)) || int(n) < lo || int(n) > hi {
		return 0, bad
	}
	return int(n), nil
}

func jsonType(v any) string {
	switch v.(type) {
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	}
	return "null"
}

// locate resolves what a caller passed to find a page: an absolute URL of this site, or a
// path ("/docs/errors", "/docs/errors.md", "docs/errors"); query and fragment are ignored.
// It returns the URL path, without ".md", or an error saying how to fix the argument.
func locate(arg, value, base string) (string, error) {
	if strings.ContainsAny(value, " \t\n") {
		return "", invalidArg(arg, "is not a URL or path", "Pass the page's URL (e.g. "+base+"/docs/errors) or its path (e.g. /docs/errors).")
	}
	u, err := url.Parse(value)
	if err != nil {
		return "", invalidArg(arg, "is not a valid URL or path", "Pass the page's URL (e.g. "+base+"/docs/errors) or its path (e.g. /docs/errors).")
	}
	if u.Scheme != "" || u.Host != "" {
		b, _ := url.Parse(base)
		if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") || b == nil || hostName(u.Host) != hostName(b.Host) {
			return "", invalidArg(arg, fmt.Sprintf("%q is not a page of this site", value),
				"Only pages of "+base+" can be read: pass a URL that starts with "+base+" or a path such as /docs/errors.")
		}
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = strings.TrimSuffix(p, ".md")
	if p != "/" {
		p = strings.TrimRight(p, "/")
	}
	if p == "/index" {
		p = "/"
	}
	return p, nil
}
