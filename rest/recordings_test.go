package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

type recordingList = listBody[answerdesk.CallRecording]

func TestCallRecordings(t *testing.T) {
	app := testapp.New(t)
	var recs []*answerdesk.CallRecording
	var msgs []*answerdesk.Message
	for i := range 6 {
		skill := "Acme Plumbing - Main"
		if i%2 == 1 {
			skill = "Acme Plumbing - After Hours"
		}
		rec, msg := app.CreateCall(t, app.Alice, app.Acme, day(i).Add(-time.Hour), skill, true)
		recs, msgs = append(recs, rec), append(msgs, msg)
	}
	bobRec, bobMsg := app.CreateCall(t, app.Bob, app.Birch, day(0), "Birch Dental - Main", true)
	plain := app.CreateMessage(t, app.Alice, day(0), map[string]any{})

	list := func(t *testing.T, token, query string) recordingList {
		t.Helper()
		r := app.Do(t, "GET", "/api/v2/call-recordings"+query, token, nil)
		if r.Status != 200 {
			t.Fatalf("status %d %s", r.Status, r.Body)
		}
		var l recordingList
		r.JSON(t, &l)
		return l
	}
	t.Run("newest_first_own_account", func(t *testing.T) {
		l := list(t, app.Alice.Token, "")
		if len(l.Data) != 6 || l.Data[0].ID != recs[0].ID || l.Meta.Total != 6 {
			t.Fatalf("got %d, meta %+v", len(l.Data), l.Meta)
		}
		r := l.Data[0]
		if r.AccountNumber != "1001" || r.CDR.CallType != "InboundCall" || r.CDR.TalkSec != 60 || r.Recording == nil {
			t.Fatalf("recording %+v", r)
		}
	})
	t.Run("filters", func(t *testing.T) {
		if l := list(t, app.Alice.Token, "?skill_name="+url.QueryEscape("Acme Plumbing - After Hours")); l.Meta.Total != 3 {
			t.Fatalf("skill filter total %d", l.Meta.Total)
		}
		q := fmt.Sprintf("?from_date=%s&to_date=%s", day(2).Format("01-02-2006"), day(1).Format("01-02-2006"))
		if l := list(t, app.Alice.Token, q); l.Meta.Total != 2 || l.Data[0].ID != recs[1].ID {
			t.Fatalf("date filter %+v", l.Meta)
		}
		if l := list(t, app.Alice.Token, fmt.Sprintf("?account_id=%d", app.Acme.ID)); l.Meta.Total != 6 {
			t.Fatalf("account filter %d", l.Meta.Total)
		}
		if l := list(t, app.Alice.Token, fmt.Sprintf("?account_id=%d", app.Birch.ID)); l.Meta.Total != 0 {
			t.Fatalf("alice filtering by bob's account sees %d", l.Meta.Total)
		}
		if l := list(t, app.Admin.Token, ""); l.Meta.Total != 7 {
			t.Fatalf("admin total %d", l.Meta.Total)
		}
	})
	t.Run("sample_draws_from_filtered_set", func(t *testing.T) {
		seen := map[int64]bool{}
		for range 20 {
			l := list(t, app.Alice.Token, "?sample=true&page_size=2")
			if len(l.Data) != 2 || l.Meta.TotalPages != nil || l.Meta.Total != 6 {
				t.Fatalf("sample: %d items meta %+v", len(l.Data), l.Meta)
			}
			for _, r := range l.Data {
				if r.AccountNumber != "1001" {
					t.Fatal("sample left the caller's account")
				}
				seen[r.ID] = true
			}
		}
		if len(seen) < 4 {
			t.Fatalf("20 samples of 2 from 6 saw only %d distinct recordings", len(seen))
		}
	})
	t.Run("get_and_message_recording", func(t *testing.T) {
		var one struct{ Data answerdesk.CallRecording }
		app.Do(t, "GET", fmt.Sprint("/api/v2/call-recordings/", recs[2].ID), app.Alice.Token, nil).JSON(t, &one)
		if one.Data.ID != recs[2].ID || one.Data.CallID != recs[2].CallID {
			t.Fatalf("get: %+v", one.Data)
		}
		app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d/call-recording", msgs[3].ID), app.Alice.Token, nil).JSON(t, &one)
		if one.Data.ID != recs[3].ID {
			t.Fatalf("message recording %d, want %d", one.Data.ID, recs[3].ID)
		}
		wantError(t, app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d/call-recording", plain.ID), app.Alice.Token, nil), 404, "not_found")
	})
	t.Run("other_accounts_are_404", func(t *testing.T) {
		wantError(t, app.Do(t, "GET", fmt.Sprint("/api/v2/call-recordings/", bobRec.ID), app.Alice.Token, nil), 404, "not_found")
		wantError(t, app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d/call-recording", bobMsg.ID), app.Alice.Token, nil), 404, "not_found")
		wantError(t, app.Do(t, "GET", "/api/v2/call-recordings/abc", app.Alice.Token, nil), 404, "not_found")
	})
	t.Run("bad_input", func(t *testing.T) {
		for q, field := range map[string]string{
			"?page_size=0": "page_size", "?page_size=201": "page_size", "?page=0": "page",
			"?from_date=02-30-2026": "from_date", "?to_date=2026-01-01": "to_date",
			"?from_date=11-02-2026&to_date=11-01-2026": "from_date",
			"?sample=perhaps":                          "sample", "?account_id=x": "account_id", "?account_id=-4": "account_id",
		} {
			wantError(t, app.Do(t, "GET", "/api/v2/call-recordings"+q, app.Alice.Token, nil), 422, "invalid_parameter", field)
		}
	})
}

func TestRecordingAudio(t *testing.T) {
	app := testapp.New(t)
	rec, _ := app.CreateCall(t, app.Alice, app.Acme, day(1), "Main", true)
	var one struct{ Data answerdesk.CallRecording }
	app.Do(t, "GET", fmt.Sprint("/api/v2/call-recordings/", rec.ID), app.Alice.Token, nil).JSON(t, &one)
	if one.Data.Recording == nil {
		t.Fatal("no audio URL")
	}
	audioURL := *one.Data.Recording
	u, err := url.Parse(audioURL)
	if err != nil || u.Path != fmt.Sprintf("/recordings/%d/audio", rec.ID) || u.Query().Get("expires") == "" || len(u.Query().Get("signature")) != 64 {
		t.Fatalf("audio URL %q", audioURL)
	}
	t.Run("serves_without_token", func(t *testing.T) {
		resp, body := send(t, "GET", audioURL, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" || string(body[:4]) != "RIFF" {
			t.Fatalf("status %d type %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})
	t.Run("range", func(t *testing.T) {
		resp, body := send(t, "GET", audioURL, nil, "Range", "bytes=4-7")
		if resp.StatusCode != http.StatusPartialContent || string(body) != "\x24\x00\x00\x00" || resp.Header.Get("Content-Range") == "" {
			t.Fatalf("range: %d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Range"))
		}
	})
	t.Run("tampered_signature_403", func(t *testing.T) {
		q := u.Query()
		q.Set("signature", "00"+q.Get("signature")[2:])
		resp, _ := send(t, "GET", app.Server.URL+u.Path+"?"+q.Encode(), nil)
		if resp.StatusCode != 403 {
			t.Fatalf("tampered: %d", resp.StatusCode)
		}
		other := fmt.Sprintf("%s/recordings/%d/audio?%s", app.Server.URL, rec.ID+1, u.RawQuery)
		if resp, _ := send(t, "GET", other, nil); resp.StatusCode != 403 {
			t.Fatalf("signature reused for another recording: %d", resp.StatusCode)
		}
	})
	t.Run("expires_after_15_minutes", func(t *testing.T) {
		app.Clock.Advance(16 * time.Minute)
		defer app.Clock.Advance(-16 * time.Minute)
		if resp, _ := send(t, "GET", audioURL, nil); resp.StatusCode != 403 {
			t.Fatalf("expired link: %d", resp.StatusCode)
		}
	})
}
