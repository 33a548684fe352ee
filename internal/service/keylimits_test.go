package service_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

func TestKeyScopesAndLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	past, far := now.Add(-time.Hour), now.Add(11*366*24*time.Hour)
	for _, tc := range []struct {
		name   string
		limits adcamp.KeyLimits
		field  string
	}{
		{"expiry in the past", adcamp.KeyLimits{ExpiresAt: &past}, "expires_at"},
		{"expiry too far", adcamp.KeyLimits{ExpiresAt: &far}, "expires_at"},
		{"negative rate limit", adcamp.KeyLimits{RateLimit: -1}, "rate_limit"},
		{"rate limit too high", adcamp.KeyLimits{RateLimit: service.MaxKeyRateLimit + 1}, "rate_limit"},
		{"too many ranges", adcamp.KeyLimits{AllowedIPs: make([]netip.Prefix, 51)}, "allowed_ips"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.CreateKeyWith(admin, service.KeyRequest{AccountID: a.ID, Environment: adcamp.Sandbox, Limits: tc.limits})
			if adcamp.ErrorCode(err) != adcamp.CodeValidation || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("CreateKeyWith(%s) = %v, want VALIDATION_ERROR on %s", tc.name, err, tc.field)
			}
		})
	}

	k, err := f.svc.CreateKey(admin, a.ID, adcamp.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if k.Scopes != adcamp.AllWrite || k.ExpiresAt != nil || len(k.AllowedIPs) != 0 || k.RateLimit != 0 {
		t.Errorf("a key made without scopes or limits: %+v, want write on everything and no limit", k.APIKey)
	}
	ro := adcamp.Scopes{Campaigns: adcamp.AccessRead, Reports: adcamp.AccessRead}
	ips := []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}
	rate := 5
	later := now.Add(30 * 24 * time.Hour)
	got, err := f.svc.UpdateKey(admin, k.ID, service.KeyUpdate{Scopes: &ro, ExpiresAt: adcamp.Some(later), AllowedIPs: &ips, RateLimit: &rate})
	if err != nil {
		t.Fatal(err)
	}
	if got.Scopes != ro || got.ExpiresAt == nil || !got.ExpiresAt.Equal(later.Truncate(time.Second)) || len(got.AllowedIPs) != 1 || got.RateLimit != 5 {
		t.Errorf("UpdateKey = %+v", got)
	}
	if _, err := f.svc.UpdateKey(admin, k.ID, service.KeyUpdate{ExpiresAt: adcamp.Some(past)}); adcamp.ErrorCode(err) != adcamp.CodeValidation {
		t.Errorf("UpdateKey(expiry in the past) = %v, want VALIDATION_ERROR", err)
	}
	// An expiry that has passed since does not stop other changes.
	f.clock.Advance(31 * 24 * time.Hour)
	if _, err := f.svc.UpdateKey(admin, k.ID, service.KeyUpdate{RateLimit: new(int)}); err != nil {
		t.Errorf("UpdateKey of an expired key's rate limit = %v", err)
	}
	records := f.history(adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}, adcamp.ChangeFilter{Limit: 50})
	var update *adcamp.Change
	for _, r := range records {
		if r.EntityType == adcamp.EntityAPIKey && r.Operation == adcamp.OpUpdate && len(r.Changes) == 4 {
			update = r
		}
	}
	if update == nil {
		t.Fatalf("no history record of the update of scopes and limits among %d", len(records))
	}
	var fields []string
	for _, c := range update.Changes {
		fields = append(fields, c.Field+":"+deref(c.Old)+"→"+deref(c.New))
	}
	want := "scopes:campaigns=write,reports=write,history=write,webhooks=write→campaigns=read,reports=read,history=none,webhooks=none " +
		"expires_at:null→" + later.Truncate(time.Second).Format(time.RFC3339) + " allowed_ips:null→203.0.113.0/24 rate_limit:0→5"
	if strings.Join(fields, " ") != want {
		t.Errorf("the update's record:\n got %s\nwant %s", strings.Join(fields, " "), want)
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
