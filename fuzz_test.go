package answerdesk_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
)

// The seed corpora below run in every "make test"; "make fuzz" explores further.

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"11-22-2026", "02-29-2024", "02-29-2026", "02-30-2026", "19-01-2026", "00-10-2026", "1-1-2026", "", "11-22-20266", "11/22/2026", "١١-٢٢-٢٠٢٦"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := answerdesk.ParseDate(s)
		if err != nil {
			return
		}
		// Whatever parses must be midnight UTC and print back as the same string.
		if d.Location() != time.UTC || d.Hour() != 0 || d.Format("01-02-2006") != s {
			t.Fatalf("ParseDate(%q) = %v", s, d)
		}
	})
}

func FuzzMessageFilter(f *testing.F) {
	f.Add("call", "new", "11-01-2026", "11-30-2026", 1, 50)
	f.Add("AI_CALL", "", "", "02-30-2026", 0, 201)
	f.Add("x", "lost", "12-01-2026", "11-01-2026", -5, -1)
	f.Fuzz(func(t *testing.T, origin, status, start, end string, page, size int) {
		q, err := answerdesk.MessageFilter{Origin: origin, Status: status, StartDate: start, EndDate: end, Page: &page, PageSize: &size}.Validate()
		if err != nil {
			if answerdesk.ErrorCode(err) != answerdesk.EINVALID {
				t.Fatalf("error code %s: %v", answerdesk.ErrorCode(err), err)
			}
			return
		}
		if q.Page < 1 || q.PageSize < 1 || q.PageSize > answerdesk.MaxMessagePageSize || q.Offset() < 0 {
			t.Fatalf("accepted paging %+v", q.Paging)
		}
		if q.Since != 0 && q.Until != 0 && q.Since >= q.Until {
			t.Fatalf("accepted empty range %d..%d", q.Since, q.Until)
		}
	})
}

func FuzzParseMessageCreate(f *testing.F) {
	for _, s := range []string{
		`{"content":"hi"}`, `{"content":"hi","origin":"ai_call","answers":{"Reason for call":"Leak"},"escalation_level_id":2}`,
		`{"content":""}`, `{"content":1}`, `[]`, `null`, `{"answers":null,"content":"x"}`, `{"escalation_level_id":1e400,"content":"x"}`,
		`{"content":"x","email":"a@b.c","non_message_type":"spam","from_ai_assistant":true}`, "{\"content\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := answerdesk.ParseMessageCreate(b)
		if err != nil {
			if answerdesk.ErrorCode(err) != answerdesk.EINVALID {
				t.Fatalf("error code %s", answerdesk.ErrorCode(err))
			}
			return
		}
		if m.Content == "" || m.Origin == "" {
			t.Fatalf("accepted %q as %+v", b, m)
		}
		if _, err := json.Marshal(m.Answers); err != nil {
			t.Fatalf("answers cannot be stored: %v", err)
		}
	})
}
