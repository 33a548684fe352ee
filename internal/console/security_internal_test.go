package console

import (
	"net/url"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

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
		read := strings.TrimFunc(got, func(r rune) bool { return r <= ' ' })
		read = strings.ReplaceAll(strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, read), "\\", "/")
		u, err := base.Parse(read)
		if err != nil || u.Host != base.Host || u.Scheme != base.Scheme {
			t.Fatalf("localPath(%q) accepted it, but a browser reads %v (%v)", next, u, err)
		}
	})
}

// TestDescribeTwoStepReset: the history line of an operator's
// adcamp users reset-two-step.
func TestDescribeTwoStepReset(t *testing.T) {
	on, off := "true", "false"
	got, _ := describe(&adcamp.Change{Operation: adcamp.OpUpdate, EntityType: adcamp.EntityMember,
		Changes: []adcamp.FieldChange{{Field: "two_step", Old: &on, New: &off}}})
	if want := "changed two-step sign-in on → off"; got != want {
		t.Errorf("describe(two_step true → false) = %q, want %q", got, want)
	}
}
