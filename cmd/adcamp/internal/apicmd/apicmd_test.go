package apicmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/cmd/adcamp/internal/cmdline"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// apiSandbox is the real sandbox API, in-process over SQLite, with one
// account and a key for it, and the environment the CLI finds them in.
type apiSandbox struct {
	t           *testing.T
	svc         *service.Service
	url         string // without a path: the SDK adds /api/v1/open
	account     string
	key, secret string
	env         map[string]string
}

func newAPISandbox(t *testing.T) *apiSandbox {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	masterKey := make([]byte, secrets.KeySize)
	rand.Read(masterKey)
	box, err := secrets.New(masterKey)
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Config{Store: db, Box: box})
	h, err := httpapi.New(svc.Ads, svc.Keys, adcamp.Sandbox, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	acc, err := svc.CreateAccount(ctx, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	cred, err := svc.CreateKey(ctx, acc.ID, adcamp.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	s := &apiSandbox{t: t, svc: svc, url: srv.URL, account: acc.ID, key: cred.ID, secret: cred.Secret}
	s.env = map[string]string{"ADCAMP_API_KEY": s.key, "ADCAMP_API_SECRET": s.secret, "ADCAMP_BASE_URL": s.url}
	return s
}

// client returns an SDK client with the sandbox's key, to set up data.
func (s *apiSandbox) client() *client.Client {
	s.t.Helper()
	cl, err := client.New(s.key, s.secret, client.WithBaseURL(s.url))
	if err != nil {
		s.t.Fatal(err)
	}
	return cl
}

// run runs the API command args ("campaigns", "list", "--all") as
// adcamp's dispatch does: help asked for is no error.
func run(ctx context.Context, args []string, lookup func(string) (string, bool), stdin io.Reader, stdout io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("run %q: want a command and its subcommand", args)
	}
	err := Run(ctx, Env{Lookup: lookup, Stdin: stdin, Stdout: stdout, Clock: testClock}, args[0]+" "+args[1], args[2:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// testClock is the commands' clock in these tests: the system's, but a
// wait (a change's settle into the next second) moves it at once instead
// of sleeping, so the signed timestamps still never repeat a second after
// a change. Shared by the package's tests, it runs ahead of the system's
// clock by the waits of all of them: seconds, where the server takes up
// to 5 minutes of skew.
var testClock = &jumpClock{}

type jumpClock struct {
	mu    sync.Mutex
	ahead time.Duration
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.ahead)
}

func (c *jumpClock) Sleep(ctx context.Context, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

// exitCode is the exit status of adcamp after err.
func exitCode(err error) int { return cmdline.ExitCode(err) }

// noEnv is an empty environment.
func noEnv(string) (string, bool) { return "", false }

// runWith runs adcamp with env as its whole environment and stdin as its
// input. Whatever happens, the secret must appear in none of its output.
func runWith(t *testing.T, env map[string]string, stdin string, args ...string) (stdout string, err error) {
	t.Helper()
	var out bytes.Buffer
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	err = run(context.Background(), args, lookup, strings.NewReader(stdin), &out)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for _, secret := range []string{env["ADCAMP_API_SECRET"], env["test_secret"]} {
		if secret == "" {
			continue
		}
		for name, text := range map[string]string{"stdout": out.String(), "error": msg} {
			if strings.Contains(text, secret) || strings.Contains(text, strings.TrimPrefix(secret, "sk_test_")) {
				t.Errorf("adcamp %q printed the API secret on %s:\n%s", args, name, text)
			}
		}
	}
	return out.String(), err
}

// run runs adcamp against the sandbox.
func (s *apiSandbox) run(args ...string) (string, error) {
	s.t.Helper()
	out, err := runWith(s.t, s.env, "", args...)
	return out, err
}

// ok runs a command that must succeed and returns its output.
func (s *apiSandbox) ok(args ...string) string {
	s.t.Helper()
	out, err := s.run(args...)
	if err != nil {
		s.t.Fatalf("adcamp %q: %v", args, err)
	}
	return out
}

// okJSON runs a command with --json that must succeed and decodes its
// output into v.
func (s *apiSandbox) okJSON(v any, args ...string) {
	s.t.Helper()
	out := s.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		s.t.Fatalf("adcamp %q --json printed %q: %v", args, out, err)
	}
}

// fail runs a command that must fail with the exit status code and
// returns the message main would print after "adcamp: ".
func (s *apiSandbox) fail(code int, args ...string) string {
	s.t.Helper()
	_, err := s.run(args...)
	if err == nil || exitCode(err) != code {
		s.t.Fatalf("adcamp %q: error %v (exit %d), want exit %d", args, err, exitCode(err), code)
	}
	return err.Error()
}

// listJSON is what list --json prints.
type listJSON[T any] struct {
	Items      []T    `json:"items"`
	Page       *int   `json:"page"`
	TotalItems int64  `json:"total_items"`
	TotalPages *int64 `json:"total_pages"`
}

func wantContains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

func TestAPICampaigns(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	ca, err := s.svc.CreateChannelAccount(context.Background(), s.account, "DE", "Acme DE")
	if err != nil {
		t.Fatal(err)
	}

	// Both shapes of create.
	var spring, summer client.Campaign
	s.okJSON(&spring, "campaigns", "create", "--name", "Spring sale", "--budget", "12.50", "--marketplace", "US",
		"--start-date", "2030-01-01", "--end-date", "2030-12-31")
	if spring.BudgetDaily != client.Cents(1250) || spring.Marketplace != "US" || spring.Status != client.CampaignActive ||
		spring.Version != 1 || spring.EndDate.String() != "2030-12-31" {
		t.Errorf("campaigns create --marketplace = %+v", spring)
	}
	s.okJSON(&summer, "campaigns", "create", "--name", "Sommer", "--budget", "40", "--channel-account", fmt.Sprint(ca.ID))
	if summer.Marketplace != "DE" || summer.ChannelAccountID != ca.ID {
		t.Errorf("campaigns create --channel-account = %+v, want DE on channel account %d", summer, ca.ID)
	}
	out := s.ok("campaigns", "create", "--name", "Dry run", "--budget", "1", "--marketplace", "FR", "--validate-only")
	wantContains(t, "campaigns create --validate-only", out, "Name:", "Dry run", "nothing was stored")

	// get: a key/value block.
	out = s.ok("campaigns", "get", spring.ID)
	wantContains(t, "campaigns get", out, "ID:", spring.ID, "Daily budget:", "12.50 USD", "Spent today:", "0.00 USD", "Serving:", "not_started", "End date:", "2030-12-31", "Version:")

	// list: a table, and the API's page as JSON; newest first.
	out = s.ok("campaigns", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "ID NAME STATUS SERVING BUDGET SPENT TODAY MARKETPLACE START END VERSION" ||
		!strings.HasPrefix(lines[1], summer.ID) || !strings.HasPrefix(lines[2], spring.ID) || lines[3] != "Page 1 of 1; 2 campaigns in all." {
		t.Errorf("campaigns list =\n%s", out)
	}
	wantContains(t, "campaigns list", lines[2], "Spring sale", "active", "12.50", "US", "2030-01-01", "2030-12-31")
	var page listJSON[client.Campaign]
	s.okJSON(&page, "campaigns", "list")
	if len(page.Items) != 2 || page.Items[0].ID != summer.ID || page.TotalItems != 2 || page.Page == nil || *page.Page != 1 {
		t.Errorf("campaigns list --json = %+v", page)
	}

	// update: an explicit null, and If-Match.
	raw := s.ok("campaigns", "update", spring.ID, "--clear-end-date", "--if-match", "1", "--json")
	if !strings.Contains(raw, `"end_date": null`) || !strings.Contains(raw, `"version": 2`) {
		t.Errorf("campaigns update --clear-end-date --if-match 1 = %s", raw)
	}
	msg := s.fail(1, "campaigns", "update", spring.ID, "--name", "Stale", "--if-match", "1")
	if !strings.HasPrefix(msg, "PRECONDITION_FAILED: ") || !strings.Contains(msg, "(request req_") || strings.Contains(msg, "\n") {
		t.Errorf("stale update: %q, want one line PRECONDITION_FAILED: ... (request req_...)", msg)
	}
	if out := s.ok("campaigns", "get", spring.ID); strings.Contains(out, "Stale") {
		t.Errorf("a stale update changed the campaign:\n%s", out)
	}
	s.fail(1, "campaigns", "delete", spring.ID, "--if-match", "1")
	out = s.ok("campaigns", "update", spring.ID, "--budget", "13", "--validate-only")
	wantContains(t, "campaigns update --validate-only", out, "13.00 USD", "nothing was stored")

	// Status changes.
	wantContains(t, "campaigns pause", s.ok("campaigns", "pause", spring.ID), "is now paused")
	wantContains(t, "campaigns resume", s.ok("campaigns", "resume", spring.ID), "is now active")
	var ended client.Campaign
	s.okJSON(&ended, "campaigns", "end", spring.ID)
	if ended.Status != client.CampaignEnded {
		t.Errorf("campaigns end: status %q", ended.Status)
	}
	if msg := s.fail(1, "campaigns", "resume", spring.ID); !strings.HasPrefix(msg, "INVALID_STATE_TRANSITION: ") {
		t.Errorf("resuming an ended campaign: %q", msg)
	}

	// Delete counts what went with the campaign.
	for _, name := range []string{"Shoes", "Boots"} {
		var g client.AdGroup
		s.okJSON(&g, "ad-groups", "create", "--campaign", summer.ID, "--name", name, "--default-bid", "0.75")
		s.ok("keywords", "create", "--ad-group", g.ID, "--text", "red "+name, "--match-type", "exact")
	}
	var del map[string]any
	s.okJSON(&del, "campaigns", "delete", summer.ID)
	if del["id"] != summer.ID || del["deleted"] != true || del["deleted_ad_groups"] != float64(2) || del["deleted_keywords"] != float64(2) {
		t.Errorf("campaigns delete --json = %v", del)
	}
	out = s.ok("campaigns", "delete", spring.ID)
	if want := "Deleted campaign " + spring.ID + ", with 0 ad groups and 0 keywords.\n"; out != want {
		t.Errorf("campaigns delete = %q, want %q", out, want)
	}
	msg = s.fail(1, "campaigns", "get", spring.ID)
	if want := fmt.Sprintf("NOT_FOUND: campaign %q not found (request req_", spring.ID); !strings.HasPrefix(msg, want) {
		t.Errorf("get of a deleted campaign: %q, want it to start %q", msg, want)
	}
}

// TestAPIChangesNotTakenForReplays: commands run one after the other that
// send the same signed change (the query and If-Match are not signed) are
// each executed, not answered as replays of the first.
func TestAPIChangesNotTakenForReplays(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	args := []string{"campaigns", "create", "--name", "Twice", "--budget", "10", "--marketplace", "US"}
	var dry, real client.Campaign
	s.okJSON(&dry, append(args, "--validate-only")...)
	s.okJSON(&real, args...)
	if real.ID == dry.ID {
		t.Fatalf("the create after a --validate-only one was answered with the validated campaign %s", dry.ID)
	}
	s.ok("campaigns", "get", real.ID)
	s.ok("campaigns", "pause", real.ID)
	s.ok("campaigns", "resume", real.ID)
	s.ok("campaigns", "pause", real.ID)
	var got client.Campaign
	s.okJSON(&got, "campaigns", "get", real.ID)
	if got.Status != client.CampaignPaused || got.Version != 4 {
		t.Errorf("after pause, resume, pause: %s at version %d, want paused at 4", got.Status, got.Version)
	}
}

func TestAPIValidationErrors(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	msg := s.fail(1, "campaigns", "create", "--name", " ", "--budget", "0", "--marketplace", "XX")
	lines := strings.Split(msg, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "VALIDATION_ERROR: ") || !strings.Contains(lines[0], "(request req_") {
		t.Fatalf("invalid create: %q, want a VALIDATION_ERROR line and one line per field", msg)
	}
	for i, field := range []string{"name", "budget_daily", "marketplace"} {
		if !strings.HasPrefix(lines[i+1], "  "+field+" ") {
			t.Errorf("line %d = %q, want the issue of %s, indented", i+1, lines[i+1], field)
		}
	}
}

func TestAPIListAll(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	cl := s.client()
	for i := range 150 {
		if _, err := cl.CreateCampaign(context.Background(), client.CampaignCreate{
			Name: fmt.Sprintf("Campaign %03d", i), BudgetDaily: client.USD("5"), Marketplace: "US"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var all listJSON[client.Campaign]
	s.okJSON(&all, "campaigns", "list", "--all")
	seen := map[string]bool{}
	for _, c := range all.Items {
		seen[c.ID] = true
	}
	if len(all.Items) != 150 || len(seen) != 150 || all.TotalItems != 150 || all.Page != nil {
		t.Errorf("campaigns list --all --json: %d items (%d distinct), total %d, page %v; want 150 distinct, no page",
			len(all.Items), len(seen), all.TotalItems, all.Page)
	}
	out := s.ok("campaigns", "list", "--all")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 152 || lines[151] != "150 campaigns." {
		t.Errorf("campaigns list --all: %d lines, last %q; want a header, 150 rows and a count", len(lines), lines[len(lines)-1])
	}
	wantContains(t, "campaigns list", s.ok("campaigns", "list"), "Page 1 of 8; 150 campaigns in all. Next: --page 2; every page: --all.")
	var page listJSON[client.Campaign]
	s.okJSON(&page, "campaigns", "list", "--page", "2", "--page-size", "100")
	if len(page.Items) != 50 || *page.Page != 2 || *page.TotalPages != 2 {
		t.Errorf("campaigns list --page 2 --page-size 100: %d items, page %d of %d", len(page.Items), *page.Page, *page.TotalPages)
	}
	if out := s.ok("campaigns", "list", "--status", "paused", "--all"); out != "No campaigns.\n" {
		t.Errorf("campaigns list --status paused --all = %q", out)
	}
	s.fail(1, "campaigns", "list", "--status", "sleeping")
}

func TestAPIAdGroups(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	var cmp client.Campaign
	s.okJSON(&cmp, "campaigns", "create", "--name", "Spring", "--budget", "20", "--marketplace", "US")
	out := s.ok("ad-groups", "create", "--campaign", cmp.ID, "--name", "Shoes", "--default-bid", "0.75")
	wantContains(t, "ad-groups create", out, "Campaign:", cmp.ID, "Default bid:", "0.75 USD")
	var g client.AdGroup
	s.okJSON(&g, "ad-groups", "create", "--campaign", cmp.ID, "--name", "Boots", "--default-bid", "1.25", "--status", "paused")
	if g.Status != client.StatusPaused || g.DefaultBid != client.Cents(125) || g.CampaignID != cmp.ID {
		t.Errorf("ad-groups create --json = %+v", g)
	}

	out = s.ok("ad-groups", "list", "--campaign", cmp.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "ID NAME STATUS DEFAULT BID VERSION" || !strings.HasPrefix(lines[1], g.ID) {
		t.Errorf("ad-groups list =\n%s", out)
	}
	var page listJSON[client.AdGroup]
	s.okJSON(&page, "ad-groups", "list", "--campaign", cmp.ID, "--status", "paused", "--all")
	if len(page.Items) != 1 || page.Items[0].ID != g.ID {
		t.Errorf("ad-groups list --status paused --all = %+v", page)
	}
	wantContains(t, "ad-groups get", s.ok("ad-groups", "get", g.ID), "Name:", "Boots", "paused")

	var upd client.AdGroup
	s.okJSON(&upd, "ad-groups", "update", g.ID, "--default-bid", "0.90", "--status", "active", "--if-match", "1")
	if upd.DefaultBid != client.Cents(90) || upd.Status != client.StatusActive || upd.Version != 2 {
		t.Errorf("ad-groups update = %+v", upd)
	}
	s.fail(1, "ad-groups", "update", g.ID, "--name", "Stale", "--if-match", "1")
	s.ok("keywords", "create", "--ad-group", g.ID, "--text", "boots", "--match-type", "broad")
	if out := s.ok("ad-groups", "delete", g.ID); out != "Deleted ad group "+g.ID+", with 1 keyword.\n" {
		t.Errorf("ad-groups delete = %q", out)
	}
	if msg := s.fail(1, "ad-groups", "get", g.ID); !strings.HasPrefix(msg, "NOT_FOUND: ") {
		t.Errorf("get of a deleted ad group: %q", msg)
	}
	if msg := s.fail(1, "ad-groups", "list", "--campaign", "cmp_missing"); !strings.HasPrefix(msg, "NOT_FOUND: ") {
		t.Errorf("ad groups of a missing campaign: %q", msg)
	}
}

func TestAPIChannelAccounts(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	if _, err := s.svc.CreateChannelAccount(context.Background(), s.account, "JP", "Acme JP"); err != nil {
		t.Fatal(err)
	}
	out := s.ok("channel-accounts", "list", "--api")
	wantContains(t, "channel-accounts list --api", out, "MARKETPLACE", "JP", "Acme JP", "1 channel account in all")
	var all listJSON[client.ChannelAccount]
	s.okJSON(&all, "channel-accounts", "list", "--api", "--all")
	if len(all.Items) != 1 || all.Items[0].Name != "Acme JP" {
		t.Errorf("channel-accounts list --api --all --json = %+v", all)
	}
	s.fail(2, "channel-accounts", "list", "--api=false")
}

// writeFile writes a file in a new temporary directory with mode perm.
func writeFile(t *testing.T, name, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestAPICredentials(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	config := fmt.Sprintf(`{"api_key": %q, "api_secret": %q, "base_url": %q}`, s.key, s.secret, s.url+"/api/v1/open")
	only := func(vars ...string) map[string]string {
		env := map[string]string{"test_secret": s.secret} // checked, never read
		for i := 0; i+1 < len(vars); i += 2 {
			env[vars[i]] = vars[i+1]
		}
		return env
	}
	try := func(env map[string]string, args ...string) (string, error) {
		t.Helper()
		out, err := runWith(t, env, "", append([]string{"campaigns", "list"}, args...)...)
		return out, err
	}

	// No credentials at all: a usage error that says where to put them.
	_, err := try(only("ADCAMP_BASE_URL", s.url))
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "ADCAMP_API_KEY and ADCAMP_API_SECRET") {
		t.Errorf("without credentials: %v (exit %d), want exit 2 naming the variables", err, exitCode(err))
	}
	if _, err := try(only("ADCAMP_API_KEY", s.key, "ADCAMP_BASE_URL", s.url)); exitCode(err) != 2 {
		t.Errorf("without a secret: %v, want exit 2", err)
	}

	// A config file that others may read is refused; mode 0600 works.
	if runtime.GOOS != "windows" {
		loose := writeFile(t, "config.json", config, 0o644)
		_, err = try(only(), "--config", loose)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "mode 0644") || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("config file of mode 0644: %v (exit %d), want exit 2 saying why", err, exitCode(err))
		}
	}
	strict := writeFile(t, "config.json", config, 0o600)
	if out, err := try(only(), "--config", strict); err != nil || out != "No campaigns.\n" {
		t.Errorf("config file of mode 0600: %q, %v", out, err)
	}
	if _, err := try(only(), "--config", filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing --config file was accepted")
	}
	if _, err := try(only(), "--config", writeFile(t, "c.json", `{"api_key": "k", "secret": "s"}`, 0o600)); exitCode(err) != 2 {
		t.Errorf("config file with an unknown field: %v, want exit 2", err)
	}

	// The default file: $XDG_CONFIG_HOME/adcamp/config.json, else ~/.config/adcamp/config.json.
	xdg := filepath.Dir(filepath.Dir(writeFile(t, "adcamp/config.json", config, 0o600)))
	if _, err := try(only("XDG_CONFIG_HOME", xdg)); err != nil {
		t.Errorf("config in $XDG_CONFIG_HOME: %v", err)
	}
	home := filepath.Dir(filepath.Dir(filepath.Dir(writeFile(t, ".config/adcamp/config.json", config, 0o600))))
	if _, err := try(only("HOME", home)); err != nil {
		t.Errorf("config in ~/.config: %v", err)
	}

	// The environment wins over the file.
	wrong := strings.Replace(config, s.secret, "sk_test_wrongwrongwrongwrongwrongwron", 1)
	wrongFile := writeFile(t, "config.json", wrong, 0o600)
	if _, err := try(only("ADCAMP_API_SECRET", s.secret), "--config", wrongFile); err != nil {
		t.Errorf("right secret in the environment, wrong one in the file: %v", err)
	}
	_, err = try(only("ADCAMP_API_SECRET", "sk_test_wrongwrongwrongwrongwrongwron", "test_secret", s.secret), "--config", strict)
	if exitCode(err) != 1 || !strings.HasPrefix(err.Error(), "INVALID_SIGNATURE: ") || strings.Contains(err.Error(), "wrongwrong") {
		t.Errorf("wrong secret in the environment: %v (exit %d), want exit 1 INVALID_SIGNATURE without the secret", err, exitCode(err))
	}
}

// TestAPIUsageErrors: mistakes on the command line are exit status 2 and
// send no request.
func TestAPIUsageErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("usage error sent %s %s", r.Method, r.URL)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	env := map[string]string{"ADCAMP_API_KEY": "ak_test_x", "ADCAMP_API_SECRET": "sk_test_secretsecretsecret", "ADCAMP_BASE_URL": srv.URL}
	csv := writeFile(t, "kw.csv", "text,match_type\nred,exact\n", 0o600)
	tests := [][]string{
		{"campaigns", "frobnicate"},
		{"campaigns", "get"},
		{"campaigns", "get", "a", "b"},
		{"campaigns", "get", ""},
		{"campaigns", "list", "extra"},
		{"campaigns", "list", "--all", "--page", "2"},
		{"campaigns", "list", "--page", "0"},
		{"campaigns", "list", "--page-size", "101"},
		{"campaigns", "list", "--secret", "sk_test_x"},
		{"campaigns", "list", "--api-secret", "sk_test_x"},
		{"campaigns", "create", "--name", "x", "--marketplace", "US"},
		{"campaigns", "create", "--name", "x", "--budget", "10"},
		{"campaigns", "create", "--name", "x", "--budget", "12.345", "--marketplace", "US"},
		{"campaigns", "create", "--name", "x", "--budget", "ten", "--marketplace", "US"},
		{"campaigns", "create", "--name", "x", "--budget", "1", "--marketplace", "US", "--end-date", "2030-13-01"},
		{"campaigns", "update", "cmp_x"},
		{"campaigns", "update", "cmp_x", "--end-date", "2030-01-01", "--clear-end-date"},
		{"campaigns", "update", "cmp_x", "--name", "y", "--if-match", "0"},
		{"campaigns", "delete", "cmp_x", "--if-match", "-3"},
		{"ad-groups", "list"},
		{"ad-groups", "create", "--campaign", "cmp_x", "--name", "x"},
		{"ad-groups", "update", "adg_x"},
		{"keywords", "list"},
		{"keywords", "create", "--ad-group", "adg_x", "--text", "red"},
		{"keywords", "create", "--ad-group", "adg_x", "--text", "red", "--match-type", "exact", "--partial"},
		{"keywords", "create", "--ad-group", "adg_x", "--text", "red", "--match-type", "exact", "--bid", "0"},
		{"keywords", "create", "--ad-group", "adg_x", "--file", csv, "--text", "red"},
		{"keywords", "update", "kw_x", "--bid", "1", "--clear-bid"},
		{"keywords", "update", "kw_x"},
	}
	for _, args := range tests {
		_, err := runWith(t, env, "", args...)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("adcamp %q: error %v (exit %d), want exit 2", args, err, exitCode(err))
		}
	}
}

// apiData is the data of the API's own answer to a signed GET of path
// (under /api/v1/open), as a generic JSON value.
func (s *apiSandbox) apiData(path string) any {
	s.t.Helper()
	req, err := http.NewRequest("GET", s.url+"/api/v1/open/"+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	signing.SignRequest(req, signing.SchemeA, s.key, s.secret, nil, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var env struct{ Data any }
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != 200 {
		s.t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
	}
	return env.Data
}

// TestJSONIsTheAPIsData: --json prints the API's data object exactly,
// nulls included (a campaign without a channel account, a keyword
// without a bid, a campaign without dates).
func TestJSONIsTheAPIsData(t *testing.T) {
	t.Parallel()
	s := newAPISandbox(t)
	var cmp, ag, kw map[string]any
	s.okJSON(&cmp, "campaigns", "create", "--name", "Sale", "--budget", "50", "--marketplace", "US")
	s.okJSON(&ag, "ad-groups", "create", "--campaign", cmp["id"].(string), "--name", "Shoes", "--default-bid", "0.75")
	s.okJSON(&kw, "keywords", "create", "--ad-group", ag["id"].(string), "--text", "red", "--match-type", "exact")
	ca, err := s.svc.CreateChannelAccount(context.Background(), s.account, "DE", "Acme DE")
	if err != nil {
		t.Fatal(err)
	}
	var onChannel map[string]any
	s.okJSON(&onChannel, "campaigns", "create", "--name", "Sommer", "--budget", "20", "--channel-account", fmt.Sprint(ca.ID),
		"--start-date", "2099-01-01")
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"campaigns", "get", cmp["id"].(string)}, "campaigns/" + cmp["id"].(string)},
		{[]string{"campaigns", "pause", cmp["id"].(string)}, "campaigns/" + cmp["id"].(string)},
		{[]string{"ad-groups", "get", ag["id"].(string)}, "ad-groups/" + ag["id"].(string)},
		{[]string{"keywords", "get", kw["id"].(string)}, "keywords/" + kw["id"].(string)},
		{[]string{"campaigns", "get", onChannel["id"].(string)}, "campaigns/" + onChannel["id"].(string)},
		{[]string{"campaigns", "list"}, "campaigns"},
		{[]string{"ad-groups", "list", "--campaign", cmp["id"].(string)}, "campaigns/" + cmp["id"].(string) + "/ad-groups"},
		{[]string{"keywords", "list", "--ad-group", ag["id"].(string)}, "ad-groups/" + ag["id"].(string) + "/keywords"},
	} {
		var printed any
		s.okJSON(&printed, c.args...)
		if want := s.apiData(c.path); !reflect.DeepEqual(printed, want) {
			got, _ := json.Marshal(printed)
			api, _ := json.Marshal(want)
			t.Errorf("adcamp %v --json printed\n%s\nthe API's data is\n%s", c.args, got, api)
		}
	}
}
