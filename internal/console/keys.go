package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Settings → API management: the account's credentials, production and
// sandbox side by side.

// keysView is the API management page's content.
type keysView struct {
	Columns []keyColumn
	Days    int
}

// keyColumn is one environment's credentials.
type keyColumn struct {
	Env  adcamp.Environment
	Keys []keyCard
}

// keyCard is one credential.
type keyCard struct {
	service.KeyView
	Chart chart
	Now   time.Time
}

func (s *Server) keys(w http.ResponseWriter, r *http.Request, c *call) error {
	views, err := s.svc.KeyViews(c.ctx, c.account.ID)
	if err != nil {
		return err
	}
	p := c.page(r, "API keys", "keys")
	v := keysView{Days: service.ChartDays, Columns: []keyColumn{{Env: adcamp.Production}, {Env: adcamp.Sandbox}}}
	now := s.svc.Now()
	for _, k := range views {
		i := 0
		if k.Environment == adcamp.Sandbox {
			i = 1
		}
		v.Columns[i].Keys = append(v.Columns[i].Keys, keyCard{KeyView: k, Chart: newChart(k.Uses), Now: now})
	}
	p.Data = v
	return s.render(w, http.StatusOK, "keys.html", p)
}

// environmentOf reads the environment of a form or a link ("sandbox" if
// it names none).
func environmentOf(r *http.Request) (adcamp.Environment, error) {
	name := r.FormValue("environment")
	if name == "" {
		return adcamp.Sandbox, nil
	}
	env, ok := adcamp.ParseEnvironment(name)
	if !ok {
		return "", adcamp.Errorf(adcamp.CodeNotFound, "There is no environment %q: it is production or sandbox.", name)
	}
	return env, nil
}

// newKeyView is the new credential form's content.
type newKeyView struct {
	Env    adcamp.Environment
	Access accessView
}

// newKey creates a credential: its secret is then shown once, on a page
// of its own.
func (s *Server) newKey(w http.ResponseWriter, r *http.Request, c *call) error {
	env, err := environmentOf(r)
	if err != nil {
		return err
	}
	s.enter(w, c, env)
	p := c.page(r, "New "+string(env)+" API key", "keys")
	p.Form, p.Data = accessForm(r, nil, "name"), newKeyView{Env: env, Access: newAccessView(nil, s.svc.Now())}
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "key-new.html", p)
	}
	req := service.KeyRequest{AccountID: c.account.ID, Environment: env,
		Name: r.PostFormValue("name"), Confirm: r.PostFormValue("confirm")}
	if err := keyRequestAccess(r, s.svc.Now(), &req); err != nil {
		return s.showForm(w, "key-new.html", p, err)
	}
	k, err := s.svc.CreateKeyWith(c.ctx, req)
	if err != nil {
		return s.showForm(w, "key-new.html", p, err)
	}
	return s.showSecret(w, r, c, k, false)
}

// showSecret holds a new secret and sends the browser to the page that
// shows it, once.
func (s *Server) showSecret(w http.ResponseWriter, r *http.Request, c *call, k *service.NewCredential, rolled bool) error {
	token, err := s.svc.HoldSecret(c.ctx, k, rolled)
	if err != nil {
		return err
	}
	return redirect(w, r, c.accountPath("/secrets/"+url.PathEscape(token)))
}

// secretView is the content of the page that shows a secret once.
type secretView struct {
	Key    *service.NewCredential
	Rolled bool
	Gone   bool
}

// revealKey shows a new secret once; a reload finds it gone.
func (s *Server) revealKey(w http.ResponseWriter, r *http.Request, c *call) error {
	k, rolled, err := s.svc.RevealSecret(c.ctx, r.PathValue("token"))
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		p := c.page(r, "Secret shown already", "keys")
		p.Data = secretView{Gone: true}
		return s.render(w, http.StatusGone, "key-secret.html", p)
	}
	if err != nil {
		return err
	}
	if k.AccountID != c.account.ID {
		return adcamp.NotFound("API key", k.ID)
	}
	s.enter(w, c, k.Environment)
	p := c.page(r, "Your new secret", "keys")
	p.Data = secretView{Key: k, Rolled: rolled}
	return s.render(w, http.StatusOK, "key-secret.html", p)
}

// keyOp is a change of a credential that asks for confirmation first.
type keyOp struct {
	Name    string // in the path
	Title   string
	Button  string
	Danger  bool
	Explain string
}

var keyOps = []*keyOp{
	{Name: "disable", Title: "Disable this API key?", Button: "Disable the key",
		Explain: "Requests signed with it are refused from now on (within a second on every server). You can enable it again later."},
	{Name: "enable", Title: "Enable this API key?", Button: "Enable the key",
		Explain: "Requests signed with it are accepted again."},
	{Name: "roll", Title: "Roll this API key?", Button: "Roll the key",
		Explain: "The key gets a new secret, shown once. The old secret keeps working for the time you choose, so that your programs can switch without downtime."},
	{Name: "delete", Title: "Delete this API key?", Button: "Delete the key", Danger: true,
		Explain: "Requests signed with it are refused from now on, and it cannot be brought back. Its data stays: campaigns belong to the account, not to a key."},
}

// graces are the choices of how long a rolled key's old secret keeps
// working.
var graces = []struct {
	Value, Label string
	d            time.Duration
}{
	{"0", "Stop it now", 0},
	{"1h", "1 hour", time.Hour},
	{"24h", "24 hours", 24 * time.Hour},
	{"168h", "7 days", 7 * 24 * time.Hour},
}

// confirmView is the content of a confirmation page.
type confirmView struct {
	Op     *keyOp
	Key    *adcamp.APIKey
	Graces any
	Grace  string
}

// changeKey asks to confirm op on a credential, then does it.
func (s *Server) changeKey(op *keyOp) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		k, err := s.svc.Key(c.ctx, c.account.ID, r.PathValue("key"))
		if err != nil {
			return err
		}
		s.enter(w, c, k.Environment)
		p := c.page(r, op.Title, "keys")
		grace := r.FormValue("grace")
		if grace == "" {
			grace = "24h"
		}
		p.Form, p.Data = newForm(r), confirmView{Op: op, Key: k, Graces: graces, Grace: grace}
		if r.Method == http.MethodGet {
			return s.render(w, http.StatusOK, "key-confirm.html", p)
		}
		switch op.Name {
		case "disable", "enable":
			_, err = s.svc.SetKeyDisabled(c.ctx, k.ID, op.Name == "disable")
		case "delete":
			err = s.svc.DeleteKey(c.ctx, k.ID)
		case "roll":
			return s.rollKey(w, r, c, p, k, grace)
		}
		if err != nil {
			return s.showForm(w, "key-confirm.html", p, err)
		}
		return redirect(w, r, withNotice(c.accountPath("/api-keys"), "key-"+op.Name+"d"))
	}
}

func (s *Server) rollKey(w http.ResponseWriter, r *http.Request, c *call, p *page, k *adcamp.APIKey, grace string) error {
	d := time.Duration(-1)
	for _, g := range graces {
		if g.Value == grace {
			d = g.d
		}
	}
	if d < 0 {
		p.Form.errors["grace"] = "Choose how long the old secret keeps working."
		p.Form.Error = "A field needs another look: see the message below it."
		return s.render(w, http.StatusUnprocessableEntity, "key-confirm.html", p)
	}
	rolled, err := s.svc.RollKeyWith(c.ctx, k.ID, d, r.PostFormValue("confirm"))
	if err != nil {
		return s.showForm(w, "key-confirm.html", p, err)
	}
	return s.showSecret(w, r, c, rolled, true)
}
