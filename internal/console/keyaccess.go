package console

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// Scoped keys in the console: what a credential may do, until when, from
// where and how often (set when it is made, changed on its access page),
// its recent uses, and the sandbox's reset and sample data buttons.

func init() {
	funcs["scopesText"] = scopesText
	fieldLabels["expires_at"] = "The expiry"
	fieldLabels["allowed_ips"] = "The allowed addresses"
	fieldLabels["rate_limit"] = "The rate limit"
	for _, g := range adcamp.ScopeGroups {
		fieldLabels["scope_"+string(g)] = "The access to " + string(g)
	}
	notices["key-access-changed"] = "The credential's access was changed: it applies to the next request (within a second on every server)."
	notices["sandbox-reset"] = "The sandbox was emptied: {n:campaign} and {m:keyword} deleted."
	notices["sandbox-filled"] = "Sample data was added to the sandbox: {n:campaign} and {m:keyword}."
	notices["sandbox-simulated"] = "30 days of delivery were simulated: {n:keyword}, {m:hourly row}."
}

// accessFields are the form fields of a credential's access.
var accessFields = []string{"scope_campaigns", "scope_reports", "scope_history", "scope_webhooks", "expires_at", "allowed_ips", "rate_limit"}

// accessView is what the access fields show.
type accessView struct {
	Groups  []scopeChoice
	Expires []option
	Key     *adcamp.APIKey // nil on a new key's form
	Now     time.Time
}

type scopeChoice struct {
	Name, Label string
	Options     []option
}

var levelOptions = []option{{"write", "Read and write"}, {"read", "Read only"}, {"none", "No access"}}

func newAccessView(k *adcamp.APIKey, now time.Time) accessView {
	v := accessView{Key: k, Now: now, Expires: []option{{"", "Never"}, {"7d", "In 7 days"}, {"30d", "In 30 days"},
		{"90d", "In 90 days"}, {"365d", "In a year"}}}
	if k != nil {
		v.Expires = append([]option{{"keep", "Keep as it is"}}, v.Expires...)
	}
	labels := map[adcamp.ScopeGroup]string{adcamp.ScopeCampaigns: "Campaigns, ad groups and keywords",
		adcamp.ScopeReports: "Reports", adcamp.ScopeHistory: "Change history", adcamp.ScopeWebhooks: "Webhooks"}
	for _, g := range adcamp.ScopeGroups {
		v.Groups = append(v.Groups, scopeChoice{Name: "scope_" + string(g), Label: labels[g], Options: levelOptions})
	}
	return v
}

// accessForm is the form of a credential's access, filled with k's (or
// the defaults of a new key) unless r posted it.
func accessForm(r *http.Request, k *adcamp.APIKey, more ...string) *form {
	f := newForm(r, append(more, accessFields...)...)
	if r.Method == http.MethodPost {
		return f
	}
	sc, ips, rate := adcamp.AllWrite, "", ""
	if k != nil {
		sc, rate = k.Scopes, strconv.Itoa(k.RateLimit)
		texts := make([]string, len(k.AllowedIPs))
		for i, p := range k.AllowedIPs {
			texts[i] = p.String()
		}
		ips = strings.Join(texts, ", ")
		f.values["expires_at"] = "keep"
	}
	for _, g := range adcamp.ScopeGroups {
		f.values["scope_"+string(g)] = sc.Of(g).String()
	}
	f.values["allowed_ips"], f.values["rate_limit"] = ips, rate
	return f
}

// readAccess reads the access fields of r into an update, with the form
// problems as the service words them. A field the form did not send is
// left as it is (a new key's defaults: write on every group, no limit).
func readAccess(r *http.Request, now time.Time, base adcamp.Scopes) (service.KeyUpdate, error) {
	var u service.KeyUpdate
	var issues adcamp.Issues
	r.ParseForm()
	sent := func(name string) bool { _, ok := r.PostForm[name]; return ok }
	sc := base
	for _, g := range adcamp.ScopeGroups {
		name := "scope_" + string(g)
		if !sent(name) {
			continue
		}
		a, ok := adcamp.ParseAccess(r.PostFormValue(name))
		if !ok {
			issues.Add(name, "must be read and write, read only or no access")
		}
		sc.Set(g, a)
	}
	u.Scopes = &sc
	switch e := r.PostFormValue("expires_at"); {
	case !sent("expires_at") || e == "keep":
	case e == "":
		u.ExpiresAt = adcamp.Null[time.Time]()
	default:
		d, err := service.ParseLifetime(e)
		if err != nil {
			issues.Add("expires_at", "must be one of the choices")
		} else {
			u.ExpiresAt = adcamp.Some(now.Add(d))
		}
	}
	if sent("allowed_ips") {
		ips, err := adcamp.ParsePrefixes([]string{r.PostFormValue("allowed_ips")})
		if err != nil {
			issues.Add("allowed_ips", "%v: write ranges such as 203.0.113.0/24 or 2001:db8::/32, separated by commas", err)
		}
		if ips == nil {
			ips = []netip.Prefix{}
		}
		u.AllowedIPs = &ips
	}
	if sent("rate_limit") {
		rate := 0
		if t := strings.TrimSpace(r.PostFormValue("rate_limit")); t != "" {
			var err error
			if rate, err = strconv.Atoi(t); err != nil {
				issues.Add("rate_limit", "must be a whole number of requests per second (0 or empty: the server's limit)")
			}
		}
		u.RateLimit = &rate
	}
	return u, issues.Err()
}

