package operatorapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// TestKeysStayOnTheirListeners: an account's API key is refused on the
// operator listener, an operator key on the account listeners, each as an
// unknown key (401); a disabled operator key is refused too.
func TestKeysStayOnTheirListeners(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newEnv(t, open(t))
		tr := e.tree("", adcamp.Production, "10.00", 1)
		acct, err := e.svc.CreateKey(ctx, tr.tenant.AccountID, adcamp.Production)
		if err != nil {
			t.Fatal(err)
		}
		opID, opSecret := e.operatorKey()
		if !strings.HasPrefix(opID, "opk_") || !strings.HasPrefix(opSecret, "ops_") {
			t.Errorf("operator key = %q, %q; want opk_… and ops_…", opID, opSecret)
		}
		row := map[string]any{"items": []any{map[string]any{"keyword_id": tr.keywords[0].ID, "hour": "2026-11-22T09:00:00Z", "impressions": 10}}}

		if a := e.do(e.operator.URL, opID, opSecret, "POST", "/operator/v1/delivery", row); a.Status != http.StatusOK {
			t.Fatalf("operator key on the operator listener = %d %s, want 200", a.Status, a.Raw)
		}
		if a := e.do(e.operator.URL, acct.ID, acct.Secret, "POST", "/operator/v1/delivery", row); a.Status != http.StatusUnauthorized || a.code() != "UNAUTHORIZED" {
			t.Errorf("account key on the operator listener = %d %s, want 401 UNAUTHORIZED", a.Status, a.Raw)
		}
		if a := e.do(e.accounts[adcamp.Production].URL, acct.ID, acct.Secret, "GET", signing.PrefixCanonical+"/campaigns", nil); a.Status != http.StatusOK {
			t.Errorf("account key on its listener = %d %s, want 200", a.Status, a.Raw)
		}
		for _, v := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
			if a := e.do(e.accounts[v].URL, opID, opSecret, "GET", signing.PrefixCanonical+"/campaigns", nil); a.Status != http.StatusUnauthorized {
				t.Errorf("operator key on the %s listener = %d %s, want 401", v, a.Status, a.Raw)
			}
		}
		if a := e.do(e.operator.URL, opID, "ops_wrong", "POST", "/operator/v1/delivery", row); a.Status != http.StatusUnauthorized {
			t.Errorf("wrong secret = %d %s, want 401", a.Status, a.Raw)
		}
		if _, err := e.svc.SetOperatorKeyDisabled(admin, opID, true); err != nil {
			t.Fatal(err)
		}
		if a := e.do(e.operator.URL, opID, opSecret, "POST", "/operator/v1/delivery", row); a.Status != http.StatusForbidden || a.code() != "API_KEY_DISABLED" {
			t.Errorf("disabled operator key = %d %s, want 403 API_KEY_DISABLED", a.Status, a.Raw)
		}
		if _, err := e.svc.SetOperatorKeyDisabled(admin, opID, false); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.DeleteOperatorKey(admin, opID); err != nil {
			t.Fatal(err)
		}
		if a := e.do(e.operator.URL, opID, opSecret, "POST", "/operator/v1/delivery", row); a.Status != http.StatusUnauthorized {
			t.Errorf("deleted operator key = %d %s, want 401", a.Status, a.Raw)
		}
		if a := e.do(e.operator.URL, opID, opSecret, "GET", "/api/v1/open/campaigns", nil); a.Status != http.StatusNotFound {
			t.Errorf("an account route on the operator listener = %d %s, want 404", a.Status, a.Raw)
		}
	})
}

