package console

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The session cookie. Under TLS it is Secure and named with the __Host-
// prefix, which browsers accept only from a secure origin, for the whole
// site (Path=/) and without a Domain: no other host can set or read it.
const sessionCookie = "adcamp_session"

func (s *Server) cookieName() string {
	if s.secure {
		return "__Host-" + sessionCookie
	}
	return sessionCookie
}

func (s *Server) sessionToken(r *http.Request) string {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

// setSession gives the browser a new session's token.
func (s *Server) setSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: token, Path: "/", MaxAge: int(service.SessionLifetime.Seconds()),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// clearSession tells the browser to forget its session cookie.
func (s *Server) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// home sends a signed-in user to their account (or the list of their
// accounts), anyone else to sign in.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	c, err := s.newCall(w, r)
	if adcamp.ErrorCode(err) == adcamp.CodeUnauthorized {
		return redirect(w, r, "/sign-in")
	}
	if err != nil {
		return err
	}
	return redirect(w, r, homeOf(c))
}

// homeOf is where a signed-in user starts: the API keys of their only
// account, or the list of their accounts.
func homeOf(c *call) string {
	if len(c.accounts) == 1 {
		return "/accounts/" + c.accounts[0].Account.ID + "/api-keys"
	}
	return "/accounts"
}

// localPath accepts a path to go back to after signing in: one of this
// site's, never another site's, or "". It must parse as a reference
// relative to the console with no scheme and no host, and begin with a
// single slash ("//evil.example" names a host). Browsers drop tabs and
// line breaks from a URL and read a backslash as a slash ("/\t/evil" and
// "/\evil" are "//evil" to them), so no control character, invisible
// format character or backslash may appear in it, nor in its path once
// decoded ("/%09/evil"): the console's own paths have none.
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(u.Path, "//") {
		return ""
	}
	if !plainURLText(next) || !plainURLText(u.Path) {
		return ""
	}
	return next
}

// plainURLText reports whether s (a URL, or its decoded path) is valid
// UTF-8 with no control character, format character (zero-width,
// bidirectional) or backslash.
func plainURLText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return r == '\\' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}) < 0
}

// signInView is the sign-in page's content.
type signInView struct {
	Next string
	// ClearPath is the stylesheet that clears what a sign-out left in
	// the browser (see signedOut), on the page shown after one.
	ClearPath string
}

// signIn shows the sign-in form and checks it. A user with an
// authenticator app gets the code form next.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) error {
	p := &page{Title: "Sign in", Form: newForm(r, "email"), Notice: notice(r)}
	next := localPath(r.FormValue("next"))
	v := signInView{Next: next}
	if done := r.URL.Query().Get("done"); done == "signed-out" || done == "signed-out-all" {
		v.ClearPath = clearPath
	}
	p.Data = v
	if r.Method == http.MethodGet {
		if _, err := s.svc.Session(r.Context(), s.sessionToken(r)); err == nil {
			return redirect(w, r, "/")
		}
		return s.render(w, http.StatusOK, "sign-in.html", p)
	}
	in, err := s.svc.SignIn(r.Context(), service.SignInRequest{
		Email: r.PostFormValue("email"), Password: r.PostFormValue("password"), ClientAddr: clientAddr(r)})
	if err != nil {
		p.Form.refocus = "password" // the email is kept; the password is typed again
		return s.showForm(w, "sign-in.html", p, err)
	}
	return s.signedInAs(w, r, in, next)
}

// signedInAs completes a step of signing in: a session starts, or the
// code form is shown.
func (s *Server) signedInAs(w http.ResponseWriter, r *http.Request, in *service.SignIn, next string) error {
	if in.SecondStep != "" {
		p := &page{Title: "Enter your code", Form: newForm(r), Data: codeView{Step: in.SecondStep, Next: next, Email: in.User.Email}}
		return s.render(w, http.StatusOK, "sign-in-code.html", p)
	}
	s.setSession(w, in.Session)
	if next == "" {
		next = "/"
	}
	return redirect(w, r, next)
}

// codeView is the second step's content.
type codeView struct {
	Step  string // the token of the sign-in awaiting its code
	Next  string
	Email string
}

// signInCode checks the second step of a sign-in: a code of the user's
// authenticator app, or a recovery code.
func (s *Server) signInCode(w http.ResponseWriter, r *http.Request) error {
	step, next := r.PostFormValue("step"), localPath(r.PostFormValue("next"))
	u, err := s.svc.SecondStepUser(r.Context(), step)
	if err != nil {
		return redirectSignIn(w, r, err)
	}
	in, err := s.svc.SignInCode(r.Context(), step, r.PostFormValue("code"), clientAddr(r))
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return redirectSignIn(w, r, err)
	}
	if err != nil {
		p := &page{Title: "Enter your code", Form: newForm(r), Data: codeView{Step: step, Next: next, Email: u.Email}}
		return s.showForm(w, "sign-in-code.html", p, err)
	}
	return s.signedInAs(w, r, in, next)
}

