package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
)

// TestBodyRefusedWithoutOne: GET, HEAD and DELETE take no body; one sent
// anyway is a 400 before any handler runs, on signed and unsigned routes.
func TestBodyRefusedWithoutOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	id := prod.createCampaign(validCampaign)["id"].(string)
	for _, method := range []string{"GET", "DELETE"} {
		r := prod.do(method, "/campaigns/"+id, "{}")
		want(t, r, 400, "VALIDATION_ERROR")
		if d, _ := r.Error()["details"].([]any); len(d) != 1 || d[0].(map[string]any)["field"] != "body" {
			t.Errorf("%s with a body: details %v, want one issue with the body", method, d)
		}
	}
	want(t, prod.do("GET", "/campaigns/"+id, ""), 200, "") // not deleted
	req, _ := http.NewRequest("GET", e.servers[adcamp.Production].URL+"/healthz", strings.NewReader("x"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("GET /healthz with a body = %d, want 400", resp.StatusCode)
	}
}

// TestSignaturesStayOnTheirRoute: Scheme A signs timestamp + METHOD + path
// + body with no separator, so the bytes of a path can move into the body
// without changing the string to sign. For every route of openapi.yaml,
// under both prefixes and in both path forms, a signed request is replayed
// with its path cut at every position and the rest put in front of its
// body: no such request may succeed, and none may change anything.
func TestSignaturesStayOnTheirRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	prod.exactTime = true
	cmp := prod.createCampaign(validCampaign)["id"].(string)
	adg := prod.do("POST", "/campaigns/"+cmp+"/ad-groups", `{"name":"Shoes","default_bid":0.75}`).Data()["id"].(string)
	kw := prod.do("POST", "/ad-groups/"+adg+"/keywords", `{"text":"red shoes","match_type":"exact"}`).Data()["id"].(string)
	ids := strings.NewReplacer("{campaign_id}", cmp, "{ad_group_id}", adg, "{keyword_id}", kw)
	bodies := map[string]string{
		"POST /campaigns":                         `{"name":"Other","budget_daily":1,"marketplace":"US"}`,
		"PUT /campaigns/{campaign_id}":            `{"name":"Renamed"}`,
		"POST /campaigns/{campaign_id}/ad-groups": `{"name":"Boots","default_bid":0.5}`,
		"PUT /ad-groups/{ad_group_id}":            `{"name":"Renamed"}`,
		"POST /ad-groups/{ad_group_id}/keywords":  `{"text":"blue shoes","match_type":"exact"}`,
		"PUT /keywords/{keyword_id}":              `{"bid":2}`,
	}
	before := snapshot(t, prod, cmp, adg, kw)

	doc, err := openapi3.NewLoader().LoadFromData(adcamp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for route, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 { // unsigned: /time, /openapi.json
				continue
			}
			if route == "/healthz" || route == "/readyz" || route == "/metrics" {
				continue
			}
			body := bodies[method+" "+route]
			for _, prefix := range []string{signing.PrefixCanonical, signing.PrefixShort} {
				full := prefix + ids.Replace(route)
				for _, signed := range []string{full, ids.Replace(route)} { // Scheme A: full or relative path
					sig := prod.signatureFor(method, signed, body)
					for k := 1; k < len(signed); k++ {
						path := full[:len(full)-len(signed)+k]
						moved := signed[k:] + body
						status := prod.sendRaw(method, path, moved, sig)
						tried++
						if status < 300 {
							t.Errorf("%s %s signed for %s with body %q: %d, want a refusal", method, path, signed, moved, status)
						}
					}
				}
			}
		}
	}
	if tried < 500 {
		t.Fatalf("tried %d shifted requests; the routes were not found", tried)
	}
	if after := snapshot(t, prod, cmp, adg, kw); after != before {
		t.Errorf("shifted requests changed the data:\nbefore %s\nafter  %s", before, after)
	}
}

// signatureFor signs method, path (as given to Scheme A) and body at the
// clock's time.
func (c *apiClient) signatureFor(method, path, body string) string {
	ts := signing.Timestamp(c.env.clock.Now())
	return signing.Sign(c.secret, signing.StringToSign(signing.SchemeA, ts, method, path, []byte(body)))
}

// sendRaw sends a request with a given signature and returns its status.
func (c *apiClient) sendRaw(method, path, body, sig string) int {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signing.HeaderAPIKey, c.key)
	req.Header.Set(signing.HeaderTimestamp, signing.Timestamp(c.env.clock.Now()))
	req.Header.Set(signing.HeaderSignature, sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// snapshot renders what the account holds, to compare before and after.
func snapshot(t *testing.T, c *apiClient, cmp, adg, kw string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/campaigns", "/campaigns/" + cmp + "/ad-groups", "/ad-groups/" + adg + "/keywords", "/keywords/" + kw} {
		r := c.do("GET", p, "")
		want(t, r, 200, "")
		b.Write(r.Raw)
	}
	return b.String()
}
