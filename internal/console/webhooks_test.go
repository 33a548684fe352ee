package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// TestWebhooksPage: an owner adds an endpoint and sees its secret once,
// sends a test event, disables and deletes it; a viewer sees the list but
// no form, and the server refuses the viewer's change; an endpoint that
// adcamp disabled is announced at the top.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	base := "/accounts/" + acc + "/webhooks"
	owner.get(base+"?environment=sandbox").wantStatus(200).wantText("h1", "Webhooks").wantText("table.webhooks", "No endpoints")
	owner.post(base+"/new?environment=production", url.Values{"url": {"http://hooks.example.com/in"}}).
		wantStatus(422).wantFieldError("url", "https")
	p := owner.post(base+"/new?environment=sandbox", url.Values{"url": {"http://hooks.example.com/in"},
		"description": {"Billing"}, "event_types": {"campaign.created", "keyword.batch_created"}, "ordering": {"per_campaign"}})
	p.wantStatus(201).wantText("#v-whsec", "whsec_").wantText("table.webhooks", "campaign.created, keyword.batch_created").
		wantText("table.webhooks", "In order per campaign")
	owner.post(base+"/new?environment=sandbox", url.Values{"url": {"http://hooks.example.com/x"}, "ordering": {"strict"}}).
		wantStatus(422).wantText("#f-ordering-error", "Choose one")
	id, _ := p.doc.Find("tr[data-endpoint]").Attr("data-endpoint")
	if id == "" {
		t.Fatalf("no endpoint row:\n%s", p.body)
	}
	again := owner.get(base + "?environment=sandbox").wantStatus(200)
	if again.has("#v-whsec") {
		t.Errorf("the secret is shown again")
	}
	owner.post(base+"/"+id+"/test?environment=sandbox", url.Values{}).wantStatus(200).wantText("main", "test event")
	owner.get(base+"/"+id+"?environment=sandbox").wantStatus(200).wantText("h1", "Deliveries")

	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	vp := viewer.get(base+"?environment=sandbox").wantStatus(200).wantText("table.webhooks", "hooks.example.com")
	if vp.has(`form[action$="/new?environment=sandbox"]`) || vp.has(`form[action*="/disable"]`) {
		t.Errorf("a viewer is offered forms")
	}
	viewer.post(base+"/"+id+"/disable?environment=sandbox", url.Values{}).wantStatus(403)

	owner.post(base+"/"+id+"/disable?environment=sandbox", url.Values{}).wantStatus(200).wantText("main", "disabled")
	// adcamp disabling it (410 Gone) shows a notice.
	tn := adcamp.Tenant{AccountID: acc, Environment: adcamp.Sandbox}
	on := true
	if _, err := e.svc.UpdateWebhookEndpoint(admin, tn, id, service.EndpointInput{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(owner.get(base+"?environment=sandbox").body, "disabled by adcamp") {
		t.Errorf("an enabled endpoint is announced as disabled")
	}
	owner.post(base+"/"+id+"/delete?environment=sandbox", url.Values{}).wantStatus(200).wantText("main", "deleted")
	owner.get(base + "/" + id + "?environment=sandbox").wantStatus(404)

	// An endpoint that answers 410 Gone: adcamp disables it, and the page
	// says so to everyone.
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(410) }))
	defer gone.Close()
	owner.post(base+"/new?environment=sandbox", url.Values{"url": {gone.URL}}).wantStatus(201)
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.RunWebhooks(runCtx, service.DispatchConfig{Sender: webhook.NewSender(true), Poll: 20 * time.Millisecond, Sole: true})
	}()
	defer func() { cancel(); <-done }()
	list, _ := e.svc.WebhookEndpoints(admin, tn)
	if _, err := e.svc.SendTestEvent(admin, tn, list[0].ID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if p := viewer.get(base + "?environment=sandbox"); p.has(".warning[data-disabled]") {
			p.wantText(".warning[data-disabled]", "410 Gone")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the endpoint that answered 410 is not announced as disabled")
		}
	}
}
