package console

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// handler is a page's handler: it writes its answer, or returns an error
// for fail to render.
type handler func(w http.ResponseWriter, r *http.Request) error

// signedHandler is the handler of a page for signed-in users.
type signedHandler func(w http.ResponseWriter, r *http.Request, c *call) error

// statusOf is the one table from error code to the status of the error
// page.
var statusOf = map[adcamp.Code]int{
	adcamp.CodeValidation:   http.StatusBadRequest,
	adcamp.CodeNotFound:     http.StatusNotFound,
	adcamp.CodeForbidden:    http.StatusForbidden,
	adcamp.CodeUnauthorized: http.StatusUnauthorized,
	adcamp.CodeConflict:     http.StatusConflict,
	adcamp.CodeRateLimited:  http.StatusTooManyRequests,
	adcamp.CodeUnavailable:  http.StatusServiceUnavailable,

	adcamp.CodePayloadTooLarge: http.StatusRequestEntityTooLarge,

	adcamp.CodeInvalidStateTransition: http.StatusConflict,
	adcamp.CodeDuplicateKeyword:       http.StatusConflict,
	adcamp.CodePreconditionFailed:     http.StatusConflict,
}

// errorView is the error page's content.
type errorView struct {
	Status    int
	Heading   string
	Message   string
	RequestID string
}

var headings = map[int]string{
	http.StatusBadRequest:            "That request could not be understood",
	http.StatusNotFound:              "Not found",
	http.StatusForbidden:             "Not allowed",
	http.StatusUnauthorized:          "Sign in to continue",
	http.StatusConflict:              "That cannot be done now",
	http.StatusTooManyRequests:       "Too many attempts",
	http.StatusRequestEntityTooLarge: "That was too large",
	http.StatusServiceUnavailable:    "The console is unavailable",
	http.StatusInternalServerError:   "Something went wrong",
}

// fail is the one place that turns an error into an error page. An
// *adcamp.Error is shown as it is; anything else is logged in full and
// shown as a generic message with the request's id.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	id := w.Header().Get("X-Request-Id")
	var e *adcamp.Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return // the client went away
		}
		s.log.ErrorContext(r.Context(), "console error", "request_id", id, "route", r.Pattern, "err", err)
		e = &adcamp.Error{Code: adcamp.CodeInternal, Message: "An unexpected error occurred. Try again; if it persists, quote the request id to your operator."}
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	s.log.DebugContext(r.Context(), "console request failed", "request_id", id, "code", e.Code, "status", status)
	p := &page{Title: headings[status], Data: errorView{Status: status, Heading: headings[status], Message: e.Message, RequestID: id}}
	if rerr := s.render(w, status, "error.html", p); rerr != nil {
		s.log.Error("render the error page", "request_id", id, "err", rerr)
		http.Error(w, "Something went wrong; quote request id "+id, http.StatusInternalServerError)
	}
}

// public serves a page that needs no session.
func (s *Server) public(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := readForm(r)
		if err == nil {
			err = h(w, r)
		}
		if err != nil {
			s.fail(w, r, err)
		}
	})
}

// readForm reads r's query and form once, before any page's handler: a
// form or query that cannot be read (a bad % escape, a malformed
// Content-Type or multipart body) is answered 400, a body over its limit
// (bodyLimit) 413, whoever sends it. Handlers then read fields with
// FormValue, which would otherwise take such a form for an empty one and
// act on it (a confirmation needs no field), or fail with an internal
// error where they parse the form themselves.
func readForm(r *http.Request) error {
	err := r.ParseForm()
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && ct == "multipart/form-data" {
		err = r.ParseMultipartForm(maxPaste)
	}
	if err == nil {
		return nil
	}
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		limit, hint := "64 KiB", ""
		if mbe.Limit >= maxPaste {
			limit, hint = "1 MiB", fmt.Sprintf(" (at most %s keywords of up to 80 characters in one paste)", grouped(adcamp.MaxKeywordBatch))
		}
		return adcamp.Errorf(adcamp.CodePayloadTooLarge,
			"That form was larger than the console takes (%s), so nothing was changed. Go back and send less at once%s.", limit, hint)
	}
	return errUnreadable
}

var errUnreadable = adcamp.Errorf(adcamp.CodeValidation,
	"That request could not be read: its form or its address is not written as a browser writes them, so nothing was changed. "+
		"Go back, reload the page and try again.")

// signedIn serves a page for signed-in users; others are sent to sign in
// (and brought back after).
func (s *Server) signedIn(h signedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := readForm(r); err != nil {
			s.fail(w, r, err)
			return
		}
		c, err := s.newCall(w, r)
		if adcamp.ErrorCode(err) == adcamp.CodeUnauthorized {
			s.clearSession(w)
			next := ""
			if r.Method == http.MethodGet {
				next = "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, "/sign-in"+next, http.StatusSeeOther)
			return
		}
		if err == nil {
			c.current = s.chooseEnv(w, r)
			err = h(w, r, c)
		}
		if err != nil {
			s.fail(w, r, err)
		}
	})
}

// inAccount serves a page of an account ({account} in the path) for its
// members; to anyone else the account does not exist.
func (s *Server) inAccount(h signedHandler) http.Handler {
	return s.signedIn(func(w http.ResponseWriter, r *http.Request, c *call) error {
		id := r.PathValue("account")
		for _, a := range c.accounts {
			if a.Account.ID == id {
				c.account, c.role = &a.Account, a.Role
				return h(w, r, c)
			}
		}
		return adcamp.NotFound("account", id)
	})
}

// newCall finds the session of r and the user's accounts.
func (s *Server) newCall(w http.ResponseWriter, r *http.Request) (*call, error) {
	token := s.sessionToken(r)
	ss, err := s.svc.Session(r.Context(), token)
	if err != nil {
		return nil, err
	}
	ctx := service.WithOrigin(r.Context(), service.Origin{
		Actor:     adcamp.Actor{Type: adcamp.ActorUser, ID: ss.User.ID},
		RequestID: w.Header().Get("X-Request-Id"),
	})
	accounts, err := s.svc.Accounts(ctx)
	if err != nil {
		return nil, err
	}
	return &call{ctx: ctx, token: token, session: ss, accounts: accounts}, nil
}
