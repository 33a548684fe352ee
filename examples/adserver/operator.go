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
	// Negatives are the negative keywords that apply to the keyword: a
	// search they match must not show it.
	Negatives []Negative `json:"negatives"`
}

// Negative is a negative keyword: exact (the whole search is its text)
// or phrase (its words appear in the search, in order, together).
type Negative struct {
	Text      string `json:"text"`
	MatchType string `json:"match_type"`
}

// Change is one change of the feed.
type Change struct {
	Op        string   `json:"op"`
	Keyword   *Keyword `json:"keyword"`
	KeywordID string   `json:"keyword_id"`
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

// Snapshot reads every servable keyword and the position it reflects.
func (c *operatorClient) Snapshot(ctx context.Context, fn func(Keyword)) (string, error) {
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
			Position string `json:"position"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return "", err
		}
		if line.Position != "" {
			return line.Position, nil
		}
		fn(line.Keyword)
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the snapshot was cut short (no position line): take another")
}

// Changes long-polls the changes after position.
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
