package apicmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/client"
)

// adGroup creates a campaign and an ad group in it, and returns the ad
// group's id.
func (s *apiSandbox) adGroup(name string) string {
	s.t.Helper()
	var cmp client.Campaign
	var g client.AdGroup
	s.okJSON(&cmp, "campaigns", "create", "--name", name, "--budget", "50", "--marketplace", "US")
	s.okJSON(&g, "ad-groups", "create", "--campaign", cmp.ID, "--name", name, "--default-bid", "0.75")
	return g.ID
}

// countKeywords counts an ad group's keywords through list --all.
func (s *apiSandbox) countKeywords(adGroup string) int {
	s.t.Helper()
	var all listJSON[json.RawMessage]
	s.okJSON(&all, "keywords", "list", "--ad-group", adGroup, "--all")
	return len(all.Items)
}

func TestAPIKeywords(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	ag := s.adGroup("Shoes")

	var red, blue map[string]any
	s.okJSON(&red, "keywords", "create", "--ad-group", ag, "--text", "red shoes", "--match-type", "exact", "--bid", "1.10")
	s.okJSON(&blue, "keywords", "create", "--ad-group", ag, "--text", "blue shoes", "--match-type", "phrase")
	if red["bid"] != 1.1 || red["match_type"] != "exact" || red["ad_group_id"] != ag {
		t.Errorf("keywords create --bid 1.10 = %v", red)
	}
	if v, ok := blue["bid"]; !ok || v != nil {
		t.Errorf("keywords create without --bid = %v, want \"bid\": null", blue)
	}
	id := red["id"].(string)
	if msg := s.fail(1, "keywords", "create", "--ad-group", ag, "--text", "RED SHOES", "--match-type", "exact"); !strings.HasPrefix(msg, "DUPLICATE_KEYWORD: ") {
		t.Errorf("duplicate keyword: %q", msg)
	}

	raw := s.ok("keywords", "update", id, "--clear-bid", "--if-match", "1", "--json")
	if !strings.Contains(raw, `"bid": null`) || !strings.Contains(raw, `"version": 2`) {
		t.Errorf("keywords update --clear-bid = %s", raw)
	}
	wantContains(t, "keywords get", s.ok("keywords", "get", id), "Text:", "red shoes", "Bid:", "default")
	out := s.ok("keywords", "update", id, "--bid", "0.95", "--status", "paused", "--if-match", "2")
	wantContains(t, "keywords update --bid", out, "0.95 USD", "paused", "Version:")
	s.fail(1, "keywords", "update", id, "--text", "stale", "--if-match", "2")

	out = s.ok("keywords", "list", "--ad-group", ag, "--match-type", "exact")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID TEXT MATCH BID STATUS VERSION" ||
		strings.Join(strings.Fields(lines[1]), " ") != id+" red shoes exact 0.95 paused 3" {
		t.Errorf("keywords list --match-type exact =\n%s", out)
	}
	if out := s.ok("keywords", "delete", id); out != "Deleted keyword "+id+".\n" {
		t.Errorf("keywords delete = %q", out)
	}
	var del map[string]any
	s.okJSON(&del, "keywords", "delete", blue["id"].(string))
	if len(del) != 2 || del["deleted"] != true {
		t.Errorf("keywords delete --json = %v, want id and deleted", del)
	}
}

// keywordsCSV is a CSV file of n keywords: every other one with a bid,
// every tenth paused.
func keywordsCSV(n int) string {
	var b strings.Builder
	b.WriteString("text,match_type,bid,status\n")
	match := []string{"exact", "phrase", "broad"}
	for i := range n {
		bid, status := "", ""
		if i%2 == 1 {
			bid = fmt.Sprintf("0.%02d", 10+i%90)
		}
		if i%10 == 0 {
			status = "paused"
		}
		fmt.Fprintf(&b, "keyword %d,%s,%s,%s\n", i, match[i%3], bid, status)
	}
	return b.String()
}