// redirectSignIn sends a sign-in whose second step has expired back to
// the start.
func redirectSignIn(w http.ResponseWriter, r *http.Request, err error) error {
	if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		return err
	}
	return redirect(w, r, withNotice("/sign-in", "sign-in-expired"))
}

// signOut ends the browser's session.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if token := s.sessionToken(r); token != "" {
		if err := s.svc.SignOut(r.Context(), token); err != nil {
			return err
		}
	}
	s.signedOut(w)
	return redirect(w, r, withNotice("/sign-in", "signed-out"))
}

// Signing out leaves nothing of the session in the browser: no cookie,
// nothing cached, and no signed-in page that Back can show again.
//
// The answer to the sign-out asks the browser to clear the console's
// cookies and cache (Clear-Site-Data). But it arrives while the page
// signed out from is still the one shown, and Chromium puts that page in
// its back/forward cache only afterwards, once the next page is shown,
// despite Cache-Control: no-store: Back would restore it, the user's
// email in its header. So the sign-in page shown after a sign-out loads
// a stylesheet (clearPath) whose answer asks again to clear the cache,
// which then empties the back/forward cache too; and the console's
// script loads any page restored from that cache again (pageshow), for
// the browsers that keep one anyway.
const (
	clearSignedOut = `"cache", "cookies"`
	clearPath      = "/signed-out.css"
)

// signedOut tells the browser that its session has ended.
func (s *Server) signedOut(w http.ResponseWriter) {
	s.clearSession(w)
	w.Header().Set("Clear-Site-Data", clearSignedOut)
}

// clearCache answers the stylesheet of the page shown after a sign-out:
// empty, with Clear-Site-Data "cache" (see signedOut).
func clearCache(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Clear-Site-Data", `"cache"`)
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.WriteHeader(http.StatusOK)
}

// setupView is the setup page's content.
type setupView struct {
	Token string
}

// setup is the page of the setup link: it creates the first account and
// its owner, and signs them in.
func (s *Server) setup(w http.ResponseWriter, r *http.Request) error {
	token := r.FormValue("token")
	if err := s.svc.CheckSetupLink(r.Context(), token); err != nil {
		return err
	}
	p := &page{Title: "Set up adcamp", Form: newForm(r, "account_name", "email"), Data: setupView{Token: token}}
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "setup.html", p)
	}
	if r.PostFormValue("password") != r.PostFormValue("password_again") {
		return s.differ(w, "setup.html", p, "password_again")
	}
	in, err := s.svc.Setup(r.Context(), service.SetupRequest{Token: token, AccountName: r.PostFormValue("account_name"),
		Email: r.PostFormValue("email"), Password: r.PostFormValue("password")})
	if err != nil {
		return s.showForm(w, "setup.html", p, err)
	}
	s.setSession(w, in.Session)
	return redirect(w, r, "/")
}

// passwordView is the set-password page's content.
type passwordView struct {
	Token string
	Email string
	// Invites are the accounts of an invitation: which, with which role,
	// from whom. A reset link (the user had a password) shows none.
	Invites []service.Invite
	Reset   bool
}

// setPassword is the page of an invitation (or reset) link: the user
// chooses a password and is signed in.
func (s *Server) setPassword(w http.ResponseWriter, r *http.Request) error {
	token := r.FormValue("token")
	u, invites, err := s.svc.PasswordLinkInvites(r.Context(), token)
	if err != nil {
		return err
	}
	v := passwordView{Token: token, Email: u.Email, Invites: invites, Reset: u.PasswordSet}
	p := &page{Title: "Choose your password", Form: newForm(r), Data: v}
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "set-password.html", p)
	}
	if r.PostFormValue("password") != r.PostFormValue("password_again") {
		return s.differ(w, "set-password.html", p, "password_again")
	}
	in, err := s.svc.SetPassword(r.Context(), token, r.PostFormValue("password"))
	if err != nil {
		return s.showForm(w, "set-password.html", p, err)
	}
	return s.signedInAs(w, r, in, "")
}

// differ shows a form again whose password, typed twice, differs.
func (s *Server) differ(w http.ResponseWriter, name string, p *page, field string) error {
	p.Form.errors[field] = "The two passwords differ; type the same one twice."
	p.Form.Error = "A field needs another look: see the message below it."
	return s.render(w, http.StatusUnprocessableEntity, name, p)
}
