package console

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"

	"github.com/adcamp/adcamp/internal/service"
)

// The signed-in user's own settings: password, two-step sign-in,
// sessions.

// accounts lists the accounts of the signed-in user.
func (s *Server) accounts(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.render(w, http.StatusOK, "accounts.html", c.page(r, "Your accounts", ""))
}

// settingsView is the settings page's content.
type settingsView struct {
	RecoveryCodesLeft int64
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Your settings", "settings")
	var v settingsView
	if c.session.User.TwoStep {
		n, err := s.svc.RecoveryCodesLeft(c.ctx)
		if err != nil {
			return err
		}
		v.RecoveryCodesLeft = n
	}
	p.Data = v
	return s.render(w, http.StatusOK, "settings.html", p)
}

// changePassword changes the user's password; their other sessions end.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Change your password", "settings")
	p.Form = newForm(r)
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "password.html", p)
	}
	if r.PostFormValue("new_password") != r.PostFormValue("new_password_again") {
		return s.differ(w, "password.html", p, "new_password_again")
	}
	err := s.svc.ChangePassword(c.ctx, c.token, r.PostFormValue("current_password"), r.PostFormValue("new_password"))
	if err != nil {
		return s.showForm(w, "password.html", p, err)
	}
	return redirect(w, r, withNotice("/settings", "password-changed"))
}

// signOutEverywhere ends every session of the user, this one included.
func (s *Server) signOutEverywhere(w http.ResponseWriter, r *http.Request, c *call) error {
	if _, err := s.svc.SignOutEverywhere(c.ctx, c.token); err != nil {
		return err
	}
	s.signedOut(w)
	return redirect(w, r, withNotice("/sign-in", "signed-out-all"))
}

// twoStepView is the content of the page that adds an authenticator.
type twoStepView struct {
	Setup *service.TwoStepSetup
	QR    template.URL // the key as a QR code, a PNG data URL
}

// beginTwoStep starts adding an authenticator app: its key, to scan or
// type, and the form that confirms it with a first code.
func (s *Server) beginTwoStep(w http.ResponseWriter, r *http.Request, c *call) error {
	setup, err := s.svc.BeginTwoStep(c.ctx)
	if err != nil {
		return err
	}
	return s.showTwoStep(w, r, c, setup, nil)
}

func (s *Server) showTwoStep(w http.ResponseWriter, r *http.Request, c *call, setup *service.TwoStepSetup, err error) error {
	qr, qerr := qrCode(setup.URL)
	if qerr != nil {
		return qerr
	}
	p := c.page(r, "Set up two-step sign-in", "settings")
	p.Form, p.Data = newForm(r), twoStepView{Setup: setup, QR: qr}
	if err != nil {
		return s.showForm(w, "two-step.html", p, err)
	}
	return s.render(w, http.StatusOK, "two-step.html", p)
}

// qrCode draws an otpauth:// URL as a QR code, as a data URL for an img.
func qrCode(keyURL string) (template.URL, error) {
	key, err := otp.NewKeyFromURL(keyURL)
	if err != nil {
		return "", err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	// The URL is made here from an image we drew: safe for src.
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// codesView is the content of the page that shows recovery codes once.
type codesView struct {
	Codes []string
	New   bool // replacing earlier ones, rather than turning two steps on
}

// enableTwoStep confirms the authenticator with a code and the password,
// and shows the recovery codes, once.
func (s *Server) enableTwoStep(w http.ResponseWriter, r *http.Request, c *call) error {
	token := r.PostFormValue("token")
	codes, err := s.svc.EnableTwoStep(c.ctx, token, r.PostFormValue("code"), r.PostFormValue("password"))
	if err != nil {
		setup, perr := s.svc.PendingTwoStep(c.ctx, token)
		if perr != nil {
			return perr
		}
		return s.showTwoStep(w, r, c, setup, err)
	}
	p := c.page(r, "Your recovery codes", "settings")
	p.Data = codesView{Codes: codes}
	return s.render(w, http.StatusOK, "recovery-codes.html", p)
}

// disableTwoStep turns two-step sign-in off, with the password.
func (s *Server) disableTwoStep(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Turn off two-step sign-in", "settings")
	p.Form = newForm(r)
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "two-step-off.html", p)
	}
	if err := s.svc.DisableTwoStep(c.ctx, r.PostFormValue("password")); err != nil {
		return s.showForm(w, "two-step-off.html", p, err)
	}
	return redirect(w, r, withNotice("/settings", "two-step-off"))
}

// recoveryCodes replaces the recovery codes, with the password.
func (s *Server) recoveryCodes(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "New recovery codes", "settings")
	p.Form = newForm(r)
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "recovery-new.html", p)
	}
	codes, err := s.svc.NewRecoveryCodes(c.ctx, r.PostFormValue("password"))
	if err != nil {
		return s.showForm(w, "recovery-new.html", p, err)
	}
	p.Title, p.Data = "Your recovery codes", codesView{Codes: codes, New: true}
	return s.render(w, http.StatusOK, "recovery-codes.html", p)
}
