package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/answerdesk/answerdesk"
)

// rowLayout is a domain type read as a table row: one column a field, named by the field's
// json tag. The API's name of a field is its column's name, so a field added to the type
// (and to the table, by a migration) is read with no column or scan list to edit.
type rowLayout struct {
	columns []string
	fields  []int // field indexes, in column order
}

// layoutOf reads the layout of struct type T: every field with a json name.
func layoutOf[T any]() rowLayout {
	t := reflect.TypeFor[T]()
	var l rowLayout
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		l.columns = append(l.columns, name)
		l.fields = append(l.fields, i)
	}
	return l
}

// list is the columns for a SELECT, each prefixed with the table alias.
func (l rowLayout) list(alias string) string {
	return alias + "." + strings.Join(l.columns, ", "+alias+".")
}

// targets are the Scan destinations of the fields of the struct dst points to, in column
// order. Times are stored as Unix milliseconds and JSON as text, so those fields are read
// through converters.
func (l rowLayout) targets(dst any) []any {
	v := reflect.ValueOf(dst).Elem()
	out := make([]any, len(l.fields))
	for i, f := range l.fields {
		switch p := v.Field(f).Addr().Interface().(type) {
		case *answerdesk.Time:
			out[i] = msTime{p}
		case **answerdesk.Time:
			out[i] = msTimePtr{p}
		case *json.RawMessage:
			out[i] = rawJSON{p}
		default:
			out[i] = p
		}
	}
	return out
}

// msTime reads a Unix-milliseconds column into a Time (fromMS).
type msTime struct{ dst *answerdesk.Time }

func (s msTime) Scan(src any) error {
	ms, ok := src.(int64)
	if !ok {
		return fmt.Errorf("time column holds %T, want Unix milliseconds", src)
	}
	*s.dst = fromMS(ms)
	return nil
}

// msTimePtr reads a nullable Unix-milliseconds column into a *Time (msPtr).
type msTimePtr struct{ dst **answerdesk.Time }

func (s msTimePtr) Scan(src any) error {
	if src == nil {
		*s.dst = nil
		return nil
	}
	ms, ok := src.(int64)
	if !ok {
		return fmt.Errorf("time column holds %T, want Unix milliseconds", src)
	}
	*s.dst = msPtr(&ms)
	return nil
}

// rawJSON reads a JSON text column as it is stored.
type rawJSON struct{ dst *json.RawMessage }

func (s rawJSON) Scan(src any) error {
	switch b := src.(type) {
	case string:
		*s.dst = json.RawMessage(b)
	case []byte:
		*s.dst = json.RawMessage(string(b)) // the driver may reuse b
	default:
		return fmt.Errorf("JSON column holds %T, want text", src)
	}
	return nil
}
