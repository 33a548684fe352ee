package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ReportMetrics are summed delivery figures. The ratios are decimal
// strings of fixed digits (CTR, ConversionRate, ACOS and ROAS with 6
// decimals, as fractions; CPC in dollars with 4), computed exactly by the
// server, and nil where their denominator is 0.
type ReportMetrics struct {
	Impressions    int64   `json:"impressions"`
	Clicks         int64   `json:"clicks"`
	Cost           Money   `json:"cost"`
	Orders         int64   `json:"orders"`
	Sales          Money   `json:"sales"`
	CTR            *string `json:"ctr"`
	CPC            *string `json:"cpc"`
	ConversionRate *string `json:"conversion_rate"`
	ACOS           *string `json:"acos"`
	ROAS           *string `json:"roas"`
}

// ReportRow is one row of a performance report: an entity of the
// report's level with what is above it, its date (daily and hourly
// reports, the account's day) and hour (hourly), and its figures. A
// deleted entity's row has its last names and Deleted.
type ReportRow struct {
	Date         Date      `json:"date,omitzero"`
	Hour         time.Time `json:"hour,omitzero"`
	CampaignID   string    `json:"campaign_id"`
	CampaignName string    `json:"campaign_name"`
	AdGroupID    string    `json:"ad_group_id,omitzero"`
	AdGroupName  string    `json:"ad_group_name,omitzero"`
	KeywordID    string    `json:"keyword_id,omitzero"`
	KeywordText  string    `json:"keyword_text,omitzero"`
	MatchType    string    `json:"match_type,omitzero"`
	// Status is the entity's status now, "deleted" when it is gone.
	Status  string `json:"status"`
	Deleted bool   `json:"deleted"`
	ReportMetrics
}

// ReportPage is one page of a performance report. Totals (of every row,
// not just the page's) come with the first page only.
type ReportPage struct {
	Level       string         `json:"level"`
	Granularity string         `json:"granularity"`
	From        Date           `json:"from"`
	To          Date           `json:"to"`
	TimeZone    string         `json:"time_zone"`
	Items       []ReportRow    `json:"items"`
	Totals      *ReportMetrics `json:"totals"`
	NextCursor  string         `json:"next_cursor"`
}

// ReportOptions are a performance report's parameters; zero values
// leave each to the server's default (level campaign, granularity
// summary, the last 7 days of the account).
type ReportOptions struct {
	Level       string // campaign, ad_group, keyword
	Granularity string // summary, day, hour
	From, To    Date   // the account's days, both included
	CampaignID  string
	AdGroupID   string
	Status      string // active, paused, ended, deleted
	Sort        string // a metric, "-cost" for descending
	Limit       int    // 1 to 1000; the server's default (100) if zero
	Cursor      string // a page's NextCursor
}

func (o *ReportOptions) values() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	for name, v := range map[string]string{"level": o.Level, "granularity": o.Granularity, "campaign_id": o.CampaignID,
		"ad_group_id": o.AdGroupID, "status": o.Status, "sort": o.Sort, "cursor": o.Cursor} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !o.From.IsZero() {
		q.Set("from", o.From.String())
	}
	if !o.To.IsZero() {
		q.Set("to", o.To.String())
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q
}

// PerformanceReport returns one page of a performance report of the
// key's account and environment.
func (c *Client) PerformanceReport(ctx context.Context, opts *ReportOptions) (*ReportPage, error) {
	return call[ReportPage](ctx, c, op{method: http.MethodGet, path: "reports/performance", query: opts.values()})
}

// maxReportLimit is the largest page of a report the API gives.
const maxReportLimit = 1000

// PerformanceRows iterates over every row of a performance report, a
// page of opts.Limit (1000 if zero) at a time from opts.Cursor. If totals
// is not nil, it is set to the report's totals when the first page
// arrives. An error is yielded once, and ends the iteration.
func (c *Client) PerformanceRows(ctx context.Context, opts *ReportOptions, totals *ReportMetrics) iter.Seq2[ReportRow, error] {
	o := ReportOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Limit == 0 {
		o.Limit = maxReportLimit
	}
	return func(yield func(ReportRow, error) bool) {
		for {
			p, err := c.PerformanceReport(ctx, &o)
			if err != nil {
				yield(ReportRow{}, err)
				return
			}
			if totals != nil && p.Totals != nil {
				*totals = *p.Totals
			}
			for _, r := range p.Items {
				if !yield(r, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			o.Cursor = p.NextCursor
		}
	}
}
