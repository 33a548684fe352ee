package apicmd

import (
	"strings"
	"testing"

	"github.com/adcamp/adcamp/client"
)

// TestAPIChanges: changes list prints the history as a table, pages by
// cursor, narrows to one entity, and prints the API's data with --json.
func TestAPIChanges(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	var cmp client.Campaign
	s.okJSON(&cmp, "campaigns", "create", "--name", "Spring sale", "--budget", "25", "--marketplace", "US")
	s.ok("campaigns", "update", cmp.ID, "--budget", "40")
	s.ok("campaigns", "pause", cmp.ID)

	out := s.ok("changes", "list", "--campaign", cmp.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || strings.Join(strings.Fields(lines[0]), " ") != "TIME ACTOR OPERATION ENTITY ID CHANGES" ||
		!strings.Contains(lines[1], "status active → paused") || !strings.Contains(lines[2], "budget_daily 25.00 → 40.00") ||
		!strings.Contains(lines[3], "name Spring sale; budget_daily 25.00; marketplace US; status active") || lines[4] != "3 changes." {
		t.Errorf("changes list --campaign =\n%s", out)
	}
	var page struct {
		Items      []client.Change `json:"items"`
		NextCursor *string         `json:"next_cursor"`
	}
	s.okJSON(&page, "changes", "list", "--entity-type", "campaign", "--limit", "2")
	if len(page.Items) != 2 || page.NextCursor == nil || page.Items[0].Changes[0].Field != "status" {
		t.Fatalf("changes list --limit 2 --json = %+v", page)
	}
	out = s.ok("changes", "list", "--entity-type", "campaign", "--limit", "2", "--cursor", *page.NextCursor)
	wantContains(t, "changes list --cursor", out, "create", cmp.ID, "1 change.")
	s.okJSON(&page, "changes", "list", "--all", "--actor-type", "api_key")
	if len(page.Items) != 3 || page.NextCursor != nil {
		t.Errorf("changes list --all --json = %d items, next %v", len(page.Items), page.NextCursor)
	}
	s.fail(2, "changes", "list", "--campaign", cmp.ID, "--keyword", "kw_x")
	s.fail(2, "changes", "list", "--limit", "0")
	s.fail(2, "changes", "list", "--since", "yesterday")
	wantContains(t, "changes list --entity-type widget", s.fail(1, "changes", "list", "--entity-type", "widget"), "entity_type")
}
