package httpapi

import (
	"net/http"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Performance reports (docs/reports.md).

// reportParams are GET /reports/performance's query parameters.
var reportParams = []string{"level", "granularity", "from", "to", "campaign_id", "ad_group_id", "status", "sort", "limit", "cursor"}

// reportMetricsJSON are a row's (or the totals') figures: money as money,
// the ratios as decimal strings of fixed digits, null where their
// denominator is 0.
type reportMetricsJSON struct {
	Impressions    int64        `json:"impressions"`
	Clicks         int64        `json:"clicks"`
	Cost           adcamp.Money `json:"cost"`
	Orders         int64        `json:"orders"`
	Sales          adcamp.Money `json:"sales"`
	CTR            *string      `json:"ctr"`
	CPC            *string      `json:"cpc"`
	ConversionRate *string      `json:"conversion_rate"`
	ACOS           *string      `json:"acos"`
	ROAS           *string      `json:"roas"`
}

// reportRowJSON is a row: what is above the level's entity, the entity,
// its date (daily and hourly) and hour (hourly), and its figures.
type reportRowJSON struct {
	Date         string           `json:"date,omitempty"`
	Hour         string           `json:"hour,omitempty"`
	CampaignID   string           `json:"campaign_id"`
	CampaignName string           `json:"campaign_name"`
	AdGroupID    string           `json:"ad_group_id,omitempty"`
	AdGroupName  string           `json:"ad_group_name,omitempty"`
	KeywordID    string           `json:"keyword_id,omitempty"`
	KeywordText  string           `json:"keyword_text,omitempty"`
	MatchType    adcamp.MatchType `json:"match_type,omitempty"`
	Status       string           `json:"status"`
	Deleted      bool             `json:"deleted"`
	reportMetricsJSON
}

// reportJSON is a page of a report.
type reportJSON struct {
	Level       string             `json:"level"`
	Granularity string             `json:"granularity"`
	From        string             `json:"from"`
	To          string             `json:"to"`
	TimeZone    string             `json:"time_zone"`
	Items       []reportRowJSON    `json:"items"`
	Totals      *reportMetricsJSON `json:"totals"`
	NextCursor  *string            `json:"next_cursor"`
}

func optRatio(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// ReportMetricsJSON writes m as the API does (for the report jobs' files
// too).
func toReportMetricsJSON(m service.ReportMetrics) reportMetricsJSON {
	return reportMetricsJSON{
		Impressions: m.Impressions, Clicks: m.Clicks, Cost: m.Cost, Orders: m.Orders, Sales: m.Sales,
		CTR: optRatio(m.CTR()), CPC: optRatio(m.CPC()), ConversionRate: optRatio(m.ConversionRate()),
		ACOS: optRatio(m.ACOS()), ROAS: optRatio(m.ROAS()),
	}
}

func toReportRowJSON(r *service.ReportRow) reportRowJSON {
	j := reportRowJSON{
		CampaignID: r.CampaignID, CampaignName: r.CampaignName, AdGroupID: r.AdGroupID, AdGroupName: r.AdGroupName,
		KeywordID: r.KeywordID, KeywordText: r.KeywordText, MatchType: r.MatchType, Status: r.Status, Deleted: r.Deleted,
		reportMetricsJSON: toReportMetricsJSON(r.ReportMetrics),
	}
	if !r.Date.IsZero() {
		j.Date = r.Date.String()
	}
	if !r.Hour.IsZero() {
		j.Hour = r.Hour.Format(time.RFC3339)
	}
	return j
}

// reportQuery reads a report's parameters.
func reportQuery(r *http.Request) (service.ReportQuery, error) {
	q := parseQuery(r, reportParams...)
	rq := service.ReportQuery{
		Level: q.str("level"), Granularity: q.str("granularity"), CampaignID: q.str("campaign_id"), AdGroupID: q.str("ad_group_id"),
		Status: q.str("status"), Sort: q.str("sort"), Limit: q.int("limit", service.DefaultReportLimit), Cursor: q.str("cursor"),
	}
	if rq.Limit == 0 {
		rq.Limit = -1 // present and 0: out of range, not the default
	}
	if _, ok := q.values["level"]; !ok {
		q.issues.AddKind("level", adcamp.IssueRequired, "", "is required: campaign, ad_group or keyword")
	}
	for _, d := range []struct {
		name string
		dst  *adcamp.Date
	}{{"from", &rq.From}, {"to", &rq.To}} {
		s := q.str(d.name)
		if s == "" {
			continue // the service says it is required
		}
		v, err := adcamp.ParseDate(s)
		if err != nil {
			q.issues.AddKind(d.name, adcamp.IssueNotDate, "", "must be a date written YYYY-MM-DD")
			continue
		}
		*d.dst = v
	}
	if err := q.issues.Err(); err != nil {
		return rq, err
	}
	return rq, nil
}

func (s *Server) performanceReport(w http.ResponseWriter, r *http.Request, c *call) error {
	rq, err := reportQuery(r)
	if err != nil {
		return err
	}
	page, err := s.svc.PerformanceReport(r.Context(), c.tenant, rq)
	if err != nil {
		return err
	}
	out := reportJSON{Level: rq.Level, Granularity: rq.Granularity, From: page.From.String(), To: page.To.String(),
		TimeZone: page.TimeZone, Items: make([]reportRowJSON, len(page.Rows))}
	if out.Granularity == "" {
		out.Granularity = service.GranularitySum
	}
	for i, row := range page.Rows {
		out.Items[i] = toReportRowJSON(row)
	}
	if page.Totals != nil {
		t := toReportMetricsJSON(*page.Totals)
		out.Totals = &t
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	writeData(w, http.StatusOK, out)
	return nil
}
