package console

import (
	"net/http"
)

// The account's own settings: its time zone, in which its campaigns'
// days (daily budgets, spend today) are counted.

// accountSettings shows the account's settings and, for an owner, the
// form that changes its time zone.
func (s *Server) accountSettings(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Account settings", "account")
	p.Form = newForm(r, "time_zone")
	if r.Method == http.MethodGet {
		p.Form.values["time_zone"] = c.account.TimeZone
		return s.render(w, http.StatusOK, "account-settings.html", p)
	}
	if _, err := s.svc.SetAccountTimeZone(c.ctx, c.account.ID, r.PostFormValue("time_zone")); err != nil {
		return s.showForm(w, "account-settings.html", p, err)
	}
	return redirect(w, r, withNotice(c.accountPath("/settings"), "time-zone-saved"))
}
