package answerdesk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// occurrences returns the plan's first n occurrences formatted in loc.
func occurrences(t *testing.T, p *answerdesk.Plan, n int, loc *time.Location) []string {
	t.Helper()
	var out []string
	at, ok := p.First()
	for ok && len(out) < n {
		out = append(out, at.In(loc).Format("2006-01-02 15:04 MST"))
		at, ok = p.Next(at)
	}
	return out
}

func TestPlanOccurrences(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	syd := mustLoc(t, "Australia/Sydney")
	interval := func(n int) *int { return &n }
	tests := []struct {
		name string
		in   answerdesk.ScheduleInput
		now  time.Time
		loc  *time.Location
		want []string
	}{
		{"immediately", answerdesk.ScheduleInput{Rule: "immediately"},
			time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC), ny, []string{"2026-11-22 09:00 EST"}},
		{"today_in_account_zone", answerdesk.ScheduleInput{Rule: "today", Times: []string{"17:00", "09:30"}},
			time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC), ny, []string{"2026-11-22 09:30 EST", "2026-11-22 17:00 EST"}},
		{"daily_two_times_different_minutes", answerdesk.ScheduleInput{Frequency: "daily", Times: []string{"09:30", "17:00"}},
			time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC), ny, // 10:00 in New York: 09:30 has passed
			[]string{"2026-11-22 17:00 EST", "2026-11-23 09:30 EST", "2026-11-23 17:00 EST", "2026-11-24 09:30 EST"}},
		{"weekly_on_days", answerdesk.ScheduleInput{Frequency: "weekly", Weekdays: []time.Weekday{time.Wednesday, time.Monday}, Times: []string{"08:00"}},
			time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), ny, // a Sunday
			[]string{"2026-11-23 08:00 EST", "2026-11-25 08:00 EST", "2026-11-30 08:00 EST", "2026-12-02 08:00 EST"}},
		{"weekly_every_second_week", answerdesk.ScheduleInput{Frequency: "weekly", Interval: interval(2), Weekdays: []time.Weekday{time.Monday}, Times: []string{"08:00"}},
			time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), ny, // Monday 07:00 local
			[]string{"2026-11-23 08:00 EST", "2026-12-07 08:00 EST", "2026-12-21 08:00 EST"}},
		{"monthly_day_31_skips_short_months", answerdesk.ScheduleInput{Frequency: "monthly", MonthDays: []int{31}, Times: []string{"12:00"}},
			time.Date(2027, 1, 5, 12, 0, 0, 0, time.UTC), ny,
			[]string{"2027-01-31 12:00 EST", "2027-03-31 12:00 EDT", "2027-05-31 12:00 EDT", "2027-07-31 12:00 EDT"}},
		{"monthly_every_third_month", answerdesk.ScheduleInput{Frequency: "monthly", Interval: interval(3), MonthDays: []int{1, 15}, Times: []string{"09:00"}},
			time.Date(2027, 1, 5, 12, 0, 0, 0, time.UTC), ny,
			[]string{"2027-01-15 09:00 EST", "2027-04-01 09:00 EDT", "2027-04-15 09:00 EDT", "2027-07-01 09:00 EDT"}},
		{"new_york_spring_forward_keeps_wall_time", answerdesk.ScheduleInput{Frequency: "daily", Times: []string{"09:00"}},
			time.Date(2027, 3, 13, 12, 0, 0, 0, time.UTC), ny, // DST starts 2027-03-14
			[]string{"2027-03-13 09:00 EST", "2027-03-14 09:00 EDT", "2027-03-15 09:00 EDT"}},
		{"new_york_fall_back_keeps_wall_time", answerdesk.ScheduleInput{Frequency: "daily", Times: []string{"09:00"}},
			time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC), ny, // 08:00 EDT; DST ends 2026-11-01
			[]string{"2026-10-31 09:00 EDT", "2026-11-01 09:00 EST", "2026-11-02 09:00 EST"}},
		{"sydney_dst_starts_in_october", answerdesk.ScheduleInput{Frequency: "daily", Times: []string{"07:15"}},
			time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC), syd, // 10:00 AEST; DST starts 2026-10-04
			[]string{"2026-10-04 07:15 AEDT", "2026-10-05 07:15 AEDT"}},
		{"sydney_dst_ends_in_april", answerdesk.ScheduleInput{Frequency: "weekly", Weekdays: []time.Weekday{time.Sunday}, Times: []string{"18:00"}},
			time.Date(2027, 3, 28, 0, 0, 0, 0, time.UTC), syd, // DST ends 2027-04-04
			[]string{"2027-03-28 18:00 AEDT", "2027-04-04 18:00 AEST", "2027-04-11 18:00 AEST"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := answerdesk.NewPlan(tc.in, tc.now, tc.loc)
			if err != nil {
				t.Fatal(err)
			}
			got := occurrences(t, p, len(tc.want)+1, tc.loc)
			if len(got) > len(tc.want) && (tc.in.Rule == "immediately" || tc.in.Rule == "today") {
				t.Fatalf("one-off plan has extra occurrences: %v", got)
			}
			for i, w := range tc.want {
				if i >= len(got) || got[i] != w {
					t.Fatalf("occurrences %v, want %v", got, tc.want)
				}
			}
			// The stored rule rebuilds the same plan.
			again, err := answerdesk.PlanFromRule(p.Rule, p.Times, tc.now.Truncate(time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if back := occurrences(t, again, len(tc.want), tc.loc); len(back) != len(tc.want) || back[len(back)-1] != tc.want[len(tc.want)-1] {
				t.Fatalf("rebuilt plan gives %v, want %v", back, tc.want)
			}
		})
	}
}

