package sqlite

import (
	"fmt"

	"github.com/adcamp/adcamp"
)

// Column scanners. database/sql stores a TEXT column into a *string
// directly, but an INTEGER into an *int64 by reflection, and its sql.Null*
// types go the same way; these take the driver's value with a type switch.
// A list reads a dozen columns of every row, so this shows in its profile.

// intCol scans an INTEGER column that is never NULL.
type intCol int64

func (c *intCol) Scan(v any) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("sqlite: scan %T into an integer", v)
	}
	*c = intCol(n)
	return nil
}

// nullInt scans an INTEGER column that may be NULL.
type nullInt struct {
	n     int64
	valid bool
}

func (c *nullInt) Scan(v any) error {
	switch v := v.(type) {
	case int64:
		*c = nullInt{v, true}
	case nil:
		*c = nullInt{}
	default:
		return fmt.Errorf("sqlite: scan %T into an integer", v)
	}
	return nil
}

// nullText scans a TEXT column that may be NULL, which reads as "".
type nullText string

func (c *nullText) Scan(v any) error {
	switch v := v.(type) {
	case string:
		*c = nullText(v)
	case []byte:
		*c = nullText(v)
	case nil:
		*c = ""
	default:
		return fmt.Errorf("sqlite: scan %T into a text", v)
	}
	return nil
}

// rowScanner is what a row is scanned from: *sql.Row, *sql.Rows, or a
// wrapper of them.
type rowScanner interface{ Scan(dest ...any) error }

// scanDate reads a stored date: "" (NULL) is the zero date.
func scanDate(t nullText) (adcamp.Date, error) {
	if t == "" {
		return adcamp.Date{}, nil
	}
	d, err := adcamp.ParseDate(string(t))
	if err != nil {
		return d, fmt.Errorf("sqlite: stored date %q: %w", string(t), err)
	}
	return d, nil
}
