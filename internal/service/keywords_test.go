package service_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// A batch's keywords share one creation time; their ids keep the order
// they were given in, so a list (newest first) shows the batch reversed,
// the same every time, as if each had been created after the one before.
func TestKeywordBatchListsInItsOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, _ := f.setup()
	tenant := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	_, g, _ := f.tree(tenant)
	var items []adcamp.KeywordInput
	var want []string
	for i := range 40 {
		text := fmt.Sprintf("blue shoes %02d", i)
		items = append(items, adcamp.KeywordInput{Text: adcamp.Some(text), MatchType: adcamp.Some(adcamp.MatchExact)})
		want = append(want, text)
	}
	res, err := f.svc.CreateKeywords(admin, tenant, g, items, service.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res); i++ {
		if res[i-1].Keyword.ID >= res[i].Keyword.ID {
			t.Fatalf("item %d has id %s, not after item %d's %s", i, res[i].Keyword.ID, i-1, res[i-1].Keyword.ID)
		}
	}
	page, err := f.svc.ListKeywords(admin, tenant, g, adcamp.KeywordFilter{MatchType: adcamp.MatchExact, Page: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range page.Items {
		got = append(got, k.Text)
	}
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Errorf("list = %q\nwant the batch reversed: %q", got, want)
	}
}
