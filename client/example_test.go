package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/adcamp/adcamp/client"
)

func ExampleNew() {
	c, err := client.New("ak_test_4f9kq2xwz8mhv3nd7rjt5ybc", "sk_test_9wQz3X7nLr2VbK8mHc4TfJ6pYd1SgA5e",
		client.WithBaseURL(client.SandboxURL))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c) // the secret is never shown
	// Output:
	// client.Client{BaseURL: http://127.0.0.1:8081/api/v1/open/, APIKey: ak_test_4f9kq2xwz8mhv3nd7rjt5ybc, Secret: [REDACTED], Scheme: A}
}

// The examples below call a running server: set ADCAMP_BASE_URL,
// ADCAMP_API_KEY and ADCAMP_API_SECRET to try them. go test compiles them
// but does not run them; internal/sdktest (in the server's module) tests
// the same calls against the real API.

// newClient makes a client from the environment, as a program would.
func newClient() *client.Client {
	c, err := client.New(os.Getenv("ADCAMP_API_KEY"), os.Getenv("ADCAMP_API_SECRET"),
		client.WithBaseURL(os.Getenv("ADCAMP_BASE_URL")))
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// A campaign, an ad group in it, and a batch of keywords in that.
func Example_campaignTree() {
	ctx := context.Background()
	c := newClient()
	cmp, err := c.CreateCampaign(ctx, client.CampaignCreate{
		Name: "Spring sale", BudgetDaily: client.USD("25"), Marketplace: "US",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	ag, err := c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Shoes", DefaultBid: client.USD("0.75")}, nil)
	if err != nil {
		log.Fatal(err)
	}
	kws, err := c.CreateKeywords(ctx, ag.ID, []client.KeywordCreate{
		{Text: "red shoes", MatchType: client.MatchExact},
		{Text: "running shoes", MatchType: client.MatchBroad, Bid: client.USD("1.10")},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s, %s USD a day\n", cmp.Name, cmp.Status, cmp.BudgetDaily)
	fmt.Printf("%s: default bid %s\n", ag.Name, ag.DefaultBid)
	for _, k := range kws {
		fmt.Printf("%s (%s), own bid %s\n", k.Text, k.MatchType, k.Bid)
	}
}

func ExampleClient_AllCampaigns() {
	ctx := context.Background()
	c := newClient()
	for _, name := range []string{"Iter A", "Iter B", "Iter C"} {
		_, err := c.CreateCampaign(ctx, client.CampaignCreate{Name: name, BudgetDaily: client.USD("5"), Marketplace: "DE"}, nil)
		if err != nil {
			log.Fatal(err)
		}
	}
	var names []string
	for cmp, err := range c.AllCampaigns(ctx, nil) { // every page, 100 at a time
		if err != nil {
			log.Fatal(err)
		}
		if strings.HasPrefix(cmp.Name, "Iter ") {
			names = append(names, cmp.Name)
		}
	}
	slices.Sort(names)
	fmt.Println(names)
}

func ExampleIsDuplicateKeyword() {
	ctx := context.Background()
	c := newClient()
	cmp, err := c.CreateCampaign(ctx, client.CampaignCreate{Name: "Errors", BudgetDaily: client.USD("5"), Marketplace: "FR"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	ag, err := c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Streets", DefaultBid: client.USD("0.20")}, nil)
	if err != nil {
		log.Fatal(err)
	}
	kw := client.KeywordCreate{Text: "Straße", MatchType: client.MatchExact}
	if _, err := c.CreateKeyword(ctx, ag.ID, kw, nil); err != nil {
		log.Fatal(err)
	}
	kw.Text = "STRASSE" // the same text, ignoring case
	_, err = c.CreateKeyword(ctx, ag.ID, kw, nil)
	fmt.Println(client.IsDuplicateKeyword(err), client.IsConflict(err))

	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Code, e.Details[0].Field)
	}
	_, err = c.GetCampaign(ctx, "cmp_01m7q5cqg06b8994h5jr7na6t9")
	fmt.Println(client.IsNotFound(err))
}

func ExampleNull() {
	clear := client.CampaignUpdate{EndDate: client.Null[client.Date]()}
	set := client.KeywordUpdate{Bid: client.Set(client.USD("0.9")), Status: client.Ptr(client.StatusPaused)}
	for _, u := range []any{clear, set, client.CampaignUpdate{}} {
		b, _ := json.Marshal(u)
		fmt.Println(string(b))
	}
	// Output:
	// {"end_date":null}
	// {"bid":0.90,"status":"paused"}
	// {}
}

func ExampleUSD() {
	budget := client.USD("12.5")
	fmt.Println(budget, budget.Cents(), client.Cents(7))
	// Output: 12.50 1250 0.07
}
