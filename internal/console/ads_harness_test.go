package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
)

// Helpers of the tests of the campaign pages: the addresses of an
// environment's pages, and the JSON API of the same account, to compare
// what the console shows and does with what the API says.

// envs are both environments, for tests that run in each.
var envs = []adcamp.Environment{adcamp.Production, adcamp.Sandbox}

// at is the path of a page of an account's environment.
func at(acc string, env adcamp.Environment, rest string) string {
	return "/accounts/" + acc + "/" + string(env) + rest
}

// apiClient signs requests to one environment's API with a key of the
// account.
type apiClient struct {
	t           *testing.T
	e           *testEnv
	env         adcamp.Environment
	key, secret string
}

// apiFor returns a client of env's API for the account, with a new key.
func (e *testEnv) apiFor(acc string, env adcamp.Environment) *apiClient {
	e.t.Helper()
	k, err := e.svc.CreateKey(admin, acc, env)
	if err != nil {
		e.t.Fatal(err)
	}
	return &apiClient{t: e.t, e: e, env: env, key: k.ID, secret: k.Secret}
}

// answer is a decoded API answer.
type answer struct {
	Status  int
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   struct {
		Code    string              `json:"code"`
		Message string              `json:"message"`
		Details []adcamp.FieldIssue `json:"details"`
	} `json:"error"`
}

// do sends a signed request with body (JSON) to the API.
func (a *apiClient) do(method, path string, body any) *answer {
	a.t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			a.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, a.e.api[a.env].URL+"/api/v1/open"+path, bytes.NewReader(b))
	if err != nil {
		a.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	signing.SignRequest(req, signing.SchemeA, a.key, a.secret, b, a.e.clock.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	ans := &answer{Status: resp.StatusCode}
	if err := json.Unmarshal(raw, ans); err != nil {
		a.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
	}
	return ans
}

// get reads an entity or a list of the API into v, failing unless 200.
func (a *apiClient) get(path string, v any) {
	a.t.Helper()
	ans := a.do("GET", path, nil)
	if ans.Status != 200 {
		a.t.Fatalf("GET %s = %d %s", path, ans.Status, ans.Error.Message)
	}
	if err := json.Unmarshal(ans.Data, v); err != nil {
		a.t.Fatal(err)
	}
}

// apiCampaign is a campaign as the API shows it.
type apiCampaign struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	BudgetDaily float64 `json:"budget_daily"`
	Marketplace string  `json:"marketplace"`
	StartDate   *string `json:"start_date"`
	EndDate     *string `json:"end_date"`
	Status      string  `json:"status"`
	Notes       *string `json:"notes"`
	Version     int64   `json:"version"`
}

// apiList is a page of a list.
type apiList struct {
	Items      []json.RawMessage `json:"items"`
	TotalItems int64             `json:"total_items"`
}

// total is the API's total_items of a list.
func (a *apiClient) total(path string) int64 {
	a.t.Helper()
	var l apiList
	a.get(path, &l)
	return l.TotalItems
}

// campaign reads a campaign through the API.
func (a *apiClient) campaign(id string) apiCampaign {
	a.t.Helper()
	var c apiCampaign
	a.get("/campaigns/"+id, &c)
	return c
}

// status is the status of a GET of path through the API.
func (a *apiClient) status(path string) int {
	a.t.Helper()
	return a.do("GET", path, nil).Status
}

// value is the value of the input name of the first form of the page
// whose action ends with action.
func (p *page) value(action, name string) string {
	v, _ := p.doc.Find(`form[action$="` + action + `"] [name="` + name + `"]`).First().Attr("value")
	return v
}

// form is a form's fields as a browser would send them: hidden inputs,
// text inputs, checked radios, selected options and textareas.
func (p *page) form(action string) url.Values {
	f := p.doc.Find(`form[action$="` + action + `"]`).First()
	if f.Length() == 0 {
		p.t.Fatalf("no form posting to …%s at %s", action, p.url)
	}
	v := url.Values{}
	f.Find("input").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		typ, _ := in.Attr("type")
		val, _ := in.Attr("value")
		_, checked := in.Attr("checked")
		if name == "" || ((typ == "radio" || typ == "checkbox") && !checked) {
			return
		}
		v.Set(name, val)
	})
	f.Find("select").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		val, _ := s.Find("option[selected]").Attr("value")
		v.Set(name, val)
	})
	f.Find("textarea").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		v.Set(name, strings.TrimPrefix(s.Text(), "\n"))
	})
	return v
}

// with is v with the fields of more changed.
func with(v url.Values, more ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(more); i += 2 {
		out.Set(more[i], more[i+1])
	}
	return out
}

// wantOwnWords checks that the page shows a message next to each field
// the API's answer names, and no other: the console's own words (want,
// by field), not the API's.
func (p *page) wantOwnWords(ans *answer, want map[string]string) *page {
	p.t.Helper()
	if len(ans.Error.Details) != len(want) {
		p.t.Errorf("the API names %d fields (%+v), the test expects %d", len(ans.Error.Details), ans.Error.Details, len(want))
	}
	for _, d := range ans.Error.Details {
		w, ok := want[d.Field]
		if !ok {
			p.t.Errorf("the API names the field %s, which the test expects no message of", d.Field)
			continue
		}
		p.wantFieldError(d.Field, w)
		if got := p.text("#f-" + d.Field + "-error"); strings.Contains(got, d.Issue) {
			p.t.Errorf("next to %s the page says %q, in the API's words", d.Field, got)
		}
	}
	return p
}
