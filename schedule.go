package answerdesk

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// Schedule rules and frequencies of To Dos (the To Dos docs page).
const (
	ScheduleImmediately = "immediately"
	ScheduleToday       = "today"
	FrequencyDaily      = "daily"
	FrequencyWeekly     = "weekly"
	FrequencyMonthly    = "monthly"
)

// DefaultTimeZone is the time zone of an account that names none.
const DefaultTimeZone = "America/New_York"

// Clock is a wall-clock time of day.
type Clock struct{ Hour, Minute int }

// ParseClock parses "HH:MM" (or "H:MM") from 00:00 to 23:59.
func ParseClock(s string) (Clock, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	digits := func(x string) bool {
		return x != "" && strings.Trim(x, "0123456789") == ""
	}
	hour, err1 := strconv.Atoi(h)
	minute, err2 := strconv.Atoi(m)
	if !ok || !digits(h) || !digits(m) || err1 != nil || err2 != nil || len(h) > 2 || len(m) != 2 || hour > 23 || minute > 59 {
		return Clock{}, fmt.Errorf("%s is not a time HH:MM", Quote(s))
	}
	return Clock{hour, minute}, nil
}

func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// MaxSkippedRecorded bounds how many missed occurrences are recorded one by one after a
// long outage; the rest are counted.
const MaxSkippedRecorded = 100

// maxUntilYears is how far ahead a recurring schedule's until may be.
const maxUntilYears = 100

// Plan is a validated schedule that computes its occurrences. Its Rule is what is stored
// and shown as schedule.rule; PlanFromRule rebuilds the same Plan from it.
type Plan struct {
	Rule  map[string]any
	Times []string

	kind  string
	start time.Time   // the first instant the plan may fire (creation or the last schedule change)
	at    []time.Time // fixed occurrences (immediately, today), ascending
	rules []*rrule.RRule
	// dtstart is the recurrence's DTSTART (local midnight of the day the schedule was set);
	// the rules are rebased from it to a later period start before each query (rebase).
	dtstart time.Time
	loc     *time.Location
	// skip holds the local dates (YYYY-MM-DD) on which no occurrence fires (skip_dates).
	skip map[string]bool
	// last is the final occurrence of a schedule with a count (zero without one): RFC 5545
	// counts COUNT before EXDATEs remove anything, so skipped dates use up the count too.
	last time.Time
}

// Recurrence bounds (the To Dos docs page, RFC 5545 UNTIL/COUNT and EXDATE-like skip dates).
const (
	MaxScheduleCount = 1000
	MaxSkipDates     = 366
	// UpcomingOccurrences is how many future occurrences schedule.upcoming shows.
	UpcomingOccurrences = 5
)

