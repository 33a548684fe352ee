package httpapi

// The strict decoding of a request body and the encoding of an answer are
// unexported steps of every request; these benchmarks time them alone
// (bench_test.go times whole requests). They name as few internals as they
// can: decodeBody, campaignInput, keywordItems, writeEntity, writeData,
// toListJSON and toCampaignJSON.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/adcamp/adcamp"
)

// BenchmarkDecode reads create bodies as the handlers do: media type,
// strict parse (one object, no duplicate names), fields into an input.
func BenchmarkDecode(b *testing.B) {
	r := httptest.NewRequest("POST", "/api/v1/open/campaigns", nil)
	r.Header.Set("Content-Type", "application/json")
	b.Run("Campaign", func(b *testing.B) {
		body := []byte(`{"name":"Spring Sale 2026","budget_daily":150.00,"marketplace":"US",` +
			`"start_date":"2026-12-01","end_date":"2026-12-31"}`)
		b.ReportAllocs()
		for b.Loop() {
			obj, err := decodeBody(r, body)
			if err != nil {
				b.Fatal(err)
			}
			if in := campaignInput(obj); obj.err() != nil || len(in.Invalid) > 0 {
				b.Fatalf("decoding %s: %v %v", body, obj.err(), in.Invalid)
			}
		}
	})
	b.Run("Keywords100", func(b *testing.B) {
		items := make([]string, 100)
		for i := range items {
			items[i] = fmt.Sprintf(`{"text":"running shoes %d","match_type":"broad","bid":1.10}`, i)
		}
		body := []byte(`{"items":[` + strings.Join(items, ",") + `]}`)
		b.ReportAllocs()
		for b.Loop() {
			if in, _, err := keywordItems(r, body); err != nil || len(in) != len(items) {
				b.Fatalf("keywordItems = %d items, %v; want %d, nil", len(in), err, len(items))
			}
		}
	})
}

// discard is a ResponseWriter that drops what is written.
type discard struct{ header http.Header }

func (w discard) Header() http.Header         { return w.header }
func (w discard) Write(p []byte) (int, error) { return len(p), nil }
func (w discard) WriteHeader(int)             {}

// BenchmarkEncode renders answers in their envelope: one campaign (get,
// create, update) and a page of 20 (list).
func BenchmarkEncode(b *testing.B) {
	created := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	end := adcamp.Date{Year: 2026, Month: 12, Day: 31}
	page := &adcamp.Page[*adcamp.Campaign]{Page: 1, PageSize: 20, TotalItems: 100}
	for i := range 20 {
		page.Items = append(page.Items, &adcamp.Campaign{
			ID: adcamp.NewID(adcamp.PrefixCampaign, created), Name: fmt.Sprintf("Spring sale %d", i), BudgetDaily: 2500,
			Marketplace: "US", EndDate: end, Status: adcamp.StatusActive, Version: 3, CreatedAt: created, UpdatedAt: created,
		})
	}
	w := discard{http.Header{}}
	b.Run("Campaign", func(b *testing.B) {
		c := page.Items[0]
		b.ReportAllocs()
		for b.Loop() {
			writeEntity(w, http.StatusOK, c.Version, toCampaignJSON(c))
		}
	})
	b.Run("Page20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeData(w, http.StatusOK, toListJSON(page, toCampaignJSON))
		}
	})
	// The same answers through the libraries, which jsonAppender is
	// measured against.
	type envelope struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
	}
	for _, lib := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"jsonv2", func(v any) ([]byte, error) { return jsonv2.Marshal(v) }}, {"encoding-json", json.Marshal}} {
		b.Run("Campaign/"+lib.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := lib.marshal(envelope{true, toCampaignJSON(page.Items[0])})
				if err != nil {
					b.Fatal(err)
				}
				writeBody(w, http.StatusOK, out)
			}
		})
		b.Run("Page20/"+lib.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := lib.marshal(envelope{true, toListJSON(page, toCampaignJSON)})
				if err != nil {
					b.Fatal(err)
				}
				writeBody(w, http.StatusOK, out)
			}
		})
	}
}
