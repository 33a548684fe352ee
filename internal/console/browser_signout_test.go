package console_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestBrowserBackAfterSignOut: after Sign out (or Sign out everywhere),
// the browser's Back button shows the sign-in page, never the signed-in
// page left behind: Chromium would restore that from its back/forward
// cache, despite Cache-Control: no-store. The console keeps it out of the
// cache without JavaScript (it is not restored even with it), so one of
// the two runs without.
func TestBrowserBackAfterSignOut(t *testing.T) {
	for _, c := range []struct {
		name string
		next string // where sign-in leads: the page signed out from
		form string // the sign-out form on it
		js   bool
	}{
		{"sign-out", "", ".who form", true},
		{"sign-out-everywhere without JavaScript", "/settings", `form[action="/settings/sign-out-everywhere"]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := newBrowser(t)
			e := newEnv(t)
			e.owner()
			if !c.js {
				if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
					t.Fatal(err)
				}
			}
			signInTo(t, ctx, e, c.next)
			if got := textOf(t, ctx, ".who .email"); got != ownerEmail {
				t.Fatalf("signed in, the header shows %q, want %s", got, ownerEmail)
			}
			click(t, ctx, c.form+" button[type=submit]")
			if got := textOf(t, ctx, ".notice"); !strings.Contains(got, "signed out") {
				t.Fatalf("after %s the page says %q", c.name, got)
			}
			if back(t, ctx) == cdppage.NavigationTypeBackForwardCacheRestore {
				t.Errorf("Back after %s restored the signed-in page from the back/forward cache", c.name)
			}
			wantSignedOutPage(t, ctx, "Back after "+c.name)
			shot(t, ctx, "18-back-after-"+strings.ReplaceAll(c.name, " ", "-"))
		})
	}
}

// TestBrowserBackAfterSessionEnded: a page left while signed in, in the
// back/forward cache, whose session then ends elsewhere (Sign out
// everywhere in another browser), is loaded again when Back restores it,
// and shows the sign-in page.
func TestBrowserBackAfterSessionEnded(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	other, _ := e.owner()
	signInTo(t, ctx, e, "")
	click(t, ctx, `nav a[href="/settings"]`)
	other.post("/settings/sign-out-everywhere", nil).wantStatus(200).wantText(".notice", "signed out everywhere")
	// Restored from the back/forward cache, the page is loaded again by
	// the console's script.
	back(t, ctx)
	wantSignedOutPage(t, ctx, "Back after the session ended elsewhere")
	shot(t, ctx, "19-back-after-session-ended")
}

// signInTo signs in through the sign-in page, going to next afterwards
// ("" for the home page), as people do: the page reached is the answer
// to the sign-in form's post.
func signInTo(t *testing.T, ctx context.Context, e *testEnv, next string) {
	t.Helper()
	path := "/sign-in"
	if next != "" {
		path += "?next=" + url.QueryEscape(next)
	}
	do(t, ctx, chromedp.Navigate(e.console.URL+path), chromedp.WaitVisible(chromedp.CSS("#f-email")),
		chromedp.SendKeys(chromedp.CSS("#f-email"), ownerEmail), chromedp.SendKeys(chromedp.CSS("#f-password"), ownerPassword))
	submit(t, ctx, "main form", ".who .email")
}

// wantSignedOutPage checks that the page shown, once settled, is the
// sign-in page, with nothing of the signed-in user. It reads the page by
// script, again until it has settled (loaded, and not hidden by the
// console's script before loading it again), for up to 30 s: after a
// restore from the back/forward cache, chromedp's queries of the DOM may
// wait forever.
func wantSignedOutPage(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	const settled = `document.readyState === "complete" && document.documentElement.style.visibility !== "hidden" && ` +
		`document.querySelector("main h1") !== null`
	var page struct {
		H1   string `json:"h1"`
		Body string `json:"body"`
	}
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](settled))
		if err == nil && ok {
			page, err = chromedp.Run(ctx, chromedp.Evaluate[struct {
				H1   string `json:"h1"`
				Body string `json:"body"`
			}](`({h1: document.querySelector("main h1").innerText, body: document.body.innerText})`))
			if err == nil {
				break
			}
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%s: the page did not settle (%v)", what, err)
		}
	}
	if strings.Contains(page.Body, ownerEmail) || strings.TrimSpace(page.H1) != "Sign in" {
		t.Errorf("%s shows %q, with the user's email: %v; want the sign-in page, without it",
			what, page.H1, strings.Contains(page.Body, ownerEmail))
	}
}

// back goes back in the history and waits for the page it shows:
// restored from the back/forward cache or loaded again. It returns which.
func back(t *testing.T, ctx context.Context) cdppage.NavigationType {
	t.Helper()
	nav := chromedp.WaitEvent(cdppage.FrameNavigated, nil, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		h, err := cdp.Call(ctx, tg, cdppage.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return err
		}
		if h.CurrentIndex < 1 {
			return fmt.Errorf("no page to go back to (history %+v)", h.Entries)
		}
		_, err = cdp.Call(ctx, tg, cdppage.NavigateToHistoryEntry, cdppage.NavigateToHistoryEntryParams{EntryID: h.Entries[h.CurrentIndex-1].ID})
		return err
	}))
	ev, err := chromedp.Run(ctx, nav)
	if err != nil {
		t.Fatalf("back: %v", err)
	}
	t.Logf("back to %s (%s)", ev.Frame.URL, ev.Type)
	return ev.Type
}