func TestAPIKeywordBatches(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	fromCSV, fromJSON := s.adGroup("CSV"), s.adGroup("JSON")

	// 1000 keywords from CSV, in one request.
	out := s.ok("keywords", "create", "--ad-group", fromCSV, "--file", writeFile(t, "kw.csv", keywordsCSV(1000), 0o644))
	if !strings.HasSuffix(out, "Created 1000 keywords in ad group "+fromCSV+".\n") || strings.Count(out, "\n") != 1002 {
		t.Errorf("keywords create --file kw.csv printed %d lines ending %q", strings.Count(out, "\n"), out[max(0, len(out)-80):])
	}
	var all listJSON[map[string]any]
	s.okJSON(&all, "keywords", "list", "--ad-group", fromCSV, "--all")
	paused, noBid := 0, 0
	for _, k := range all.Items {
		if k["status"] == "paused" {
			paused++
		}
		if k["bid"] == nil {
			noBid++
		}
	}
	if len(all.Items) != 1000 || paused != 100 || noBid != 500 {
		t.Errorf("after the CSV batch: %d keywords, %d paused, %d without a bid; want 1000, 100, 500", len(all.Items), paused, noBid)
	}

	// 1000 keywords from a JSON array; and {"items": [...]} from stdin.
	items := make([]map[string]any, 1000)
	for i := range items {
		items[i] = map[string]any{"text": fmt.Sprintf("json keyword %d", i), "match_type": "broad", "bid": 0.5}
	}
	body, _ := json.Marshal(items)
	var created listJSON[map[string]any]
	s.okJSON(&created, "keywords", "create", "--ad-group", fromJSON, "--file", writeFile(t, "kw.json", string(body), 0o644))
	if len(created.Items) != 1000 || created.Items[999]["text"] != "json keyword 999" || created.Items[0]["bid"] != 0.5 {
		t.Errorf("keywords create --file kw.json --json: %d items", len(created.Items))
	}
	stdin := `{"items": [{"text": "from stdin", "match_type": "exact"}, {"text": "also stdin", "match_type": "phrase", "bid": 1.25}]}`
	out, err := runWith(t, s.env, stdin, "keywords", "create", "--ad-group", fromJSON, "--file", "-")
	if err != nil || !strings.Contains(out, "Created 2 keywords") || !strings.Contains(out, "also stdin") {
		t.Errorf("keywords create --file - = %q, %v", out, err)
	}
	if n := s.countKeywords(fromJSON); n != 1002 {
		t.Errorf("ad group of the JSON batches has %d keywords, want 1002", n)
	}

	// Validate only: nothing stored.
	out = s.ok("keywords", "create", "--ad-group", fromJSON, "--file", writeFile(t, "kw.csv", "text,match_type\nnew,exact\n", 0o644), "--validate-only")
	wantContains(t, "keywords create --validate-only", out, "1 keyword would be created; nothing was stored")
	if n := s.countKeywords(fromJSON); n != 1002 {
		t.Errorf("--validate-only stored keywords: %d, want 1002", n)
	}
}

