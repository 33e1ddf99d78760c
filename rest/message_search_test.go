package rest_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestMessageSearch: q finds messages by the starts of their words (from the third
// character) over content, names, company, email, note, address and answers, every word
// required, and by a phone number in any spelling in any of their numbers; caller_id
// filters by the caller's number. Other filters, order and meta apply; another account's
// messages are never found; FTS syntax in q is words, never an operator or an error.
func TestMessageSearch(t *testing.T) {
	app := testapp.New(t)
	at := func(days int) time.Time { return testapp.Start.AddDate(0, 0, days) }
	heater := app.CreateMessage(t, app.Alice, at(1), map[string]any{"content": "Leaking water heater in the basement, please call back",
		"first_name": "Dana", "last_name": "Ruiz", "caller_id": "+1 (555) 555-0142", "email": "dana@mail.example"})
	plumbing := app.CreateMessage(t, app.Alice, at(2), map[string]any{"content": "Plumbing estimate for a kitchen remodel",
		"company_name": "Ruiz Construction", "phone": "555.555.0199", "note": "VIP café customer"})
	answers := app.CreateMessage(t, app.Alice, at(3), map[string]any{"content": "Callback requested",
		"answers": map[string]any{"Issue": "Sump pump failure"}, "alt_phone": "5555550142", "address": "12 Elm Street"})
	other := app.CreateMessage(t, app.Bob, at(4), map[string]any{"content": "Leaking water heater at the dental office",
		"caller_id": "+15555550142"})

	find := func(t *testing.T, query string) []int64 {
		t.Helper()
		r := app.Do(t, "GET", "/api/v2/messages?"+query, app.Alice.Token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.Status, r.Body)
		}
		var body struct {
			Data []answerdesk.Message
			Meta answerdesk.PageMeta
		}
		r.JSON(t, &body)
		var ids []int64
		for _, m := range body.Data {
			ids = append(ids, m.ID)
		}
		if body.Meta.Total != len(ids) {
			t.Errorf("%s: meta.total %d for %d messages", query, body.Meta.Total, len(ids))
		}
		return ids
	}
	q := func(s string) string { return "q=" + url.QueryEscape(s) }
	for _, tc := range []struct {
		query string
		want  []*answerdesk.Message
	}{
		{q("water heater"), []*answerdesk.Message{heater}},
		{q("plumb"), []*answerdesk.Message{plumbing}},            // the start of a word
		{q("Plumbing KITCHEN"), []*answerdesk.Message{plumbing}}, // any case
		{q("umbing"), nil},        // not the middle of a word
		{q("water kitchen"), nil}, // every word must match
		{q("ru"), nil},            // under three characters: a whole word only
		{q("ruiz"), []*answerdesk.Message{plumbing, heater}},    // names and company, newest first
		{q("dana@mail.example"), []*answerdesk.Message{heater}}, // email
		{q("cafe"), []*answerdesk.Message{plumbing}},            // note, accents aside (where the engine folds them)
		{q("sump pump"), []*answerdesk.Message{answers}},        // answers
		{q("elm"), []*answerdesk.Message{answers}},              // address
		{q("+1 555 555 0142"), []*answerdesk.Message{answers, heater}},
		{q("(555) 555-0142"), []*answerdesk.Message{answers, heater}},
		{q("5555550142 heater"), []*answerdesk.Message{heater}},
		{q("555-555-0199"), []*answerdesk.Message{plumbing}},
		{"caller_id=" + url.QueryEscape("(555) 555-0142"), []*answerdesk.Message{heater}},
		{"caller_id=%2B15555550142&" + q("pump"), nil},
		{q("call") + "&start_date=" + at(2).Format("01-02-2006"), []*answerdesk.Message{answers}}, // other filters still apply
		// Full-text syntax is words: no operator, no error.
		{q(`water NEAR(heater)`), nil}, // "near" is not in the message
		{q(`"water" -heater`), []*answerdesk.Message{heater}},
		{q(`wat* (heater"`), []*answerdesk.Message{heater}},
		{q(`water AND heater`), nil}, // and is a word the message lacks, not an operator
	} {
		t.Run(tc.query, func(t *testing.T) {
			var want []int64
			for _, m := range tc.want {
				want = append(want, m.ID)
			}
			if got := find(t, tc.query); !slices.Equal(got, want) {
				t.Errorf("found %v, want %v", got, want)
			}
		})
	}
	// Another account's message is never found, however well it matches.
	if ids := find(t, q("dental")); len(ids) != 0 || slices.Contains(find(t, q("water")), other.ID) {
		t.Errorf("another account's message was found: %v", ids)
	}
	// A later edit of a searched field is searched: acknowledging changes no word, and the
	// index follows the message's deletion by retention too (checked by the store's tests).
	if r := app.Do(t, "PATCH", "/api/v2/messages/"+heater.UUID+"/acknowledge", app.Alice.Token, nil); r.Status != 200 {
		t.Fatalf("acknowledge: %d", r.Status)
	}
	if ids := find(t, q("heater")+"&status=acknowledged"); !slices.Equal(ids, []int64{heater.ID}) {
		t.Errorf("after acknowledging: %v", ids)
	}
	// Pages of a search: each has the page's messages and the count of every match,
	// including a page past the last, which has none.
	for _, tc := range []struct {
		page  int
		want  []int64
		total int
	}{{1, []int64{answers.ID}, 2}, {2, []int64{heater.ID}, 2}, {3, nil, 2}} {
		r := app.Do(t, "GET", "/api/v2/messages?page_size=1&page="+strconv.Itoa(tc.page)+"&"+q("555 555 0142"), app.Alice.Token, nil)
		var body struct {
			Data []answerdesk.Message
			Meta answerdesk.PageMeta
		}
		r.JSON(t, &body)
		var ids []int64
		for _, m := range body.Data {
			ids = append(ids, m.ID)
		}
		if r.Status != http.StatusOK || !slices.Equal(ids, tc.want) || body.Meta.Total != tc.total {
			t.Errorf("page %d: %d, %v of %d, want %v of %d", tc.page, r.Status, ids, body.Meta.Total, tc.want, tc.total)
		}
	}
	for query, field := range map[string]string{
		q(strings.Repeat("a", answerdesk.MaxMessageSearchLength+1)): "q",
		q("!!! *** ---"):   "q",
		q("😀"):             "q",
		"caller_id=abc":    "caller_id",
		"caller_id=%2B1-5": "caller_id",
	} {
		r := app.Do(t, "GET", "/api/v2/messages?"+query, app.Alice.Token, nil)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
			t.Errorf("%s: %d %s, want 422 on %s", query, r.Status, r.Body, field)
		}
	}
}
