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
	// HTML escapes <, > and & as \u003c, \u003e and \u0026.
	HTML bool
	// ShortBF writes backspace and form feed as \b and \f rather than
	// \u0008 and \u000c.
	ShortBF bool
}

// The two escapings the server needs.
var (
	// EncodingJSON is encoding/json's: HTML-safe, \b and \f.
	EncodingJSON = Escaping{HTML: true, ShortBF: true}
	// Slog is log/slog's JSONHandler's.
	Slog = Escaping{}
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string, escaped as e says.
// Both escapings escape quotes, backslashes, control characters, U+2028
// and U+2029, and replace invalid UTF-8 with \ufffd.
func AppendString(b []byte, s string, e Escaping) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!e.HTML || (c != '<' && c != '>' && c != '&')) {
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
			case c == '\b' && e.ShortBF:
				b = append(b, '\\', 'b')
			case c == '\f' && e.ShortBF:
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
