package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
)

// The answers that write their own JSON must write what encoding/json
// writes for them, byte for byte.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	channel := int64(42)
	created := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	campaigns := []*adcamp.Campaign{
		{ID: "cmp_01", Name: "Spring sale", BudgetDaily: 2500, Marketplace: "US", Status: "active", Version: 1,
			CreatedAt: created, UpdatedAt: created},
		{ID: "cmp_02", Name: "<b>Tom & \"Jerry\"</b>\\ \n\t\r\b\f \x00\x1f \u2028\u2029 \xff\xfe 春のセール 🎉",
			BudgetDaily: 1, Marketplace: "JP", ChannelAccountID: &channel, StartDate: adcamp.Date{Year: 2026, Month: 12, Day: 1}, EndDate: adcamp.Date{Year: 2027, Month: 1, Day: 31},
			Status: "ended", Version: 1 << 40, CreatedAt: created, UpdatedAt: created.Add(time.Hour)},
	}
	for _, c := range campaigns {
		same(t, toCampaignJSON(c))
	}
	same(t, toListJSON(&adcamp.Page[*adcamp.Campaign]{Items: campaigns, Page: 3, PageSize: 2, TotalItems: 7}, toCampaignJSON))
	same(t, toListJSON(&adcamp.Page[*adcamp.Campaign]{Page: 9, PageSize: 20, TotalItems: 7}, toCampaignJSON))
}

func same(t *testing.T, v jsonAppender) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.appendJSON(nil); string(got) != string(want) {
		t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
	}
}

func TestTimeJSONMatchesFormat(t *testing.T) {
	t.Parallel()
	for _, tm := range []time.Time{
		time.Date(2026, 11, 22, 9, 30, 5, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("X", -7*3600)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(1<<31, 0),
	} {
		if got, want := timeJSON(tm), tm.UTC().Format("2006-01-02T15:04:05Z"); got != want {
			t.Errorf("timeJSON(%v) = %s, want %s", tm, got, want)
		}
	}
}
