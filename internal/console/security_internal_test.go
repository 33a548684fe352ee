package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// browserReads is the URL a browser goes to for a Location header loc
// of a page at base: it drops tabs and line breaks, trims spaces and
// controls at the ends, and reads backslashes as slashes.
func browserReads(base *url.URL, loc string) (*url.URL, error) {
	read := strings.TrimFunc(loc, func(r rune) bool { return r <= ' ' })
	read = strings.ReplaceAll(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, read), "\\", "/")
	return base.Parse(read)
}

// TestSignInRedirect: after a sign-in the console goes to next only if it
// is a path of its own; anything a browser could take to another host
// (control characters it drops, backslashes it reads as slashes, a
// scheme, a host, encoded slashes, invisible characters) goes to the home
// page. It asserts the Location header of the step that answers a
// sign-in (signedInAs), as the server sends it.
func TestSignInRedirect(t *testing.T) {
	t.Parallel()
	s := &Server{}
	base, _ := url.Parse("http://console.example/sign-in")
	for _, c := range []struct{ next, want string }{
		{"/settings", "/settings"},
		{"/accounts/acc_1/sandbox/campaigns?status=paused&page=2", "/accounts/acc_1/sandbox/campaigns?status=paused&page=2"},
		{"/javascript:alert(1)", "/javascript:alert(1)"}, // a path of the console
		{"/@evil.example", "/@evil.example"},
		{"", "/"},
		{"//evil.example/", "/"},
		{"///evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"\\\\evil.example/", "/"},
		{"/\t/evil.example/", "/"},
		{"/\t\\evil.example/", "/"},
		{"\t//evil.example/", "/"},
		{"/\n/evil.example/", "/"},
		{"/\r\n/evil.example/", "/"},
		{" //evil.example/", "/"},
		{"/\x00/evil.example/", "/"},
		{"/\x7f/evil.example/", "/"},
		{"/\u0085/evil.example/", "/"}, // a C1 control
		{"/\u200b/evil.example/", "/"}, // zero-width space
		{"/\u202e/evil.example/", "/"}, // right-to-left override
		{"/\ufeff/evil.example/", "/"},
		{"/\xff/evil.example/", "/"}, // not UTF-8
		{"/%09/evil.example/", "/"},
		{"/%0a/evil.example/", "/"},
		{"/%2F%2Fevil.example/", "/"},
		{"/%2f/evil.example/", "/"},
		{"/%5Cevil.example/", "/"},
		{"%2F%2Fevil.example/", "/"},
		{"https://evil.example/", "/"},
		{"http:evil.example", "/"},
		{"https:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"JaVaScRiPt:alert(1)", "/"},
		{"data:text/html,<script>alert(1)</script>", "/"},
		{"evil.example", "/"},
		{"／／evil.example/", "/"}, // fullwidth solidi
		{"/%zz", "/"},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/sign-in", nil)
		if err := s.signedInAs(w, r, &service.SignIn{Session: "a session"}, localPath(c.next)); err != nil {
			t.Fatal(err)
		}
		got := w.Header().Get("Location")
		if w.Code != http.StatusSeeOther || got != c.want {
			t.Errorf("sign-in with next=%q: %d, Location %q; want 303, %q", c.next, w.Code, got, c.want)
		}
		if u, err := browserReads(base, got); err != nil || u.Host != base.Host {
			t.Errorf("sign-in with next=%q: Location %q leads a browser to %v (%v), off the console", c.next, got, u, err)
		}
	}
}

// FuzzLocalPath: whatever localPath accepts, a browser resolves on the
// console's own host, however it reads the URL (tabs and line breaks
// dropped, backslashes read as slashes, leading and trailing spaces and
// controls trimmed).
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/settings", "/a?b=c#d", "//evil", "/\\evil", "/\t/evil", "/%09/evil", "/%2F%2Fevil",
		"https://evil", "javascript:x", "/\u200b/evil", "／／evil", "/..//evil", "/%2e%2e//evil"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://console.example/accounts/x/api-keys")
	f.Fuzz(func(t *testing.T, next string) {
		got := localPath(next)
		if got == "" {
			return
		}
		if got != next {
			t.Fatalf("localPath(%q) = %q, want it unchanged or refused", next, got)
		}
		u, err := browserReads(base, got)
		if err != nil || u.Host != base.Host || u.Scheme != base.Scheme {
			t.Fatalf("localPath(%q) accepted it, but a browser reads %v (%v)", next, u, err)
		}
	})
}

// TestDescribeTwoStepReset: the history line of an operator's
// adcamp users reset-two-step.
func TestDescribeTwoStepReset(t *testing.T) {
	t.Parallel()
	on, off := "true", "false"
	got, _ := describe(&adcamp.Change{Operation: adcamp.OpUpdate, EntityType: adcamp.EntityMember,
		Changes: []adcamp.FieldChange{{Field: "two_step", Old: &on, New: &off}}})
	if want := "changed two-step sign-in on → off"; got != want {
		t.Errorf("describe(two_step true → false) = %q, want %q", got, want)
	}
}
