package operatorapi

import (
	"strconv"

	"github.com/adcamp/adcamp/internal/jsonwrite"
	"github.com/adcamp/adcamp/internal/service"
)

// appendKeywordLine appends a servable keyword's line of the snapshot:
// byte for byte what a json.Encoder writes for its keywordJSON, newline
// included, without reflection nor a value per field (a snapshot is
// mostly these lines: encoding/json was a fifth of its time;
// TestKeywordLineMatchesEncodingJSON holds the two together).
func appendKeywordLine(b []byte, k *service.FeedKeyword) []byte {
	b = append(b, `{"keyword_id":`...)
	b = jsonwrite.AppendString(b, k.ID, jsonwrite.EncodingJSON)
	b = append(b, `,"text":`...)
	b = jsonwrite.AppendString(b, k.Text, jsonwrite.EncodingJSON)
	b = append(b, `,"match_type":`...)
	b = jsonwrite.AppendString(b, string(k.MatchType), jsonwrite.EncodingJSON)
	b = append(b, `,"bid":`...)
	b = k.Bid.AppendText(b)
	b = append(b, `,"ad_group_id":`...)
	b = jsonwrite.AppendString(b, k.AdGroupID, jsonwrite.EncodingJSON)
	b = append(b, `,"campaign_id":`...)
	b = jsonwrite.AppendString(b, k.CampaignID, jsonwrite.EncodingJSON)
	b = append(b, `,"account_id":`...)
	b = jsonwrite.AppendString(b, k.AccountID, jsonwrite.EncodingJSON)
	b = append(b, `,"marketplace":`...)
	b = jsonwrite.AppendString(b, k.Marketplace, jsonwrite.EncodingJSON)
	b = append(b, `,"channel_account_id":`...)
	if k.ChannelAccountID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *k.ChannelAccountID, 10)
	}
	b = append(b, `,"budget_daily":`...)
	b = k.BudgetDaily.AppendText(b)
	b = append(b, `,"start_date":`...)
	b = appendDate(b, k.StartDate.IsZero(), k.StartDate.String)
	b = append(b, `,"end_date":`...)
	b = appendDate(b, k.EndDate.IsZero(), k.EndDate.String)
	return append(b, "}\n"...)
}

// appendDate appends a date as dateOrNull shows it.
func appendDate(b []byte, zero bool, text func() string) []byte {
	if zero {
		return append(b, "null"...)
	}
	return jsonwrite.AppendString(b, text(), jsonwrite.EncodingJSON)
}
