package httpapi

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// jsonAppender is a response shape that writes its own JSON, byte for byte
// what encoding/json would write for it, without reflection. The hot
// answers (campaigns, and lists of them) implement it; writeJSON uses it
// when it can. TestAppendJSONMatchesEncodingJSON holds the two together.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

func (c campaignJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"budget_daily":`...)
	b = c.BudgetDaily.AppendText(b)
	b = append(b, `,"marketplace":`...)
	b = appendJSONString(b, c.Marketplace)
	b = append(b, `,"channel_account_id":`...)
	if c.ChannelAccountID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *c.ChannelAccountID, 10)
	}
	b = append(b, `,"start_date":`...)
	b = c.StartDate.appendJSON(b)
	b = append(b, `,"end_date":`...)
	b = c.EndDate.appendJSON(b)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(c.Status))
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, c.Version, 10)
	b = append(b, `,"created_at":`...)
	b = c.CreatedAt.appendJSON(b)
	b = append(b, `,"updated_at":`...)
	b = c.UpdatedAt.appendJSON(b)
	return append(b, '}')
}

func (l listJSON[T]) appendJSON(b []byte) []byte {
	b = append(b, `{"items":[`...)
	for i := range l.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAny(b, &l.Items[i]) // a pointer: boxing an item would copy it to the heap
	}
	b = append(b, `],"page":`...)
	b = strconv.AppendInt(b, int64(l.Page), 10)
	b = append(b, `,"page_size":`...)
	b = strconv.AppendInt(b, int64(l.PageSize), 10)
	b = append(b, `,"total_items":`...)
	b = strconv.AppendInt(b, l.TotalItems, 10)
	b = append(b, `,"total_pages":`...)
	b = strconv.AppendInt(b, l.TotalPages, 10)
	return append(b, '}')
}

// appendAny appends v's JSON: its own if it has it, else encoding/json's.
func appendAny(b []byte, v any) []byte {
	if a, ok := v.(jsonAppender); ok {
		return a.appendJSON(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(err) // our response types always encode; see writeJSON
	}
	return append(b, out...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it: HTML-sensitive characters, U+2028 and U+2029 escaped, and
// invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
