package operatorapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/service"
)

// The serving feed: GET /operator/v1/serving/snapshot and .../changes.

// maxWait bounds the wait of a long-poll.
const maxWait = 60 * time.Second

// keywordJSON is a servable keyword as the feed shows it.
type keywordJSON struct {
	KeywordID        string           `json:"keyword_id"`
	Text             string           `json:"text"`
	MatchType        adcamp.MatchType `json:"match_type"`
	Bid              adcamp.Money     `json:"bid"`
	AdGroupID        string           `json:"ad_group_id"`
	CampaignID       string           `json:"campaign_id"`
	AccountID        string           `json:"account_id"`
	Marketplace      string           `json:"marketplace"`
	ChannelAccountID *int64           `json:"channel_account_id"`
	BudgetDaily      adcamp.Money     `json:"budget_daily"`
	StartDate        *string          `json:"start_date"`
	EndDate          *string          `json:"end_date"`
}

// negativeJSON is an active negative keyword: it applies to the keywords
// of its scope.
type negativeJSON struct {
	NegativeID string               `json:"negative_id"`
	Scope      adcamp.NegativeLevel `json:"scope"`
	ScopeID    string               `json:"scope_id"`
	Text       string               `json:"text"`
	MatchType  adcamp.MatchType     `json:"match_type"`
}

// listsJSON is the shared lists attached to a campaign.
type listsJSON struct {
	CampaignID string   `json:"campaign_id"`
	ListIDs    []string `json:"list_ids"`
}

func dateOrNull(d adcamp.Date) *string {
	if d.IsZero() {
		return nil
	}
	s := d.String()
	return &s
}

func toKeywordJSON(k *service.FeedKeyword) keywordJSON {
	return keywordJSON{KeywordID: k.ID, Text: k.Text, MatchType: k.MatchType, Bid: k.Bid, AdGroupID: k.AdGroupID,
		CampaignID: k.CampaignID, AccountID: k.AccountID, Marketplace: k.Marketplace, ChannelAccountID: k.ChannelAccountID,
		BudgetDaily: k.BudgetDaily, StartDate: dateOrNull(k.StartDate), EndDate: dateOrNull(k.EndDate)}
}

// changeJSON is one change: an upsert of a keyword, a negative keyword or
// a campaign's lists, or the removal of one.
type changeJSON struct {
	Op              string        `json:"op"`
	Keyword         *keywordJSON  `json:"keyword,omitempty"`
	KeywordID       string        `json:"keyword_id,omitempty"`
	Negative        *negativeJSON `json:"negative,omitempty"`
	NegativeID      string        `json:"negative_id,omitempty"`
	CampaignLists   *listsJSON    `json:"campaign_lists,omitempty"`
	CampaignListsOf string        `json:"campaign_lists_of,omitempty"`
}

func toChangeJSON(ch service.FeedChange) changeJSON {
	switch {
	case ch.Keyword != nil:
		k := toKeywordJSON(ch.Keyword)
		return changeJSON{Op: "upsert", Keyword: &k}
	case ch.Negative != nil:
		n := ch.Negative
		return changeJSON{Op: "upsert", Negative: &negativeJSON{NegativeID: n.ID, Scope: n.Scope, ScopeID: n.ScopeID, Text: n.Text, MatchType: n.MatchType}}
	case ch.Lists != nil:
		return changeJSON{Op: "upsert", CampaignLists: &listsJSON{CampaignID: ch.Lists.CampaignID, ListIDs: ch.Lists.ListIDs}}
	case ch.NegativeID != "":
		return changeJSON{Op: "remove", NegativeID: ch.NegativeID}
	case ch.ListsOf != "":
		return changeJSON{Op: "remove", CampaignListsOf: ch.ListsOf}
	}
	return changeJSON{Op: "remove", KeywordID: ch.KeywordID}
}

// snapshotLine is a line of the snapshot: a keyword (as the upsert of
// changes carries it), or an object naming its record.
func snapshotLine(ch service.FeedChange) any {
	if ch.Keyword != nil {
		return toKeywordJSON(ch.Keyword)
	}
	c := toChangeJSON(ch)
	return struct {
		Negative      *negativeJSON `json:"negative,omitempty"`
		CampaignLists *listsJSON    `json:"campaign_lists,omitempty"`
	}{c.Negative, c.CampaignLists}
}

// snapshot streams every servable keyword as JSON Lines, then the line
// {"position": "..."}. A snapshot cut short lacks that last line.
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := checkQuery(r, "environment"); err != nil {
		return err
	}
	env, err := environment(r, "")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	started := false
	var line []byte
	pos, err := s.svc.Snapshot(r.Context(), env, func(ch service.FeedChange) error {
		if !started {
			w.Header().Set("Content-Type", "application/jsonl")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if ch.Keyword != nil {
			line = appendKeywordLine(line[:0], ch.Keyword)
			_, err := bw.Write(line)
			return err
		}
		return enc.Encode(snapshotLine(ch))
	})
	if err != nil {
		if !started {
			return err
		}
		s.log.Error("snapshot cut short", "err", err)
		bw.Flush()
		return nil
	}
	if !started {
		w.Header().Set("Content-Type", "application/jsonl")
		w.WriteHeader(http.StatusOK)
	}
	enc.Encode(map[string]string{"position": pos})
	return bw.Flush()
}

// changes answers the changes after a position, waiting for some up to
// wait.
func (s *Server) changes(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := checkQuery(r, "environment", "after", "wait", "limit"); err != nil {
		return err
	}
	env, err := environment(r, "")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var issues adcamp.Issues
	after := q.Get("after")
	if len(q["after"]) != 1 || after == "" {
		issues.AddKind("after", adcamp.IssueRequired, "", "is required: the position of a snapshot or of an earlier answer")
	}
	var wait time.Duration
	if v := q["wait"]; len(v) > 0 {
		d, err := time.ParseDuration(v[0])
		if err != nil || len(v) > 1 || d < 0 || d > maxWait {
			issues.Add("wait", "must be a duration from 0s to %s, such as 30s", maxWait)
		}
		wait = d
	}
	limit := service.DefaultFeedLimit
	if v := q["limit"]; len(v) > 0 {
		n, err := strconv.Atoi(v[0])
		if err != nil || len(v) > 1 || n < 1 || n > service.MaxFeedLimit {
			issues.Add("limit", "must be an integer from 1 to %d", service.MaxFeedLimit)
		}
		limit = n
	}
	if err := issues.Err(); err != nil {
		return err
	}
	out := []changeJSON{}
	pos, err := s.svc.WaitChanges(r.Context(), env, after, limit, wait, func(ch service.FeedChange) error {
		out = append(out, toChangeJSON(ch))
		return nil
	})
	if errors.Is(err, service.ErrPositionExpired) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		json.NewEncoder(w).Encode(map[string]any{"success": false, "error": map[string]any{
			"code": "POSITION_EXPIRED", "message": err.Error(), "request_id": w.Header().Get(httpapi.HeaderRequestID)}})
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"changes": out, "position": pos})
	return nil
}