// NewPlan validates a schedule input against the account's time zone and the current time,
// and returns its plan. Field errors are named schedule.<field>.
func NewPlan(in ScheduleInput, now time.Time, loc *time.Location) (*Plan, error) {
	var v ValidationErrors
	p := &Plan{kind: in.Rule, start: now.Truncate(time.Millisecond), Times: in.Times, loc: loc}
	if p.Times == nil {
		p.Times = []string{}
	}
	switch in.Rule {
	case ScheduleImmediately:
		p.at = []time.Time{p.start}
		p.Rule = map[string]any{"rule": ScheduleImmediately, "tz": loc.String()}
	case ScheduleToday:
		local := now.In(loc)
		for _, s := range in.Times {
			c, err := ParseClock(s)
			if err != nil {
				v.Add("schedule.times", err.Error())
				continue
			}
			t := time.Date(local.Year(), local.Month(), local.Day(), c.Hour, c.Minute, 0, 0, loc)
			if !t.After(now) {
				v.Add("schedule.times", fmt.Sprintf("%s has already passed today in %s (it is %s there)", s, loc, local.Format("15:04")))
				continue
			}
			p.at = append(p.at, t)
		}
		slices.SortFunc(p.at, func(a, b time.Time) int { return a.Compare(b) })
		p.at = slices.CompactFunc(p.at, func(a, b time.Time) bool { return a.Equal(b) })
		p.Rule = map[string]any{"rule": ScheduleToday, "tz": loc.String(), "date": local.Format("2006-01-02"), "times": p.Times}
	case "":
		interval := 1
		if in.Interval != nil {
			interval = *in.Interval
		}
		local := now.In(loc)
		dtstart := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
		lines, err := recurrenceRules(in, interval, loc)
		if err != nil {
			v.Add("schedule.times", err.Error())
			break
		}
		p.Rule = map[string]any{
			"rrule": strings.Join(lines, "\n"), "tz": loc.String(), "dtstart": dtstart.Format("2006-01-02T15:04:05"),
			"frequency": in.Frequency, "interval": interval, "times": p.Times,
		}
		if len(in.Weekdays) > 0 {
			names := make([]string, len(in.Weekdays))
			for i, d := range in.Weekdays {
				names[i] = strings.ToLower(d.String())
			}
			p.Rule["days"] = names
		}
		if len(in.MonthDays) > 0 {
			p.Rule["days"] = in.MonthDays
		}
		if in.Until != "" {
			p.Rule["until"] = in.Until
			switch {
			case in.Until < local.Format(time.DateOnly):
				v.Add("schedule.until", fmt.Sprintf("%s is before today in %s", in.Until, loc))
			case in.Until > local.AddDate(maxUntilYears, 0, 0).Format(time.DateOnly):
				// Beyond that an RRULE's UNTIL can pass year 9999 in UTC, which no one can parse.
				v.Add("schedule.until", fmt.Sprintf("%s is more than %d years away; leave until out for a schedule with no end", in.Until, maxUntilYears))
			}
		}
		if in.Count != nil {
			p.Rule["count"] = *in.Count
		}
		if len(in.SkipDates) > 0 {
			p.Rule["skip_dates"] = in.SkipDates
		}
		if v.Has("schedule.until") {
			break
		}
		if err := p.compile(lines, dtstart, loc); err != nil {
			return nil, err
		}
		p.bound(in.Count, in.SkipDates)
		if _, ok := p.First(); !ok && !v.Has("schedule.until") {
			v.Add("schedule", "has no occurrence from now on: check days, until, count and skip_dates")
		}
	default:
		v.Add("schedule.rule", `must be "immediately" or "today", or left out for a recurring schedule`)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// recurrenceRules returns the RFC 5545 RRULE values of a recurring schedule: one per
// distinct minute of its times, since BYHOUR x BYMINUTE would otherwise cross-multiply
// (09:30 and 17:00 are not 09:00, 09:30, 17:00 and 17:30).
func recurrenceRules(in ScheduleInput, interval int, loc *time.Location) ([]string, error) {
	var until time.Time // UNTIL: the end of the until date in the account's time zone
	if in.Until != "" {
		d, err := time.ParseInLocation(time.DateOnly, in.Until, loc)
		if err != nil {
			return nil, fmt.Errorf("until %s: %w", Quote(in.Until), err)
		}
		until = d.AddDate(0, 0, 1).Add(-time.Second)
	}
	byMinute := map[int][]int{}
	var minutes []int
	for _, s := range in.Times {
		c, err := ParseClock(s)
		if err != nil {
			return nil, err
		}
		if _, ok := byMinute[c.Minute]; !ok {
			minutes = append(minutes, c.Minute)
		}
		byMinute[c.Minute] = append(byMinute[c.Minute], c.Hour)
	}
	slices.Sort(minutes)
	var lines []string
	for _, m := range minutes {
		o := rrule.ROption{Interval: interval, Byminute: []int{m}, Bysecond: []int{0}, Until: until}
		hours := byMinute[m]
		slices.Sort(hours)
		o.Byhour = slices.Compact(hours)
		switch in.Frequency {
		case FrequencyDaily:
			o.Freq = rrule.DAILY
		case FrequencyWeekly:
			o.Freq = rrule.WEEKLY
			days := slices.Clone(in.Weekdays)
			slices.Sort(days)
			for _, d := range days {
				o.Byweekday = append(o.Byweekday, []rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[d])
			}
		case FrequencyMonthly:
			o.Freq = rrule.MONTHLY
			o.Bymonthday = slices.Sorted(slices.Values(in.MonthDays))
		default:
			return nil, fmt.Errorf("unknown frequency %q", in.Frequency)
		}
		lines = append(lines, o.RRuleString())
	}
	return lines, nil
}

func (p *Plan) compile(lines []string, dtstart time.Time, loc *time.Location) error {
	p.dtstart = dtstart
	for _, line := range lines {
		o, err := rrule.StrToROptionInLocation(line, loc)
		if err != nil {
			return fmt.Errorf("parse rrule %q: %w", line, err)
		}
		o.Dtstart = dtstart
		r, err := rrule.NewRRule(*o)
		if err != nil {
			return fmt.Errorf("build rrule %q: %w", line, err)
		}
		p.rules = append(p.rules, r)
	}
	return nil
}

// bound applies the count and skip dates of a recurring plan (until is in its RRULEs).
func (p *Plan) bound(count *int, skipDates []string) {
	if len(skipDates) > 0 {
		p.skip = make(map[string]bool, len(skipDates))
		for _, d := range skipDates {
			p.skip[d] = true
		}
	}
	if count == nil {
		return
	}
	// The last of the first count occurrences from the start bounds the plan; the rules
	// may end (until) before count is reached.
	n := 0
	if *count > 0 {
		for at := range p.merged(p.start) {
			p.last = at
			if n++; n == *count {
				break
			}
		}
	}
	if p.last.IsZero() {
		p.last = p.start.Add(-time.Millisecond) // no occurrence at all
	}
}

// PlanFromRule rebuilds the plan of a stored schedule rule; start is the To Do's creation.
func PlanFromRule(rule map[string]any, times []string, start time.Time) (*Plan, error) {
	str := func(k string) string { s, _ := rule[k].(string); return s }
	loc, err := time.LoadLocation(str("tz"))
	if err != nil {
		return nil, fmt.Errorf("schedule time zone %q: %w", str("tz"), err)
	}
	p := &Plan{Rule: rule, Times: times, kind: str("rule"), start: start, loc: loc}
	switch p.kind {
	case ScheduleImmediately:
		p.at = []time.Time{start}
	case ScheduleToday:
		day, err := time.ParseInLocation("2006-01-02", str("date"), loc)
		if err != nil {
			return nil, fmt.Errorf("schedule date: %w", err)
		}
		for _, s := range times {
			c, err := ParseClock(s)
			if err != nil {
				return nil, err
			}
			p.at = append(p.at, time.Date(day.Year(), day.Month(), day.Day(), c.Hour, c.Minute, 0, 0, loc))
		}
		slices.SortFunc(p.at, func(a, b time.Time) int { return a.Compare(b) })
	case "":
		dtstart, err := time.ParseInLocation("2006-01-02T15:04:05", str("dtstart"), loc)
		if err != nil {
			return nil, fmt.Errorf("schedule dtstart: %w", err)
		}
		if err := p.compile(strings.Split(str("rrule"), "\n"), dtstart, loc); err != nil {
			return nil, err
		}
		var count *int
		if n, ok := rule["count"].(float64); ok { // decoded from JSON
			c := int(n)
			count = &c
		} else if n, ok := rule["count"].(int); ok {
			count = &n
		}
		var skip []string
		switch x := rule["skip_dates"].(type) {
		case []any:
			for _, d := range x {
				if s, ok := d.(string); ok {
					skip = append(skip, s)
				}
			}
		case []string:
			skip = x
		}
		p.bound(count, skip)
	default:
		return nil, fmt.Errorf("unknown schedule rule %q", p.kind)
	}
	return p, nil
}

// Start is the first instant the plan may fire: the creation of its To Do.
func (p *Plan) Start() time.Time { return p.start }

// First returns the plan's first occurrence, or false when it has none.
func (p *Plan) First() (time.Time, bool) {
	return p.next(p.start, true)
}

// Next returns the first occurrence strictly after t, or false when there is none.
func (p *Plan) Next(t time.Time) (time.Time, bool) {
	return p.next(t, false)
}

func (p *Plan) next(t time.Time, inclusive bool) (time.Time, bool) {
	if p.rules == nil {
		for _, at := range p.at {
			if at.After(t) || (inclusive && at.Equal(t)) {
				return at, true
			}
		}
		return time.Time{}, false
	}
	// Skipped dates are stepped over; the loop ends because skip dates are finite and each
	// step moves strictly forward.
	for range 100_000 {
		p.rebase(t)
		var best time.Time
		for _, r := range p.rules {
			at := r.After(t, inclusive)
			if !at.IsZero() && (best.IsZero() || at.Before(best)) {
				best = at
			}
		}
		if best.IsZero() || !p.within(best) {
			return time.Time{}, false
		}
		if !p.skipped(best) {
			return best, true
		}
		t, inclusive = best, false
	}
	return time.Time{}, false
}

// rebase moves each rule's DTSTART to the start of the latest period (of its frequency,
// every interval periods from the original DTSTART) that begins at or before t. The
// occurrences from t on are the same, but rrule-go walks every period from DTSTART on each
// query, so without this a year-old weekly To Do cost milliseconds per read.
func (p *Plan) rebase(t time.Time) {
	for _, r := range p.rules {
		if target := p.periodStart(r.OrigOptions, t); !target.Equal(r.OrigOptions.Dtstart) {
			r.DTStart(target)
		}
	}
}

// periodStart is the local start of the latest period of o's frequency that begins at or
// before t, counted in whole intervals from p.dtstart; p.dtstart itself within the first.
func (p *Plan) periodStart(o rrule.ROption, t time.Time) time.Time {
	d0, lt := p.dtstart, t.In(p.loc)
	iv := max(o.Interval, 1)
	days := func(a, b time.Time) int { // calendar days from a's date to b's
		ua := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
		ub := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
		return int(ub.Sub(ua).Hours() / 24)
	}
	switch o.Freq {
	case rrule.DAILY:
		if k := days(d0, lt) / iv * iv; k > 0 {
			return time.Date(d0.Year(), d0.Month(), d0.Day()+k, 0, 0, 0, 0, p.loc)
		}
	case rrule.WEEKLY: // weeks start on Monday (WKST=MO, RFC 5545's default)
		monday := time.Date(d0.Year(), d0.Month(), d0.Day()-(int(d0.Weekday())+6)%7, 0, 0, 0, 0, p.loc)
		if k := days(monday, lt) / 7 / iv * iv; k > 0 {
			return time.Date(monday.Year(), monday.Month(), monday.Day()+7*k, 0, 0, 0, 0, p.loc)
		}
	case rrule.MONTHLY:
		months := (lt.Year()-d0.Year())*12 + int(lt.Month()) - int(d0.Month())
		if k := months / iv * iv; k > 0 {
			return time.Date(d0.Year(), d0.Month()+time.Month(k), 1, 0, 0, 0, 0, p.loc)
		}
	}
	return d0
}

// within reports whether t is not past the plan's count.
func (p *Plan) within(t time.Time) bool { return p.last.IsZero() || !t.After(p.last) }

// skipped reports whether t falls on one of the plan's skip dates (in its time zone).
func (p *Plan) skipped(t time.Time) bool {
	return p.skip != nil && p.skip[t.In(p.loc).Format(time.DateOnly)]
}

// Upcoming returns up to n occurrences from 'from' on (from included), in order.
func (p *Plan) Upcoming(from time.Time, n int) []time.Time {
	var out []time.Time
	if p.rules == nil {
		for at, ok := p.next(from, true); ok && len(out) < n; at, ok = p.Next(at) {
			out = append(out, at)
		}
		return out
	}
	// One pass over each rule's iterator: every After call would walk the rule again from
	// its DTSTART.
	p.rebase(from)
	steps := 0
	for at := range p.merged(from) {
		if len(out) >= n || steps >= 100_000 || !p.within(at) {
			break
		}
		steps++
		if !p.skipped(at) {
			out = append(out, at)
		}
	}
	return out
}

// merged yields the occurrences of the plan's rules from 'from' on (from included), in
// order, merging the rules' iterators: one pass over each, however many it yields. It
// ignores count and skip dates. The rules hold distinct minutes, so no two yield one
// instant.
func (p *Plan) merged(from time.Time) iter.Seq[time.Time] {
	return func(yield func(time.Time) bool) {
		type head struct {
			next func() (time.Time, bool)
			at   time.Time
			ok   bool
		}
		heads := make([]*head, len(p.rules))
		for i, r := range p.rules {
			h := &head{next: r.Iterator()}
			for h.at, h.ok = h.next(); h.ok && h.at.Before(from); h.at, h.ok = h.next() {
			}
			heads[i] = h
		}
		for {
			var best *head
			for _, h := range heads {
				if h.ok && (best == nil || h.at.Before(best.at)) {
					best = h
				}
			}
			if best == nil || !yield(best.at) {
				return
			}
			best.at, best.ok = best.next()
		}
	}
}

// Due splits the occurrences from next (an occurrence not yet sent) up to now: the latest
// one is due and the earlier ones were missed. Missed occurrences are returned up to
// MaxSkippedRecorded (oldest first) with their total count.
func (p *Plan) Due(next, now time.Time) (due time.Time, skipped []time.Time, skippedCount int) {
	due = next
	var between []time.Time
	if p.rules == nil {
		for _, at := range p.at {
			if !at.Before(next) && !at.After(now) {
				between = append(between, at)
			}
		}
	} else {
		p.rebase(next)
		for _, r := range p.rules {
			for _, at := range r.Between(next, now, true) {
				if p.within(at) && !p.skipped(at) {
					between = append(between, at)
				}
			}
		}
		slices.SortFunc(between, func(a, b time.Time) int { return a.Compare(b) })
		between = slices.CompactFunc(between, func(a, b time.Time) bool { return a.Equal(b) })
	}
	if len(between) == 0 {
		return due, nil, 0
	}
	due = between[len(between)-1]
	missed := between[:len(between)-1]
	return due, missed[:min(len(missed), MaxSkippedRecorded)], len(missed)
}
