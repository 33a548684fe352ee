package apicmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/client"
)

func TestAPINegatives(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	ag := s.adGroup("Shoes")
	s.ok("keywords", "create", "--ad-group", ag, "--text", "free shoes", "--match-type", "broad")

	out := s.ok("negatives", "create", "--ad-group", ag, "--text", "free", "--match-type", "phrase")
	wantContains(t, "negatives create", out, "free", "phrase", "warning: keyword", "free shoes")
	if msg := s.fail(1, "negatives", "create", "--ad-group", ag, "--text", "FREE", "--match-type", "phrase"); !strings.HasPrefix(msg, "DUPLICATE_KEYWORD: ") {
		t.Errorf("duplicate negative: %q", msg)
	}
	s.fail(2, "negatives", "create", "--text", "x", "--match-type", "exact")

	file := filepath.Join(t.TempDir(), "texts.txt")
	if err := os.WriteFile(file, []byte("cheap\n\n  used  \nrefurbished\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var created struct {
		Items []client.NegativeKeyword `json:"items"`
	}
	s.okJSON(&created, "negatives", "create", "--ad-group", ag, "--file", file, "--match-type", "exact")
	if len(created.Items) != 3 || created.Items[1].Text != "used" {
		t.Errorf("negatives create --file = %+v", created.Items)
	}
	out = s.ok("negatives", "list", "--ad-group", ag, "--match-type", "exact")
	wantContains(t, "negatives list", out, "cheap", "used", "refurbished")
	s.ok("negatives", "update", created.Items[0].ID, "--status", "paused", "--if-match", "1")
	s.ok("negatives", "delete", created.Items[0].ID)

	var l client.NegativeList
	s.okJSON(&l, "negatives", "lists", "create", "--name", "Brands")
	var cmp client.AdGroup
	s.okJSON(&cmp, "ad-groups", "get", ag)
	s.ok("negatives", "create", "--list", l.ID, "--text", "shoes", "--match-type", "phrase")
	wantContains(t, "negatives lists attach", s.ok("negatives", "lists", "attach", "--campaign", cmp.CampaignID, "--list", l.ID),
		"Attached", "warning: keyword")
	wantContains(t, "negatives lists attached", s.ok("negatives", "lists", "attached", "--campaign", cmp.CampaignID), "Brands")
	wantContains(t, "negatives lists list", s.ok("negatives", "lists", "list"), "Brands")
	s.ok("negatives", "lists", "detach", "--campaign", cmp.CampaignID, "--list", l.ID)
	s.ok("negatives", "lists", "delete", l.ID)
}