func TestPlanRRule(t *testing.T) {
	p, err := answerdesk.NewPlan(answerdesk.ScheduleInput{Frequency: "weekly", Weekdays: []time.Weekday{time.Wednesday, time.Monday}, Times: []string{"09:30"}},
		time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), mustLoc(t, "America/New_York"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Rule["rrule"]; got != "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,WE;BYHOUR=9;BYMINUTE=30;BYSECOND=0" {
		t.Fatalf("rrule %v", got)
	}
	if p.Rule["tz"] != "America/New_York" {
		t.Fatalf("tz %v", p.Rule["tz"])
	}
}

func TestPlanToday(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	now := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC) // 10:00 in New York
	_, err := answerdesk.NewPlan(answerdesk.ScheduleInput{Rule: "today", Times: []string{"09:59", "11:00"}}, now, ny)
	if answerdesk.ErrorCode(err) != answerdesk.EINVALID {
		t.Fatalf("past time accepted: %v", err)
	}
	if _, err := answerdesk.NewPlan(answerdesk.ScheduleInput{Rule: "today", Times: []string{"10:01"}}, now, ny); err != nil {
		t.Fatal(err)
	}
}

func TestPlanDue(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	start := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC) // 07:00 local
	p, err := answerdesk.NewPlan(answerdesk.ScheduleInput{Frequency: "daily", Times: []string{"09:00"}}, start, ny)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := p.First()
	// Down from the first occurrence until 20 days later at noon: the latest is due, 19 missed.
	now := time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)
	due, skipped, n := p.Due(first, now)
	if due.In(ny).Format("2006-01-02 15:04") != "2026-11-22 09:00" || n != 20 || len(skipped) != 20 || !skipped[0].Equal(first) {
		t.Fatalf("due %v, %d skipped (%d listed)", due.In(ny), n, len(skipped))
	}
	// Nothing missed: the next one is due.
	if due, _, n := p.Due(first, first.Add(time.Minute)); !due.Equal(first) || n != 0 {
		t.Fatalf("due %v skipped %d", due, n)
	}
}

