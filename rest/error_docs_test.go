package rest

import (
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/content"
)

// TestEveryErrorCodeIsDocumented: each error response links to /docs/errors#<code>, so the
// shipped errors page must have that anchor for every code the API can answer with.
func TestEveryErrorCodeIsDocumented(t *testing.T) {
	site, err := content.Load(content.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	page, ok := site.Page("/docs/errors")
	if !ok {
		t.Fatal("no /docs/errors page")
	}
	for code := range defaultHints {
		if !strings.Contains(page.HTML, `id="`+code+`"`) {
			t.Errorf("/docs/errors has no anchor #%s", code)
		}
	}
}
