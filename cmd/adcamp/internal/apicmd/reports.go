package apicmd

import (
	"context"
	"encoding/csv"
	"strconv"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/reportcsv"
)

// reportsPerformance prints a performance report (every page) as a
// table, as CSV (--format csv) or as the API's JSON rows (--json).
func (c *cli) reportsPerformance(ctx context.Context, args []string) error {
	a := c.apiCommand("reports performance")
	query := reportFlags(a)
	format := a.fs.String("format", "table", "`FORMAT`: table or csv")
	if err := a.parse(args); err != nil {
		return err
	}
	o, err := query()
	if err != nil {
		return err
	}
	if *format != "table" && *format != "csv" {
		return usageError("--format must be table or csv, got %q", *format)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	var totals client.ReportMetrics
	rows := []client.ReportRow{}
	for r, err := range cl.PerformanceRows(ctx, &o, &totals) {
		if err != nil {
			return apiError(err)
		}
		rows = append(rows, r)
	}
	if a.json {
		return a.printJSON(struct {
			Items  []client.ReportRow   `json:"items"`
			Totals client.ReportMetrics `json:"totals"`
		}{rows, totals})
	}
	header, cells := reportColumns(o.Level, o.Granularity)
	if *format == "csv" {
		w := csv.NewWriter(a.c.stdout)
		w.Write(header)
		for _, r := range rows {
			rec := cells(r)
			for i, v := range rec {
				rec[i] = reportcsv.Defuse(v) // as the server defuses its csv.gz files
			}
			w.Write(rec)
		}
		w.Flush()
		return w.Error()
	}
	if len(rows) == 0 {
		return a.printf("No figures in this range.\n")
	}
	v := view[client.ReportRow]{noun: "row", plural: "rows", header: header, row: cells}
	if err := showTable(a, v, rows); err != nil {
		return err
	}
	return a.printf("%s. Totals: %d impressions, %d clicks, cost %s, %d orders, sales %s.\n",
		plural(int64(len(rows)), "row", "rows"), totals.Impressions, totals.Clicks, totals.Cost, totals.Orders, totals.Sales)
}

// reportFlags defines the flags of a report's parameters (those of
// reports performance and reports job create), and returns the function
// that reads them after parse.
func reportFlags(a *apiCommand) func() (client.ReportOptions, error) {
	var o client.ReportOptions
	a.fs.StringVar(&o.Level, "level", "campaign", "what a row sums: `LEVEL` campaign, ad_group or keyword")
	a.fs.StringVar(&o.Granularity, "granularity", "summary", "`G`: summary, day or hour (the last 31 days)")
	from := a.fs.String("from", "", "the first `DAY` (YYYY-MM-DD, the account's); a week before --to by default")
	to := a.fs.String("to", "", "the last `DAY` (included); the account's today by default")
	a.fs.StringVar(&o.CampaignID, "campaign", "", "only the rows of the campaign `ID`")
	a.fs.StringVar(&o.AdGroupID, "ad-group", "", "only the rows of the ad group `ID`")
	a.fs.StringVar(&o.Status, "status", "", "only entities with `STATUS` active, paused, ended or deleted")
	a.fs.StringVar(&o.Sort, "sort", "", "order by a `METRIC` (impressions, clicks, cost, orders, sales, ctr, cpc, conversion_rate, acos, roas); -cost for descending")
	return func() (client.ReportOptions, error) {
		for _, d := range []struct {
			name, s string
			dst     *client.Date
		}{{"from", *from, &o.From}, {"to", *to, &o.To}} {
			if d.s == "" {
				continue
			}
			v, err := client.ParseDate(d.s)
			if err != nil {
				return o, usageError("--%s must be a date written YYYY-MM-DD; got %q", d.name, d.s)
			}
			*d.dst = v
		}
		return o, nil
	}
}

// reportColumns are the columns of a report's table and CSV.
func reportColumns(level, granularity string) ([]string, func(client.ReportRow) []string) {
	header := reportcsv.Columns(level, granularity)
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return header, func(r client.ReportRow) []string {
		var out []string
		switch granularity {
		case "day":
			out = append(out, r.Date.String())
		case "hour":
			out = append(out, r.Date.String(), r.Hour.Format(time.RFC3339))
		}
		out = append(out, r.CampaignID, r.CampaignName)
		if level == "ad_group" || level == "keyword" {
			out = append(out, r.AdGroupID, r.AdGroupName)
		}
		if level == "keyword" {
			out = append(out, r.KeywordID, r.KeywordText, r.MatchType)
		}
		return append(out, r.Status, strconv.FormatBool(r.Deleted), strconv.FormatInt(r.Impressions, 10), strconv.FormatInt(r.Clicks, 10), r.Cost.String(),
			strconv.FormatInt(r.Orders, 10), r.Sales.String(), opt(r.CTR), opt(r.CPC), opt(r.ConversionRate), opt(r.ACOS), opt(r.ROAS))
	}
}
