package operatorapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// TestKeywordLineMatchesEncodingJSON: a snapshot's keyword line is what
// a json.Encoder writes for the keyword, for texts of every kind, with
// and without channel account and dates.
func TestKeywordLineMatchesEncodingJSON(t *testing.T) {
	texts := []string{"running shoes", "", `a "quoted" \ word`, "<b>&amp;</b>", "tab\there\nnew", "\u2028\u2029", "caf\xe9", "日本語 キーワード", "\x00\x1f\x7f"}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 500 {
		ch := int64(rng.Int64N(1 << 40))
		k := &service.FeedKeyword{ID: "kw_" + texts[i%len(texts)], Text: texts[rng.IntN(len(texts))], MatchType: adcamp.MatchPhrase,
			Bid: adcamp.Money(rng.Int64N(1 << 30)), AdGroupID: "ag_1", CampaignID: "cmp_1", AccountID: "acc_1", Marketplace: texts[rng.IntN(len(texts))],
			BudgetDaily: adcamp.Money(rng.Int64N(1<<40) - 5)}
		if i%2 == 0 {
			k.ChannelAccountID = &ch
		}
		if i%3 == 0 {
			k.StartDate = adcamp.Date{Year: 2026, Month: 11, Day: 1 + rng.IntN(28)}
		}
		if i%5 == 0 {
			k.EndDate = adcamp.Date{Year: 2027, Month: 1, Day: 2}
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(toKeywordJSON(k)); err != nil {
			t.Fatal(err)
		}
		if got := appendKeywordLine(nil, k); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("keyword line\n got %s\nwant %s", got, want.Bytes())
		}
	}
}
