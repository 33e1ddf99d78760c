package answerdesk

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Page types: the kinds of page of the site and its documentation, and the values of a site
// search's type filter.
const (
	PageService  = "service"
	PageIndustry = "industry"
	PageLocation = "location"
	PageBlog     = "blog"
	PagePage     = "page"
	PageDocs     = "docs"
)

// PageTypes lists every page type, in the order documents list them.
var PageTypes = []string{PageService, PageIndustry, PageLocation, PageBlog, PagePage, PageDocs}

// Limits of a site search (GET /api/v1/search, the search_site tool). The query is counted
// in characters, not bytes: a limit a person reads as "200 characters" must hold for every
// script alike.
const (
	MaxSearchQuery     = 200 // characters of the words to search for
	DefaultSearchLimit = 10  // results per page when none is asked for
	MaxSearchLimit     = 50  // results per page, at most
	MaxSearchCursor    = 64  // bytes of a cursor (the server's own are 20 to 30)
)

// ProblemRequired is the FieldError message of a required input that is missing, so that a
// transport can answer it as a missing (rather than an invalid) parameter.
const ProblemRequired = "is required"

// SearchInput is a site search as a client sends it. Field names in errors are "query",
// "limit", "cursor" and "type"; a transport renames them to its own parameters.
type SearchInput struct {
	Query  string
	Limit  *int // nil when not given
	Cursor string
	Type   string // "" for every type
}

// SiteSearch is a checked site search.
type SiteSearch struct {
	Query  string // trimmed, 1 to MaxSearchQuery characters
	Limit  int    // 1 to MaxSearchLimit
	Cursor string // "" for the first page
	Type   string // one of PageTypes, "" for every type
}

// ValidPageType reports whether t is a page type. Types are lower case, as every document
// lists them: "Docs" is not one (a cursor carries the type, so one spelling per type keeps
// cursors and caches from splitting).
func ValidPageType(t string) bool { return slices.Contains(PageTypes, t) }

// ValidSearchLimit reports whether n results per page may be asked for.
func ValidSearchLimit(n int) bool { return n >= 1 && n <= MaxSearchLimit }

// ParseSearch checks a site search: the one rule the public API, the public MCP server and
// the search index apply. The error is an EINVALID *Error naming the first bad field.
func ParseSearch(in SearchInput) (SiteSearch, error) {
	out := SiteSearch{Query: strings.TrimSpace(in.Query), Limit: DefaultSearchLimit, Cursor: in.Cursor, Type: in.Type}
	bad := func(field, problem, hint string) error { return ParamErr(field, problem, hint) }
	if out.Query == "" {
		return SiteSearch{}, bad("query", ProblemRequired, `Pass the words to search for, e.g. "after hours".`)
	}
	if n := utf8.RuneCountInString(out.Query); n > MaxSearchQuery {
		return SiteSearch{}, bad("query", fmt.Sprintf("must be at most %d characters", MaxSearchQuery),
			fmt.Sprintf("Shorten the query (%d characters) to a few words.", n))
	}
	if in.Limit != nil {
		if !ValidSearchLimit(*in.Limit) {
			return SiteSearch{}, bad("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxSearchLimit),
				fmt.Sprintf("Pass a whole number from 1 to %d, or leave it out for %d.", MaxSearchLimit, DefaultSearchLimit))
		}
		out.Limit = *in.Limit
	}
	if len(out.Cursor) > MaxSearchCursor {
		return SiteSearch{}, bad("cursor", "is not a cursor of this search",
			"Pass the nextCursor of the previous result unchanged, or leave it out for the first page.")
	}
	if out.Type != "" && !ValidPageType(out.Type) {
		return SiteSearch{}, bad("type", mustBeOneOf(PageTypes),
			"Pass one of "+strings.Join(PageTypes, ", ")+" (lower case), or leave type out for every type.")
	}
	return out, nil
}