func TestParseToDoCreate(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"sms_ok", `{"account_number":"1001","delivery_type":"SMS","from":"+15550101001","contact":"(555) 555-0123","message_text":"hi","schedule":{"rule":"immediately"}}`, nil},
		{"email_ok", `{"account_number":"1001","delivery_type":"email","contact":"a@b.example","message_text":"hi","from_email":"X@acme.example","schedule":{"rule":"today","times":["23:59"]}}`, nil},
		{"call_ok", `{"account_number":"1001","delivery_type":"call","instructions":"Call Bob","schedule":{"frequency":"weekly","days":["Monday"],"times":["09:00"],"interval":2}}`, nil},
		{"missing_everything", `{}`, []string{"account_number", "delivery_type", "schedule"}},
		{"sms_missing_fields", `{"account_number":"1001","delivery_type":"sms","schedule":{"rule":"immediately"}}`, []string{"from", "contact", "message_text"}},
		{"email_missing_fields", `{"account_number":"1001","delivery_type":"email","schedule":{"rule":"immediately"}}`, []string{"contact", "message_text", "from_email"}},
		{"call_missing_instructions", `{"account_number":"1001","delivery_type":"call","schedule":{"rule":"immediately"}}`, []string{"instructions"}},
		{"ai_missing_fields", `{"account_number":"1001","delivery_type":"ai_outbound_call","schedule":{"rule":"immediately"}}`, []string{"contact", "instructions"}},
		{"bad_delivery_type", `{"account_number":"1001","delivery_type":"fax","schedule":{"rule":"immediately"}}`, []string{"delivery_type"}},
		{"wrong_types", `{"account_number":1001,"delivery_type":true,"name":[],"schedule":"now"}`, []string{"account_number", "delivery_type", "name", "schedule"}},
		{"from_not_a_phone", `{"account_number":"1001","delivery_type":"sms","from":"1x5550101001","contact":"+15555550123","message_text":"x","schedule":{"rule":"immediately"}}`, []string{"from"}},
		{"bad_phone", `{"account_number":"1001","delivery_type":"sms","from":"5550101001","contact":"call me","message_text":"x","schedule":{"rule":"immediately"}}`, []string{"contact"}},
		{"bad_email", `{"account_number":"1001","delivery_type":"email","contact":"nobody","message_text":"x","from_email":"also bad","schedule":{"rule":"immediately"}}`, []string{"contact", "from_email"}},
		{"sms_too_long", `{"account_number":"1001","delivery_type":"sms","from":"5550101001","contact":"+15555550123","message_text":"` + strings.Repeat("a", answerdesk.MaxSMSLength+1) + `","schedule":{"rule":"immediately"}}`, []string{"message_text"}},
		{"bad_rule", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"tomorrow"}}`, []string{"schedule.rule"}},
		{"today_without_times", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"today"}}`, []string{"schedule.times"}},
		{"bad_time", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"today","times":["25:00"]}}`, []string{"schedule.times"}},
		{"signed_time", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"today","times":["+9:30"]}}`, []string{"schedule.times"}},
		{"sms_length_counts_characters", `{"account_number":"1001","delivery_type":"sms","from":"5550101001","contact":"+15555550123","message_text":"` + strings.Repeat("é", answerdesk.MaxSMSLength+1) + `","schedule":{"rule":"immediately"}}`, []string{"message_text"}},
		{"recurring_without_frequency", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"times":["09:00"]}}`, []string{"schedule.frequency"}},
		{"weekly_bad_day", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"weekly","days":["funday"],"times":["09:00"]}}`, []string{"schedule.days"}},
		{"weekly_without_days", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"weekly","times":["09:00"]}}`, []string{"schedule.days"}},
		{"monthly_day_32", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"monthly","days":[32],"times":["09:00"]}}`, []string{"schedule.days"}},
		{"interval_zero", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","interval":0,"times":["09:00"]}}`, []string{"schedule.interval"}},
		// Header lines of the email (the name is the subject of an email without one).
		{"line_breaks_in_header_fields", `{"account_number":"1001","delivery_type":"email","contact":"a@b.example","message_text":"hi","from_email":"x@acme.example","name":"a\nb","sender_name":"Office\r\nBcc: x@evil.example","subject":"hi\r\nBcc: x@evil.example","schedule":{"rule":"immediately"}}`, []string{"name", "sender_name", "subject"}},
		{"frequency_with_rule", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately","frequency":"daily"}}`, []string{"schedule.frequency"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := answerdesk.ParseToDoCreate([]byte(tc.body))
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if got.DeliveryType == "sms" && (got.Contact != "+15555550123" || got.From != "5550101001") {
					t.Fatalf("normalisation: contact %q from %q", got.Contact, got.From)
				}
				if got.DeliveryType == "call" && (got.From != "" || got.MessageText != "") {
					t.Fatalf("call keeps fields of other channels: %+v", got)
				}
				if got.DeliveryType == "email" && got.FromEmail != "x@acme.example" {
					t.Fatalf("from_email %q", got.FromEmail)
				}
				return
			}
			e, ok := err.(*answerdesk.Error)
			if !ok || e.Code != answerdesk.EINVALID {
				t.Fatalf("err %v", err)
			}
			for _, f := range tc.fields {
				found := false
				for _, fe := range e.Fields {
					found = found || fe.Field == f
				}
				if !found {
					t.Errorf("no error for %s in %+v", f, e.Fields)
				}
			}
		})
	}
}

func TestSMSFromIsNormalised(t *testing.T) {
	for in, want := range map[string]string{"+1 555-010-1001": "5550101001", "(555) 010-1001": "5550101001", "+442071838750": "+442071838750"} {
		got, err := answerdesk.ParseToDoCreate([]byte(`{"account_number":"1001","delivery_type":"sms","from":"` + in + `","contact":"+15555550123","message_text":"x","schedule":{"rule":"immediately"}}`))
		if err != nil || got.From != want {
			t.Errorf("from %q: got %q, %v; want %q", in, got.From, err, want)
		}
	}
}

func TestSMSLengthCountsCharacters(t *testing.T) {
	body := `{"account_number":"1001","delivery_type":"sms","from":"5550101001","contact":"+15555550123","message_text":"` +
		strings.Repeat("é", answerdesk.MaxSMSLength) + `","schedule":{"rule":"immediately"}}`
	if _, err := answerdesk.ParseToDoCreate([]byte(body)); err != nil {
		t.Fatalf("%d two-byte characters rejected: %v", answerdesk.MaxSMSLength, err)
	}
}