// keyRequestAccess is readAccess for a new key.
func keyRequestAccess(r *http.Request, now time.Time, req *service.KeyRequest) error {
	u, err := readAccess(r, now, adcamp.AllWrite)
	if err != nil {
		return err
	}
	req.Scopes = u.Scopes
	if u.ExpiresAt.Has() {
		req.Limits.ExpiresAt = &u.ExpiresAt.Value
	}
	if u.AllowedIPs != nil {
		req.Limits.AllowedIPs = *u.AllowedIPs
	}
	if u.RateLimit != nil {
		req.Limits.RateLimit = *u.RateLimit
	}
	return nil
}

// keyAccess shows and changes a credential's scopes and limits.
func (s *Server) keyAccess(w http.ResponseWriter, r *http.Request, c *call) error {
	k, err := s.svc.Key(c.ctx, c.account.ID, r.PathValue("key"))
	if err != nil {
		return err
	}
	s.enter(w, c, k.Environment)
	p := c.page(r, "Access of an API key", "keys")
	p.Form, p.Data = accessForm(r, k), newKeyView{Env: k.Environment, Access: newAccessView(k, s.svc.Now())}
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "key-access.html", p)
	}
	u, err := readAccess(r, s.svc.Now(), k.Scopes)
	if err != nil {
		return s.showForm(w, "key-access.html", p, err)
	}
	if _, err := s.svc.UpdateKeyWith(c.ctx, k.ID, u, r.PostFormValue("confirm")); err != nil {
		return s.showForm(w, "key-access.html", p, err)
	}
	return redirect(w, r, withNotice(c.accountPath("/api-keys"), "key-access-changed"))
}

// usesView is the content of a credential's recent uses.
type usesView struct {
	Key  *adcamp.APIKey
	Uses []store.KeyUse
	Kept int
}

// keyUses shows a credential's last uses.
func (s *Server) keyUses(w http.ResponseWriter, r *http.Request, c *call) error {
	k, err := s.svc.Key(c.ctx, c.account.ID, r.PathValue("key"))
	if err != nil {
		return err
	}
	uses, err := s.svc.KeyTrail(c.ctx, c.account.ID, k.ID)
	if err != nil {
		return err
	}
	s.enter(w, c, k.Environment)
	p := c.page(r, "Recent uses of an API key", "keys")
	p.Data = usesView{Key: k, Uses: uses, Kept: store.KeyTrailKept}
	return s.render(w, http.StatusOK, "key-uses.html", p)
}

// sandboxSampleData fills the account's sandbox with sample data.
func (s *Server) sandboxSampleData(w http.ResponseWriter, r *http.Request, c *call) error {
	n, err := s.svc.SampleData(c.ctx, c.tenant())
	if err != nil {
		return err
	}
	return redirect(w, r, withCounts(c.envPath("/campaigns"), "sandbox-filled", n.Campaigns, n.Keywords))
}

// sandboxSimulate backfills the account's sandbox with 30 days of the
// delivery simulator's figures.
func (s *Server) sandboxSimulate(w http.ResponseWriter, r *http.Request, c *call) error {
	n, err := s.svc.SimulateSandbox(c.ctx, c.tenant(), service.MaxSimulateDays)
	if err != nil {
		return err
	}
	return redirect(w, r, withCounts(c.envPath("/campaigns"), "sandbox-simulated", int64(n.Keywords), int64(n.Rows)))
}

// sandboxReset asks to confirm, then empties the account's sandbox.
func (s *Server) sandboxReset(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Reset the sandbox?", "campaigns")
	p.Form = newForm(r)
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "sandbox-reset.html", p)
	}
	n, err := s.svc.ResetSandbox(c.ctx, c.tenant())
	if err != nil {
		return s.showForm(w, "sandbox-reset.html", p, err)
	}
	return redirect(w, r, withCounts(c.envPath("/campaigns"), "sandbox-reset", n.Campaigns, n.Keywords))
}

// scopesText writes a credential's scopes for people: "campaigns: read ·
// reports: none · …", or "full access".
func scopesText(sc adcamp.Scopes) string {
	if sc == adcamp.AllWrite {
		return "full access (read and write on everything)"
	}
	parts := make([]string, len(adcamp.ScopeGroups))
	for i, g := range adcamp.ScopeGroups {
		parts[i] = string(g) + ": " + sc.Of(g).String()
	}
	return strings.Join(parts, " · ")
}
