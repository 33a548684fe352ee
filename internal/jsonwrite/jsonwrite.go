// Package jsonwrite appends JSON strings to byte slices without
// reflection, escaped exactly as one of the standard library's encoders
// escapes them. It is the one JSON string escaper of the server: the API's
// hand-written answers (internal/httpapi) write strings as encoding/json
// does, and the access log (internal/jsonlog) as log/slog's JSONHandler
// does, and each is held to its reference by a fuzz test here.
package jsonwrite

import "unicode/utf8"

// Escaping says which encoder's output a string must match.
type Escaping struct {
	// plain tells, for each ASCII byte, whether it is written as it is: a
	// table rather than tests in the loop, because most strings are plain
	// ASCII from end to end.
	plain *[utf8.RuneSelf]bool
	// shortBF writes backspace and form feed as \b and \f rather than
	// \u0008 and \u000c.
	shortBF bool
}

// The two escapings the server needs.
var (
	// EncodingJSON is encoding/json's: HTML-safe (<, > and & escaped as
	// \u003c, \u003e and \u0026), \b and \f.
	EncodingJSON = Escaping{plain: plainTable(true), shortBF: true}
	// Slog is log/slog's JSONHandler's.
	Slog = Escaping{plain: plainTable(false)}
)

const hexDigits = "0123456789abcdef"

func plainTable(html bool) *[utf8.RuneSelf]bool {
	var t [utf8.RuneSelf]bool
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&'))
	}
	return &t
}

// AppendString appends s as a quoted JSON string, escaped as e says.
// Both escapings escape quotes, backslashes, control characters, U+2028
// and U+2029, and replace invalid UTF-8 with \ufffd.
func AppendString(b []byte, s string, e Escaping) []byte {
	safe := e.plain
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '\\' || c == '"':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b' && e.shortBF:
				b = append(b, '\\', 'b')
			case c == '\f' && e.shortBF:
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