// spend reads a campaign's cost over the hours of [from, to).
func (e *env) spend(campaignID string, from, to time.Time) adcamp.Money {
	e.t.Helper()
	var m map[string]adcamp.Money
	err := e.db.Read(ctx, func(tx store.Tx) error {
		var err error
		m, err = tx.CampaignSpend(ctx, []string{campaignID}, from, to)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return m[campaignID]
}

func TestDelivery(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newEnv(t, open(t))
		tr := e.tree("", adcamp.Production, "10.00", 3)
		sb := e.tree(tr.tenant.AccountID, adcamp.Sandbox, "10.00", 1)
		id, secret := e.operatorKey()
		post := func(query string, rows ...map[string]any) *answer {
			t.Helper()
			return e.do(e.operator.URL, id, secret, "POST", "/operator/v1/delivery"+query, map[string]any{"items": rows})
		}
		kw := func(i int) string { return tr.keywords[i].ID }
		day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		total := func() adcamp.Money { return e.spend(tr.campaign.ID, day, day.Add(24*time.Hour)) }

		a := post("", map[string]any{"keyword_id": kw(0), "hour": "2026-11-22T08:00:00Z", "impressions": 100, "clicks": 5, "cost": 1.25, "orders": 1, "sales": 9.99},
			map[string]any{"keyword_id": kw(1), "hour": "2026-11-22T09:00:00Z", "impressions": 10, "clicks": 1, "cost": 0.10})
		if a.Status != http.StatusOK || a.data()["accepted"] != float64(2) {
			t.Fatalf("delivery = %d %s, want 200 accepted 2", a.Status, a.Raw)
		}
		if got := total(); got != 135 {
			t.Errorf("spend after the first post = %s, want 1.35", got)
		}
		// The same request again changes nothing; a correction replaces.
		post("", map[string]any{"keyword_id": kw(0), "hour": "2026-11-22T08:00:00Z", "impressions": 100, "clicks": 5, "cost": 1.25, "orders": 1, "sales": 9.99})
		if got := total(); got != 135 {
			t.Errorf("spend after a repeat = %s, want 1.35", got)
		}
		post("", map[string]any{"keyword_id": kw(0), "hour": "2026-11-22T08:00:00Z", "impressions": 100, "clicks": 5, "cost": 0.75})
		if got := total(); got != 85 {
			t.Errorf("spend after a correction = %s, want 0.85", got)
		}

		// Whole or nothing: one bad row stores nothing and names every bad row.
		bad := []map[string]any{
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "cost": 5},
			{"keyword_id": kw(2), "hour": "2026-11-22T09:30:00Z"},                                // not on the hour
			{"keyword_id": kw(2), "hour": "2026-11-22T10:00:00Z"},                                // future
			{"keyword_id": kw(2), "hour": "2026-10-01T10:00:00Z"},                                // too old
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "impressions": 1, "clicks": 2}, // clicks > impressions
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "cost": 0.125},                 // beyond the cent
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "impressions": -1},             // negative
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "impressions": 1.5},            // not an integer
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "cost": "5"},                   // a string
			{"keyword_id": sb.keywords[0].ID, "hour": "2026-11-22T09:00:00Z"},                    // sandbox keyword
			{"keyword_id": "kw_01JDX8Y6Q3P0000000000000", "hour": "2026-11-22T09:00:00Z"},        // unknown
			{"keyword_id": kw(2), "hour": "2026-11-22T09:00:00Z", "bogus": 1},                    // unknown field
		}
		a = post("", bad...)
		if a.Status != http.StatusBadRequest || a.code() != "VALIDATION_ERROR" {
			t.Fatalf("batch with bad rows = %d %s, want 400 VALIDATION_ERROR", a.Status, a.Raw)
		}
		details, _ := a.Body["error"].(map[string]any)["details"].([]any)
		fields := map[string]bool{}
		for _, d := range details {
			fields[d.(map[string]any)["field"].(string)] = true
		}
		for i, f := range []string{"", "hour", "hour", "hour", "clicks", "cost", "impressions", "impressions", "cost", "keyword_id", "keyword_id", "bogus"} {
			if f != "" && !fields[fmt.Sprintf("items[%d].%s", i, f)] {
				t.Errorf("details lack items[%d].%s: %s", i, f, a.Raw)
			}
		}
		if got := total(); got != 85 {
			t.Errorf("spend after a refused batch = %s, want 0.85 (nothing stored)", got)
		}

		// partial_failure stores the good rows and answers each.
		a = post("?partial_failure=true", bad...)
		if a.Status != http.StatusMultiStatus || a.data()["accepted"] != float64(1) || a.data()["failed"] != float64(len(bad)-1) {
			t.Fatalf("partial batch = %d %s, want 207 accepted 1", a.Status, a.Raw)
		}
		items := a.data()["items"].([]any)
		if first := items[0].(map[string]any); first["status"] != float64(200) || first["success"] != true {
			t.Errorf("first item = %v, want 200 success", first)
		}
		if tenth := items[9].(map[string]any); tenth["status"] != float64(400) {
			t.Errorf("sandbox keyword item = %v, want 400", tenth)
		}
		if got := total(); got != 585 {
			t.Errorf("spend after the partial batch = %s, want 5.85", got)
		}
		// The sandbox keyword is fine in its own environment.
		a = e.do(e.operator.URL, id, secret, "POST", "/operator/v1/delivery?environment=sandbox",
			map[string]any{"items": []any{map[string]any{"keyword_id": sb.keywords[0].ID, "hour": "2026-11-22T09:00:00Z", "cost": 2}}})
		if a.Status != http.StatusOK {
			t.Errorf("sandbox delivery = %d %s", a.Status, a.Raw)
		}

		// Figures outlive their keyword; a deleted keyword takes no new row.
		if err := e.svc.DeleteKeyword(admin, tr.tenant, kw(0), service.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		if got := total(); got != 585 {
			t.Errorf("spend after the keyword's delete = %s, want 5.85", got)
		}
		a = post("", map[string]any{"keyword_id": kw(0), "hour": "2026-11-22T09:00:00Z", "cost": 1})
		if a.Status != http.StatusBadRequest {
			t.Errorf("row of a deleted keyword = %d %s, want 400", a.Status, a.Raw)
		}

		// The request as a whole.
		for _, c := range []struct {
			name, body, ctype string
			status            int
		}{
			{"no items", `{}`, "application/json", 400},
			{"empty", `{"items": []}`, "application/json", 400},
			{"not json", `{"items": [`, "application/json", 400},
			{"member beside", `{"items": [], "x": 1}`, "application/json", 400},
			{"media type", `{"items": []}`, "text/plain", 415},
		} {
			req, _ := http.NewRequest("POST", e.operator.URL+"/operator/v1/delivery", strings.NewReader(c.body))
			req.Header.Set("Content-Type", c.ctype)
			signing.SignRequest(req, signing.SchemeB, id, secret, []byte(c.body), e.clock.Now())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
			}
		}
		many := make([]map[string]any, 10001)
		for i := range many {
			many[i] = map[string]any{"keyword_id": kw(1), "hour": "2026-11-22T09:00:00Z"}
		}
		if a := post("", many...); a.Status != http.StatusBadRequest {
			t.Errorf("10,001 rows = %d, want 400", a.Status)
		}
	})
}
