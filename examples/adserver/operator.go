package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

// operatorClient is a small client of adcamp's operator listener
// (openapi-operator.yaml): requests signed like the Open API's, with an
// operator key.
type operatorClient struct {
	base, key, secret string
	env               string
	http              *http.Client
}

// Keyword is a servable keyword as the feed shows it.
type Keyword struct {
	KeywordID   string      `json:"keyword_id"`
	Text        string      `json:"text"`
	MatchType   string      `json:"match_type"`
	Bid         json.Number `json:"bid"`
	AdGroupID   string      `json:"ad_group_id"`
	CampaignID  string      `json:"campaign_id"`
	AccountID   string      `json:"account_id"`
	Marketplace string      `json:"marketplace"`
	BudgetDaily json.Number `json:"budget_daily"`
}

// Negative is an active negative keyword: exact (the whole search is its
// text) or phrase (its words appear in the search, in order, together).
// It applies to the keywords of its scope: an ad group's (scope_id the ad
// group), a campaign's, or a shared list's (the keywords of the campaigns
// the list is attached to: CampaignLists).
type Negative struct {
	NegativeID string `json:"negative_id"`
	Scope      string `json:"scope"` // ad_group, campaign or list
	ScopeID    string `json:"scope_id"`
	Text       string `json:"text"`
	MatchType  string `json:"match_type"`
}

// CampaignLists is the shared lists attached to a campaign.
type CampaignLists struct {
	CampaignID string   `json:"campaign_id"`
	ListIDs    []string `json:"list_ids"`
}

// Change is one change of the feed: an upsert of a keyword, a negative
// or a campaign's lists, or the removal of one (by its id).
type Change struct {
	Op              string         `json:"op"`
	Keyword         *Keyword       `json:"keyword"`
	KeywordID       string         `json:"keyword_id"`
	Negative        *Negative      `json:"negative"`
	NegativeID      string         `json:"negative_id"`
	CampaignLists   *CampaignLists `json:"campaign_lists"`
	CampaignListsOf string         `json:"campaign_lists_of"`
}

// DeliveryRow is what was served of one keyword in one hour (running
// totals: a row replaces what was sent before for its hour).
type DeliveryRow struct {
	KeywordID   string      `json:"keyword_id"`
	Hour        string      `json:"hour"`
	Impressions int64       `json:"impressions"`
	Clicks      int64       `json:"clicks"`
	Cost        json.Number `json:"cost"`
	Orders      int64       `json:"orders"`
	Sales       json.Number `json:"sales"`
}

func (c *operatorClient) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	signing.SignRequest(req, signing.SchemeB, c.key, c.secret, body, time.Now())
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMultiStatus {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp, nil
}

// Snapshot reads every record of the feed (servable keywords, negatives,
// campaigns' lists), each as an upsert, and the position it reflects.
func (c *operatorClient) Snapshot(ctx context.Context, fn func(Change)) (string, error) {
	resp, err := c.do(ctx, "GET", "/operator/v1/serving/snapshot?environment="+c.env, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Keyword
			Negative      *Negative      `json:"negative"`
			CampaignLists *CampaignLists `json:"campaign_lists"`
			Position      string         `json:"position"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return "", err
		}
		switch {
		case line.Position != "":
			return line.Position, nil
		case line.Negative != nil:
			fn(Change{Op: "upsert", Negative: line.Negative})
		case line.CampaignLists != nil:
			fn(Change{Op: "upsert", CampaignLists: line.CampaignLists})
		default:
			fn(Change{Op: "upsert", Keyword: &line.Keyword})
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the snapshot was cut short (no position line): take another")
}

// Changes long-polls the changes after position (an answer holds at most
// 1,000 of them: the server's default limit; ask again from its position).
func (c *operatorClient) Changes(ctx context.Context, after string, wait time.Duration) ([]Change, string, error) {
	q := url.Values{"environment": {c.env}, "after": {after}, "wait": {wait.String()}}
	resp, err := c.do(ctx, "GET", "/operator/v1/serving/changes?"+q.Encode(), nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var a struct {
		Data struct {
			Changes  []Change `json:"changes"`
			Position string   `json:"position"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return nil, "", err
	}
	return a.Data.Changes, a.Data.Position, nil
}

// Deliver posts delivery rows, whole or nothing.
func (c *operatorClient) Deliver(ctx context.Context, rows []DeliveryRow) error {
	for len(rows) > 0 {
		n := min(len(rows), 10000)
		body, err := json.Marshal(map[string]any{"items": rows[:n]})
		if err != nil {
			return err
		}
		resp, err := c.do(ctx, "POST", "/operator/v1/delivery?environment="+c.env, body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		rows = rows[n:]
	}
	return nil
}
