package operatorapi

import (
	"encoding/json"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// A delivery request's rows read in one pass over the body, without a
// json.Decoder per row (which was a sixth of the ingest's time,
// bench/notes/2026-11-27-operator-speed.md). The pass reads the shapes an
// ad server sends: {"items": [ {field: string | number | null, ...}, ... ]}
// with field names as documented and strings without escapes. Anything
// else takes the slow path, which decides as before: a row it cannot read
// is read again by decodeRow, and a body it cannot read by decodeDelivery
// as a whole, so that answers (errors included) are the same either way.
// TestFastDeliveryDecoding holds the two together.

// fastDecodeDelivery returns the rows of body, or ok false when the body
// must be read by the slow path.
func fastDecodeDelivery(body []byte) (items []service.DeliveryItem, ok bool) {
	p := scanner{b: body}
	if !p.byte('{') || !p.literal(`"items"`) || !p.byte(':') || !p.byte('[') {
		return nil, false
	}
	items = make([]service.DeliveryItem, 0, min(service.MaxDeliveryBatch, len(body)/64+1))
	p.space()
	if p.peek() == ']' {
		p.i++
	} else {
		for {
			if len(items) == service.MaxDeliveryBatch {
				return nil, false // too many: the slow path says so
			}
			start := p.skipSpace()
			item, rowOK := p.row()
			if !rowOK {
				// Read the row again the slow way, if it is JSON at all.
				p.i = start
				if !p.value() {
					return nil, false
				}
				item = decodeRow(json.RawMessage(body[start:p.i]))
			}
			items = append(items, item)
			p.space()
			if p.peek() == ',' {
				p.i++
				continue
			}
			if !p.byte(']') {
				return nil, false
			}
			break
		}
	}
	if !p.byte('}') {
		return nil, false
	}
	p.space()
	return items, p.i == len(p.b)
}

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *scanner) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) skipSpace() int {
	p.space()
	return p.i
}

// byte reads c after white space.
func (p *scanner) byte(c byte) bool {
	p.space()
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// literal reads s after white space.
func (p *scanner) literal(s string) bool {
	p.space()
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// plainString reads a string without escapes or control characters,
// returning its contents.
func (p *scanner) plainString() ([]byte, bool) {
	if p.peek() != '"' {
		return nil, false
	}
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[p.i+1 : j]
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false // escapes, and UTF-8 to check: the slow path
		}
	}
	return nil, false
}

// number reads a JSON number, returning its text and whether it is a
// plain integer (no fraction nor exponent).
func (p *scanner) number() (text []byte, integer, ok bool) {
	j := p.i
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	switch {
	case j < len(p.b) && p.b[j] == '0':
		j++
	case j < len(p.b) && p.b[j] >= '1' && p.b[j] <= '9':
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
	default:
		return nil, false, false
	}
	integer = true
	if j < len(p.b) && p.b[j] == '.' {
		integer = false
		j++
		k := j
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false, false
		}
	}
	if j < len(p.b) && (p.b[j] == 'e' || p.b[j] == 'E') {
		integer = false
		j++
		if j < len(p.b) && (p.b[j] == '+' || p.b[j] == '-') {
			j++
		}
		k := j
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false, false
		}
	}
	text = p.b[p.i:j]
	p.i = j
	return text, integer, true
}

// value skips one JSON value of any kind, checking its syntax.
func (p *scanner) value() bool {
	p.space()
	switch c := p.peek(); {
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		p.i++
		p.space()
		if p.peek() == end {
			p.i++
			return true
		}
		for {
			if c == '{' {
				p.space()
				if !p.str() || !p.byte(':') {
					return false
				}
			}
			if !p.value() {
				return false
			}
			p.space()
			switch p.peek() {
			case ',':
				p.i++
			case end:
				p.i++
				return true
			default:
				return false
			}
		}
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := p.number()
		return ok
	default:
		return p.literal("true") || p.literal("false") || p.literal("null")
	}
}

// str skips a string, checking its escapes (not its UTF-8: encoding/json
// takes bad UTF-8 too).
func (p *scanner) str() bool {
	if p.peek() != '"' {
		return false
	}
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '\\':
			j++
			if j >= len(p.b) {
				return false
			}
			switch p.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p.b) {
					return false
				}
				for _, h := range p.b[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		case c == '"':
			p.i = j + 1
			return true
		case c < 0x20:
			return false
		}
	}
	return false
}

// row reads one row of the shapes the fast path knows, as decodeRow
// would.
func (p *scanner) row() (in service.DeliveryItem, ok bool) {
	if !p.byte('{') {
		return in, false
	}
	p.space()
	if p.peek() == '}' {
		p.i++
		return in, true
	}
	for {
		p.space()
		key, ok := p.plainString()
		if !ok || !p.byte(':') {
			return in, false
		}
		p.space()
		var text []byte
		var integer, isNull, isString bool
		switch c := p.peek(); {
		case c == '"':
			if text, ok = p.plainString(); !ok {
				return in, false
			}
			isString = true
		case c == 'n':
			if !p.literal("null") {
				return in, false
			}
			isNull = true
		case c == '-' || (c >= '0' && c <= '9'):
			if text, integer, ok = p.number(); !ok {
				return in, false
			}
		default:
			return in, false
		}
		switch string(key) {
		case "keyword_id", "hour":
			if !isString && !isNull {
				return in, false // the slow path words the error
			}
			if isString {
				if key[0] == 'k' {
					in.KeywordID = string(text)
				} else {
					in.Hour = string(text)
				}
			} else if key[0] == 'k' {
				in.KeywordID = ""
			} else {
				in.Hour = ""
			}
		case "impressions", "clicks", "orders":
			dst := &in.Impressions
			switch key[0] {
			case 'c':
				dst = &in.Clicks
			case 'o':
				dst = &in.Orders
			}
			switch {
			case isNull:
				*dst = adcamp.Optional[int64]{}
			case isString || !integer:
				return in, false
			default:
				n, ok := parseInt(text)
				if !ok {
					return in, false
				}
				*dst = adcamp.Some(n)
			}
		case "cost", "sales":
			dst := &in.Cost
			if key[0] == 's' {
				dst = &in.Sales
			}
			switch {
			case isNull:
				*dst = adcamp.Optional[string]{}
			case isString:
				return in, false
			default:
				*dst = adcamp.Some(string(text))
			}
		default:
			return in, false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return in, true
		default:
			return in, false
		}
	}
}

// parseInt reads a JSON integer's text into an int64, false on overflow.
func parseInt(s []byte) (int64, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) > 18 {
		return 0, false // may overflow: the slow path decides
	}
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
