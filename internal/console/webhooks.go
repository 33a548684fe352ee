package console

import (
	"net/http"
	"slices"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Settings → Webhooks: an environment's endpoints, their delivery log,
// a test event; a new endpoint's secret shown once. The service decides
// who may do what (every member reads; owners change both environments,
// developers the sandbox).

// webhooksView is the webhooks page's content.
type webhooksView struct {
	Env        adcamp.Environment
	Endpoints  []*adcamp.WebhookEndpoint
	Disabled   []*adcamp.WebhookEndpoint // by adcamp (gone, failing): the notice at the top
	EventTypes []string
	Orderings  []option
	Secret     *service.NewEndpoint // a new endpoint, its secret shown this once
}

func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, c *call) error {
	env, err := environmentOf(r)
	if err != nil {
		return err
	}
	if r.FormValue("environment") == "" && c.current != "" {
		env = c.current // the one the user is in
	}
	return s.showWebhooks(w, r, c, env, http.StatusOK, nil, nil)
}

// showWebhooks renders the page, with err (a refused change) on its form
// or a new endpoint's secret.
func (s *Server) showWebhooks(w http.ResponseWriter, r *http.Request, c *call, env adcamp.Environment, status int,
	err error, created *service.NewEndpoint) error {
	t := adcamp.Tenant{AccountID: c.account.ID, Environment: env}
	list, lerr := s.svc.WebhookEndpoints(c.ctx, t)
	if lerr != nil {
		return lerr
	}
	v := webhooksView{Env: env, Endpoints: list,
		EventTypes: adcamp.EventTypes, Secret: created, Orderings: []option{
			{adcamp.OrderingNone, "In the order they happen: a failed event is retried later while the next ones go on"},
			{adcamp.OrderingPerCampaign, "Per campaign: a campaign's events wait while an earlier one of it is being retried"}}}
	for _, e := range list {
		if !e.Enabled && e.DisabledReason != adcamp.DisabledByUser {
			v.Disabled = append(v.Disabled, e)
		}
	}
	c.current = env // the switch marks the environment shown
	p := c.page(r, "Webhooks", "webhooks")
	p.Form, p.Data = newForm(r, "url", "description", "ordering"), v
	if p.Form.values["ordering"] == "" {
		p.Form.values["ordering"] = adcamp.OrderingNone
	}
	if err != nil {
		return s.showForm(w, "webhooks.html", p, err)
	}
	return s.render(w, status, "webhooks.html", p)
}

// newWebhook creates an endpoint and shows its secret, once, on the page
// the form was on (the answer to this POST is not cached: see headers).
func (s *Server) newWebhook(w http.ResponseWriter, r *http.Request, c *call) error {
	env, err := environmentOf(r)
	if err != nil {
		return err
	}
	url, desc, ordering := r.PostFormValue("url"), r.PostFormValue("description"), r.PostFormValue("ordering")
	if ordering == "" {
		ordering = adcamp.OrderingNone
	}
	var types []string
	for _, typ := range r.PostForm["event_types"] {
		if slices.Contains(adcamp.EventTypes, typ) {
			types = append(types, typ)
		}
	}
	t := adcamp.Tenant{AccountID: c.account.ID, Environment: env}
	e, err := s.svc.CreateWebhookEndpoint(c.ctx, t, service.EndpointInput{URL: &url, Description: &desc, EventTypes: &types,
		Ordering: &ordering})
	if err != nil {
		return s.showWebhooks(w, r, c, env, 0, err, nil)
	}
	return s.showWebhooks(w, r, c, env, http.StatusCreated, nil, e)
}

// changeWebhook enables, disables, tests or deletes an endpoint.
func (s *Server) changeWebhook(w http.ResponseWriter, r *http.Request, c *call) error {
	env, err := environmentOf(r)
	if err != nil {
		return err
	}
	t := adcamp.Tenant{AccountID: c.account.ID, Environment: env}
	id := r.PathValue("endpoint")
	var notice string
	switch r.PathValue("op") {
	case "enable", "disable":
		on := r.PathValue("op") == "enable"
		_, err = s.svc.UpdateWebhookEndpoint(c.ctx, t, id, service.EndpointInput{Enabled: &on})
		notice = "webhook-" + r.PathValue("op") + "d"
	case "test":
		_, err = s.svc.SendTestEvent(c.ctx, t, id)
		notice = "webhook-tested"
	case "delete":
		err = s.svc.DeleteWebhookEndpoint(c.ctx, t, id)
		notice = "webhook-deleted"
	default:
		return adcamp.Errorf(adcamp.CodeNotFound, "There is no page at this address.")
	}
	if err != nil {
		return s.showWebhooks(w, r, c, env, 0, err, nil)
	}
	return redirect(w, r, withNotice(c.accountPath("/webhooks"), notice)+"&environment="+string(env))
}

// webhookLogView is the delivery log page's content.
type webhookLogView struct {
	Endpoint *adcamp.WebhookEndpoint
	Attempts []*adcamp.DeliveryAttempt
	Next     string
}

func (s *Server) webhookLog(w http.ResponseWriter, r *http.Request, c *call) error {
	env, err := environmentOf(r)
	if err != nil {
		return err
	}
	t := adcamp.Tenant{AccountID: c.account.ID, Environment: env}
	e, err := s.svc.WebhookEndpoint(c.ctx, t, r.PathValue("endpoint"))
	if err != nil {
		return err
	}
	attempts, next, err := s.svc.DeliveryAttempts(c.ctx, t, e.ID, r.URL.Query().Get("cursor"), 50)
	if err != nil {
		return err
	}
	c.current = env
	p := c.page(r, "Deliveries to "+e.URL, "webhooks")
	p.Data = webhookLogView{Endpoint: e, Attempts: attempts, Next: next}
	return s.render(w, http.StatusOK, "webhook-log.html", p)
}
