package answerdesk

import (
	"fmt"
	"regexp"
	"time"
)

// TimeLayout is how every timestamp is written: ISO 8601, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Time is an instant that encodes as TimeLayout. Optional timestamps are *Time, so an
// absent value encodes as null.
type Time struct{ time.Time }

// NewTime returns t truncated to milliseconds in UTC, the precision the API stores.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Millisecond)} }

// TimePtr is NewTime for optional fields; the zero time gives nil.
func TimePtr(t time.Time) *Time {
	if t.IsZero() {
		return nil
	}
	v := NewTime(t)
	return &v
}

// MarshalJSON writes the TimeLayout form.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimeLayout) + `"`), nil
}

// UnmarshalJSON reads any RFC 3339 time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("time: want a JSON string, got %s", b)
	}
	v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return err
	}
	*t = NewTime(v)
	return nil
}

// String returns the TimeLayout form.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// DatePattern is the form of an MM-DD-YYYY date filter (ParseDate also wants a real date).
const DatePattern = `^[0-1][0-9]-[0-3][0-9]-[0-9]{4}$`

var datePattern = regexp.MustCompile(DatePattern)

// ParseDate parses an MM-DD-YYYY date filter as the first instant of that calendar day in
// UTC. The value must match the documented pattern and be a real date (02-30-2026 is not).
func ParseDate(s string) (time.Time, error) {
	if !datePattern.MatchString(s) {
		return time.Time{}, fmt.Errorf("must be a date in the form MM-DD-YYYY")
	}
	t, err := time.Parse("01-02-2006", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("is not a real calendar date")
	}
	if t.Year() < 1970 {
		// Queries hold bounds as Unix milliseconds with 0 for "none": no date before 1970
		// can hold a message anyway, and 12-31-1969 would otherwise read as no bound.
		return time.Time{}, fmt.Errorf("must be 01-01-1970 or later")
	}
	return t, nil
}

// DateRange turns optional MM-DD-YYYY start and end filters into a half-open interval
// [since, until) of whole UTC days, both ends inclusive as days, in Unix milliseconds as
// queries hold them: 0 means unbounded (ParseDate refuses dates before 1970). Field errors
// are added to v under the given field names.
func DateRange(v *ValidationErrors, startField, start, endField, end string) (since, until int64) {
	if start != "" {
		t, err := ParseDate(start)
		if err != nil {
			v.Add(startField, err.Error())
		} else {
			since = t.UnixMilli()
		}
	}
	if end != "" {
		t, err := ParseDate(end)
		if err != nil {
			v.Add(endField, err.Error())
		} else {
			until = t.AddDate(0, 0, 1).UnixMilli()
		}
	}
	if since != 0 && until != 0 && since >= until {
		v.Add(startField, "must not be after "+endField)
	}
	return since, until
}
