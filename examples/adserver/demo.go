package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"

	"github.com/adcamp/adcamp/client"
)

// demo is what -demo prepared.
type demo struct {
	operatorKey, operatorSecret string
	api                         *client.Client
}

// adcamp runs an admin command of adcamp on dataDir (the adcamp binary if
// it is on PATH, else go run ./cmd/adcamp) and decodes its --json output.
func adcamp(ctx context.Context, dataDir string, v any, args ...string) error {
	args = append(args, "--json", "--data-dir", dataDir)
	var cmd *exec.Cmd
	if path, err := exec.LookPath("adcamp"); err == nil {
		cmd = exec.CommandContext(ctx, path, args...)
	} else {
		cmd = exec.CommandContext(ctx, "go", append([]string{"run", "./cmd/adcamp"}, args...)...)
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("adcamp %s: %w", strings.Join(args, " "), err)
	}
	return json.Unmarshal(out, v)
}

// prepareDemo makes an operator key, an account with a sandbox key, and
// three sandbox campaigns with budgets of 1, 2 and 5 dollars, each with
// an ad group of keywords.
func prepareDemo(ctx context.Context, dataDir, apiURL string) (*demo, error) {
	var op struct {
		Key    string `json:"api_key"`
		Secret string `json:"api_secret"`
	}
	if err := adcamp(ctx, dataDir, &op, "operator-keys", "create", "--name", "adserver demo"); err != nil {
		return nil, err
	}
	var acc struct {
		ID string `json:"id"`
	}
	if err := adcamp(ctx, dataDir, &acc, "accounts", "create", "--name", "Demo shop"); err != nil {
		return nil, err
	}
	var key struct {
		Key    string `json:"api_key"`
		Secret string `json:"api_secret"`
	}
	if err := adcamp(ctx, dataDir, &key, "keys", "create", "--account", acc.ID, "--env", "sandbox"); err != nil {
		return nil, err
	}
	api, err := client.New(key.Key, key.Secret, client.WithBaseURL(apiURL+"/api/v1/open"))
	if err != nil {
		return nil, err
	}
	for i, budget := range []int64{100, 200, 500} {
		c, err := api.CreateCampaign(ctx, client.CampaignCreate{Name: fmt.Sprintf("Demo campaign %d", i+1),
			BudgetDaily: client.Cents(budget), Marketplace: "US"}, nil)
		if err != nil {
			return nil, err
		}
		g, err := api.CreateAdGroup(ctx, c.ID, client.AdGroupCreate{Name: "Shoes", DefaultBid: client.Cents(25 + int64(i)*10)}, nil)
		if err != nil {
			return nil, err
		}
		var kws []client.KeywordCreate
		for _, t := range []string{"running shoes", "trail shoes", "shoe laces", "sneakers", "sandals"} {
			kws = append(kws, client.KeywordCreate{Text: t, MatchType: client.MatchType("phrase")})
		}
		if _, err := api.CreateKeywords(ctx, g.ID, kws, nil); err != nil {
			return nil, err
		}
	}
	log.Printf("demo: account %s with 3 sandbox campaigns (budgets 1.00, 2.00, 5.00); operator key %s", acc.ID, op.Key)
	return &demo{operatorKey: op.Key, operatorSecret: op.Secret, api: api}, nil
}

// status prints each campaign's spend today and serving status.
func (d *demo) status(ctx context.Context) {
	page, err := d.api.ListCampaigns(ctx, nil)
	if err != nil {
		log.Printf("campaigns: %v", err)
		return
	}
	for _, c := range page.Items {
		log.Printf("  %-18s budget %6s  spent today %6s  %s", c.Name, c.BudgetDaily, c.SpendToday, c.ServingStatus)
	}
}
