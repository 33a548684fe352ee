package operatorapi

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestFastDeliveryDecoding: a delivery body reads the same through the
// one-pass reader as through encoding/json, rows, row problems and body
// errors alike, for bodies of every shape and for random damage to them.
func TestFastDeliveryDecoding(t *testing.T) {
	rows := []string{
		`{"keyword_id":"kw_01","hour":"2026-11-27T09:00:00Z","impressions":10,"clicks":2,"cost":1.25,"orders":0,"sales":19.99}`,
		` { "keyword_id" : "kw_02" , "hour" : "2026-11-27T09:00:00Z" , "impressions" : 0 } `,
		`{}`,
		`{"keyword_id":null,"hour":null,"impressions":null,"clicks":null,"cost":null,"orders":null,"sales":null}`,
		`{"keyword_id":5}`,
		`{"hour":true}`,
		`{"impressions":"10"}`,
		`{"impressions":1.5}`,
		`{"impressions":1e3}`,
		`{"impressions":-0}`,
		`{"impressions":-7}`,
		`{"impressions":123456789012345678901234}`,
		`{"clicks":999999999999999999}`,
		`{"cost":"1.25"}`,
		`{"cost":-1.5e2}`,
		`{"sales":0.001}`,
		`{"color":"red"}`,
		`{"Keyword_ID":"kw_03"}`,
		`{"keyword_id":"kw_\u0030"}`,
		`{"keyword_id":"kw_é"}`,
		`{"impressions":5,"impressions":null}`,
		`{"impressions":"x","impressions":5}`,
		`{"cost":1,"cost":2}`,
		`[1,2]`,
		`"row"`,
		`null`,
		`12`,
		`{"keyword_id":{"a":[1,"b"]}}`,
		`{"impressions":[1]}`,
	}
	bodies := []string{
		`{"items":[]}`,
		`{"items":null}`,
		`{}`,
		`[]`,
		``,
		`{"items":[` + rows[0] + `],"extra":1}`,
		`{"items":[` + rows[0] + `]} {}`,
		`{"items":[` + rows[0] + `]}` + "\n",
		`{"Items":[` + rows[0] + `]}`,
		`{"items":[` + rows[0] + `,]}`,
		`{"items":[01]}`,
		`{"items":[{"impressions":01}]}`,
		`{"items":[{"impressions":1.}]}`,
		`{"items":[{"impressions":nul}]}`,
		`{"items":[{"keyword_id":"a` + "\x01" + `"}]}`,
	}
	for _, r := range rows {
		bodies = append(bodies, `{"items":[`+r+`]}`)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + rng.IntN(6)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = rows[rng.IntN(len(rows))]
		}
		bodies = append(bodies, "\n{ \"items\" : [ "+strings.Join(parts, " ,\n")+" ] }\t")
	}
	for range 3000 {
		b := []byte(bodies[rng.IntN(len(bodies))])
		if len(b) == 0 {
			continue
		}
		switch i := rng.IntN(len(b)); rng.IntN(3) {
		case 0:
			b = append(b[:i:i], b[i+1:]...)
		case 1:
			const junk = `{}[],:"\ 0-.e9nx`
			b[i] = junk[rng.IntN(len(junk))]
		default:
			b = append(b[:i:i], append([]byte{`{}[],:" 1`[rng.IntN(9)]}, b[i:]...)...)
		}
		bodies = append(bodies, string(b))
	}
	for _, body := range bodies {
		got, gotErr := decodeDelivery([]byte(body))
		want, wantErr := slowDecodeDelivery([]byte(body))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("body %q:\nfast %v %+v\nslow %v %+v", body, gotErr, got, wantErr, want)
		}
	}
	// The fast path does take the rows an ad server sends.
	if _, ok := fastDecodeDelivery([]byte(`{"items":[` + rows[0] + `,` + rows[1] + `]}`)); !ok {
		t.Fatal("a plain body took the slow path")
	}
}
