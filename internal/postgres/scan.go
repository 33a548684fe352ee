package postgres

// rowText gathers the text columns of one row as pgx hands them over, so
// that they become one string, one allocation, that the row's fields share
// (text). pgx gives a pgtype.BytesScanner the column's bytes in its own
// read buffer, without copying them (a *string destination costs an
// allocation a column). Reused from row to row: reset before each.
type rowText struct {
	buf  []byte
	cols []textCol
}

// textCol is a scan destination of rowText: its column's place in buf.
type textCol struct {
	rt         *rowText
	start, end int
	null       bool
}

// newRowText returns a rowText of n columns.
func newRowText(n int) *rowText {
	rt := &rowText{cols: make([]textCol, n)}
	for i := range rt.cols {
		rt.cols[i].rt = rt
	}
	return rt
}

// ScanBytes implements pgtype.BytesScanner. v is nil for NULL.
func (c *textCol) ScanBytes(v []byte) error {
	c.null = v == nil
	c.start = len(c.rt.buf)
	c.rt.buf = append(c.rt.buf, v...)
	c.end = len(c.rt.buf)
	return nil
}

// reset makes rt ready for the next row.
func (rt *rowText) reset() { rt.buf = rt.buf[:0] }

// text returns the row's columns as one string; column i is
// s[cols[i].start:cols[i].end] (see col).
func (rt *rowText) text() string { return string(rt.buf) }

// col returns column i of the row whose text s is: "" for NULL, and
// whether it was NULL.
func (rt *rowText) col(s string, i int) (string, bool) {
	c := &rt.cols[i]
	return s[c.start:c.end], c.null
}
