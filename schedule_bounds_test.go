package answerdesk

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPlanBounds: until, count and skip_dates bound a recurring plan, in the account's
// time zone, and a plan rebuilt from its stored rule gives the same occurrences.
func TestPlanBounds(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC) // Friday 10:00 in New York
	for _, tc := range []struct {
		name, schedule string
		want           []string // the upcoming occurrences, UTC
	}{
		{"until_is_inclusive_local_date", `{"frequency":"daily","times":["09:00"],"until":"2026-11-23"}`,
			[]string{"2026-11-21T14:00Z", "2026-11-22T14:00Z", "2026-11-23T14:00Z"}},
		{"count_counts_from_now", `{"frequency":"daily","times":["09:00","11:00"],"count":3}`,
			[]string{"2026-11-20T16:00Z", "2026-11-21T14:00Z", "2026-11-21T16:00Z"}},
		{"skip_dates_are_stepped_over", `{"frequency":"weekly","days":["monday"],"times":["09:00"],"skip_dates":["2026-11-30","2026-12-07"]}`,
			[]string{"2026-11-23T14:00Z", "2026-12-14T14:00Z", "2026-12-21T14:00Z", "2026-12-28T14:00Z", "2027-01-04T14:00Z"}},
		{"skipped_dates_use_up_the_count", `{"frequency":"daily","times":["09:00"],"count":3,"skip_dates":["2026-11-22"]}`,
			[]string{"2026-11-21T14:00Z", "2026-11-23T14:00Z"}},
		{"upcoming_shows_five", `{"frequency":"weekly","days":["sunday"],"times":["09:00"],"until":"2027-03-21"}`,
			[]string{"2026-11-22T14:00Z", "2026-11-29T14:00Z", "2026-12-06T14:00Z", "2026-12-13T14:00Z", "2026-12-20T14:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v ValidationErrors
			in := parseScheduleInput(&v, json.RawMessage(tc.schedule))
			if err := v.Err(); err != nil {
				t.Fatal(err)
			}
			p, err := NewPlan(in, now, ny)
			if err != nil {
				t.Fatal(err)
			}
			first, _ := p.First()
			check := func(p *Plan, what string) {
				var got []string
				for _, at := range p.Upcoming(first, UpcomingOccurrences) {
					got = append(got, at.UTC().Format("2006-01-02T15:04Z"))
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Fatalf("%s: upcoming %v, want %v", what, got, tc.want)
				}
			}
			check(p, "new plan")
			raw, _ := json.Marshal(p.Rule) // as stored
			var rule map[string]any
			_ = json.Unmarshal(raw, &rule)
			again, err := PlanFromRule(rule, p.Times, p.Start())
			if err != nil {
				t.Fatal(err)
			}
			check(again, "plan from the stored rule")
		})
	}
	t.Run("summer_time", func(t *testing.T) {
		var v ValidationErrors
		in := parseScheduleInput(&v, json.RawMessage(`{"frequency":"daily","times":["09:00"]}`))
		p, err := NewPlan(in, time.Date(2027, 3, 12, 15, 0, 0, 0, time.UTC), ny)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := p.First()
		up := p.Upcoming(first, 3) // 13 March EST, 14 and 15 March EDT
		if up[0].UTC().Hour() != 14 || up[1].UTC().Hour() != 13 || up[2].UTC().Hour() != 13 {
			t.Fatalf("upcoming %v", up)
		}
	})
}

// BenchmarkPlanUpcoming measures what every To Do read pays for schedule.upcoming: a
// stored rule rebuilt and its next five occurrences, for a schedule a year old.
func BenchmarkPlanUpcoming(b *testing.B) {
	ny, _ := time.LoadLocation("America/New_York")
	start := time.Date(2025, 11, 20, 15, 0, 0, 0, time.UTC)
	var v ValidationErrors
	in := parseScheduleInput(&v, json.RawMessage(`{"frequency":"weekly","days":["monday","thursday"],"times":["09:30","17:00"],"skip_dates":["2026-12-24"]}`))
	p, err := NewPlan(in, start, ny)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(p.Rule)
	var rule map[string]any
	_ = json.Unmarshal(raw, &rule)
	next := time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)
	for b.Loop() {
		q, err := PlanFromRule(rule, p.Times, start)
		if err != nil {
			b.Fatal(err)
		}
		if len(q.Upcoming(next, UpcomingOccurrences)) != UpcomingOccurrences {
			b.Fatal("short")
		}
	}
}

// TestPlanRebaseKeepsOccurrences: the rebased rules (see Plan.rebase) give exactly the
// occurrences the rules give from their original DTSTART, for intervals above one, every
// frequency, and across daylight-saving changes.
func TestPlanRebaseKeepsOccurrences(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	start := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC) // a Friday
	end := start.AddDate(2, 0, 0)
	for _, sch := range []string{
		`{"frequency":"daily","interval":3,"times":["09:00","02:30"]}`,
		`{"frequency":"weekly","interval":2,"days":["monday","saturday"],"times":["09:30","17:00"]}`,
		`{"frequency":"weekly","interval":3,"days":["friday"],"times":["08:00"]}`,
		`{"frequency":"monthly","interval":5,"days":[1,31],"times":["10:00"]}`,
	} {
		t.Run(sch, func(t *testing.T) {
			var v ValidationErrors
			in := parseScheduleInput(&v, json.RawMessage(sch))
			p, err := NewPlan(in, start, ny)
			if err != nil {
				t.Fatal(err)
			}
			var want []time.Time // from fresh rules, never rebased
			fresh, _ := PlanFromRule(p.Rule, p.Times, start)
			for _, r := range fresh.rules {
				want = append(want, r.Between(start, end, true)...)
			}
			slices.SortFunc(want, func(a, b time.Time) int { return a.Compare(b) })
			var got []time.Time
			for at, ok := p.First(); ok && !at.After(end); at, ok = p.Next(at) {
				got = append(got, at)
			}
			if len(got) != len(want) {
				t.Fatalf("%d occurrences, want %d", len(got), len(want))
			}
			for i := range got {
				if !got[i].Equal(want[i]) {
					t.Fatalf("occurrence %d: %v, want %v", i, got[i], want[i])
				}
			}
			// And asked from any moment, not only from an occurrence.
			for at := start; at.Before(end); at = at.Add(13 * time.Hour) {
				var ref time.Time
				for _, r := range fresh.rules {
					if x := r.After(at, false); !x.IsZero() && (ref.IsZero() || x.Before(ref)) {
						ref = x
					}
				}
				if next, _ := p.Next(at); !next.Equal(ref) {
					t.Fatalf("next after %v: %v, want %v", at, next, ref)
				}
			}
		})
	}
}

// parseScheduleInput decodes and validates a schedule object, as a create body's is.
func parseScheduleInput(v *ValidationErrors, b json.RawMessage) ScheduleInput {
	var in ScheduleRequest
	if _, ok := decodeRequest(b, &in); !ok {
		v.Add("schedule", "must be an object")
		return ScheduleInput{}
	}
	return scheduleInput(v, &in)
}
