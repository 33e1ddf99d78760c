package answerdesk_test

import (
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"11-22-2026", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), true},
		{"02-29-2024", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), true},
		{"02-29-2026", time.Time{}, false},
		{"02-30-2026", time.Time{}, false},
		{"13-01-2026", time.Time{}, false},
		{"2026-11-22", time.Time{}, false},
		{"1-2-2026", time.Time{}, false},
		{"12-31-1969", time.Time{}, false},
		{"01-01-1970", time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), true},
	}
	for _, tc := range tests {
		got, err := answerdesk.ParseDate(tc.in)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseDate(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestTimeJSON(t *testing.T) {
	tm := answerdesk.NewTime(time.Date(2026, 11, 22, 9, 15, 2, 123456789, time.FixedZone("X", 3600)))
	b, _ := tm.MarshalJSON()
	if string(b) != `"2026-11-22T08:15:02.123Z"` {
		t.Fatalf("got %s", b)
	}
	var back answerdesk.Time
	if err := back.UnmarshalJSON(b); err != nil || !back.Equal(tm.Time) {
		t.Fatalf("round trip %v %v", back, err)
	}
}

func TestAudioSigner(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := &answerdesk.AudioSigner{Key: []byte("key"), BaseURL: "https://x.example", TTL: 15 * time.Minute, Now: func() time.Time { return now }}
	u := s.URL(7)
	want := "https://x.example/recordings/7/audio?expires=1795349700&signature="
	if len(u) != len(want)+64 || u[:len(want)] != want {
		t.Fatalf("URL %s", u)
	}
	sig := u[len(want):]
	if err := s.Verify(7, "1795349700", sig); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][3]string{
		"other id":      {"8", "1795349700", sig},
		"other expires": {"7", "1795349701", sig},
		"bad expires":   {"7", "soon", sig},
	} {
		id := int64(7)
		if args[0] == "8" {
			id = 8
		}
		if err := s.Verify(id, args[1], args[2]); answerdesk.ErrorCode(err) != answerdesk.EFORBIDDEN {
			t.Errorf("%s: %v", name, err)
		}
	}
	now = now.Add(16 * time.Minute)
	if err := s.Verify(7, "1795349700", sig); answerdesk.ErrorCode(err) != answerdesk.EFORBIDDEN {
		t.Fatalf("expired: %v", err)
	}
}

func TestTokenFormat(t *testing.T) {
	tok := answerdesk.NewTokenValue()
	if len(tok) != 46 || !answerdesk.ValidTokenFormat(tok) || answerdesk.NewTokenValue() == tok {
		t.Fatalf("token %q", tok)
	}
	for _, bad := range []string{"", "ak_", tok[:45], tok + "A", "xx" + tok[2:], "ak_" + "!" + tok[4:]} {
		if answerdesk.ValidTokenFormat(bad) {
			t.Errorf("accepted %q", bad)
		}
	}
}