// TestAPIKeywordBatchFailures: a bad batch stores nothing; with
// --partial the good keywords are stored and each bad one is reported.
func TestAPIKeywordBatchFailures(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	ag := s.adGroup("Shoes")
	s.ok("keywords", "create", "--ad-group", ag, "--text", "red shoes", "--match-type", "exact")
	bad := writeFile(t, "bad.csv", "match_type,text,bid\n"+
		"exact,new one,\n"+
		"exact,Red Shoes,\n"+ // a duplicate of the stored keyword
		"broad,,\n"+ // no text
		"phrase,new two,0.80\n", 0o644)

	msg := s.fail(1, "keywords", "create", "--ad-group", ag, "--file", bad)
	if !strings.HasPrefix(msg, "VALIDATION_ERROR: ") || !strings.Contains(msg, "\n  items[2].text (line 4) must not be empty") {
		t.Errorf("bad batch: %q, want VALIDATION_ERROR naming items[2].text and its line", msg)
	}
	if n := s.countKeywords(ag); n != 1 {
		t.Errorf("a failed batch stored keywords: %d, want 1", n)
	}

	out, err := runWith(t, s.env, "", "keywords", "create", "--ad-group", ag, "--file", bad, "--partial")
	if exitCode(err) != 1 || !strings.HasSuffix(out, "Created 2 of 4 keywords.\n") || !strings.Contains(out, "new two") {
		t.Fatalf("keywords create --partial: %q, %v (exit %d); want the 2 created, exit 1", out, err, exitCode(err))
	}
	wantContains(t, "keywords create --partial error", err.Error(),
		"2 of 4 keywords were not created (request req_",
		"\n  items[1] (line 3) \"Red Shoes\" exact: DUPLICATE_KEYWORD: ",
		"\n  items[2] (line 4) \"\" broad: VALIDATION_ERROR: ",
		"\n      text must not be empty")
	if n := s.countKeywords(ag); n != 3 {
		t.Errorf("after the partial batch: %d keywords, want 3", n)
	}

	other := s.adGroup("Boots")
	out, err = runWith(t, s.env, "", "keywords", "create", "--ad-group", other, "--file", bad, "--partial", "--json")
	var res struct {
		Items []struct {
			Index   int             `json:"index"`
			Status  int             `json:"status"`
			Success bool            `json:"success"`
			Data    *map[string]any `json:"data"`
			Error   *struct {
				Code    string              `json:"code"`
				Details []client.FieldIssue `json:"details"`
			} `json:"error"`
		} `json:"items"`
		Created, Failed int
	}
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil || exitCode(err) != 1 {
		t.Fatalf("--partial --json printed %q (%v), exit %d", out, jerr, exitCode(err))
	}
	if res.Created != 3 || res.Failed != 1 || len(res.Items) != 4 || res.Items[2].Success || res.Items[2].Status != 400 ||
		res.Items[2].Error == nil || res.Items[2].Error.Code != client.CodeValidation || res.Items[1].Data == nil {
		t.Errorf("--partial --json = %s", out)
	}

	// Files the command cannot use.
	tooMany := keywordsCSV(client.MaxBatch + 1)
	for name, content := range map[string]string{
		"unknown column": "text,match_type,priority\nred,exact,1\n",
		"no match_type":  "text\nred\n",
		"bad bid":        "text,match_type,bid\nred,exact,1.234\n",
		"zero bid":       `[{"text": "red", "match_type": "exact", "bid": 0}]`,
		"unknown field":  `[{"text": "red", "match_type": "exact", "cpc": 1}]`,
		"empty":          "[]",
		"trailing data":  `[] []`,
		"too many":       tooMany,
	} {
		if _, err := s.run("keywords", "create", "--ad-group", ag, "--file", writeFile(t, "kw", content, 0o644)); exitCode(err) != 1 {
			t.Errorf("%s: %v (exit %d), want exit 1", name, err, exitCode(err))
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestAPIKeywordFileEveryBadLine: a batch file's bad lines, those the CLI
// cannot read (a bid that is no amount, a row of the wrong width) and
// those the API refuses, are each reported with their line; with
// --partial the good keywords are stored, as the API's partial mode does.
func TestAPIKeywordFileEveryBadLine(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	ag := s.adGroup("Shoes")
	s.ok("keywords", "create", "--ad-group", ag, "--text", "red shoes", "--match-type", "exact")
	file := writeFile(t, "kw.csv", "text,match_type,bid\n"+
		"one,exact,1.10\n"+
		"two,exact,abc\n"+ // the CLI cannot read the bid
		"Red Shoes,exact,\n"+ // the API refuses a duplicate
		"three,exact,0\n"+ // a bid of 0
		"four,exact,1,extra\n"+ // a field too many
		"five,broad,\n", 0o644)

	msg := s.fail(1, "keywords", "create", "--ad-group", ag, "--file", file)
	wantContains(t, "without --partial", msg, "3 of 6 keywords cannot be sent", "\n  line 3: bid \"abc\"",
		"\n  line 5: bid must be greater than 0", "\n  line 6: has 4 fields")
	if n := s.countKeywords(ag); n != 1 {
		t.Fatalf("a batch with bad lines stored keywords without --partial: %d, want 1", n)
	}

	out, err := runWith(t, s.env, "", "keywords", "create", "--ad-group", ag, "--file", file, "--partial")
	if exitCode(err) != 1 || !strings.HasSuffix(out, "Created 2 of 6 keywords.\n") {
		t.Fatalf("--partial: %q, %v; want 2 of 6 created, exit 1", out, err)
	}
	wantContains(t, "--partial error", err.Error(), "4 of 6 keywords were not created",
		"\n  items[1] (line 3) \"two\" exact: VALIDATION_ERROR: line 3: bid \"abc\"",
		"\n  items[2] (line 4) \"Red Shoes\" exact: DUPLICATE_KEYWORD: ",
		"\n  items[3] (line 5) \"three\" exact: VALIDATION_ERROR: ",
		"\n  items[4] (line 6): VALIDATION_ERROR: line 6: has 4 fields")
	if n := s.countKeywords(ag); n != 3 {
		t.Errorf("after --partial: %d keywords, want 3 (red shoes, one, five)", n)
	}

	other := s.adGroup("Boots")
	out, _ = runWith(t, s.env, "", "keywords", "create", "--ad-group", other, "--file", file, "--partial", "--json")
	var res struct {
		Items []struct {
			Index, Line, Status int
			Success             bool
		}
		Created, Failed int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Created != 3 || res.Failed != 3 || len(res.Items) != 6 ||
		res.Items[1].Status != 400 || res.Items[1].Line != 3 || !res.Items[2].Success || res.Items[5].Index != 5 {
		t.Errorf("--partial --json = %s (%v)", out, err)
	}
}
