package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The account's members: who may sign in to it, with which role.

// membersView is the members page's content.
type membersView struct {
	Members []*adcamp.Member
	Me      string // the signed-in user's id
}

func (s *Server) members(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showMembers(w, r, c, http.StatusOK, nil)
}

// showMembers renders the members page, with err (a refused change) on
// its form.
func (s *Server) showMembers(w http.ResponseWriter, r *http.Request, c *call, status int, err error) error {
	ms, lerr := s.svc.Members(c.ctx, c.account.ID)
	if lerr != nil {
		return lerr
	}
	p := c.page(r, "Members", "members")
	p.Form, p.Data = newForm(r), membersView{Members: ms, Me: c.session.User.ID}
	if err != nil {
		return s.showForm(w, "members.html", p, err)
	}
	return s.render(w, status, "members.html", p)
}

// addMember adds a member by email. A new user gets a link to set their
// password, shown here to pass on (no mail is sent).
func (s *Server) addMember(w http.ResponseWriter, r *http.Request, c *call) error {
	p := c.page(r, "Add a member", "members")
	p.Form = newForm(r, "email", "role")
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "member-new.html", p)
	}
	inv, err := s.svc.AddMember(c.ctx, c.account.ID, r.PostFormValue("email"), adcamp.Role(r.PostFormValue("role")))
	if err != nil {
		return s.showForm(w, "member-new.html", p, err)
	}
	if inv.Token == "" {
		return redirect(w, r, withNotice(c.accountPath("/members"), "member-added"))
	}
	return s.showLink(w, r, c, inv)
}

// linkView is the content of the page that shows an invitation link.
type linkView struct {
	Member  adcamp.Member
	URL     string
	Expires time.Time
}

// showLink shows the set-password link of an invitation.
func (s *Server) showLink(w http.ResponseWriter, r *http.Request, c *call, inv *service.Invitation) error {
	p := c.page(r, "Invitation link", "members")
	p.Data = linkView{Member: inv.Member, URL: s.baseURL(r) + "/set-password?token=" + url.QueryEscape(inv.Token), Expires: inv.ExpiresAt}
	return s.render(w, http.StatusOK, "member-link.html", p)
}

// baseURL is the console's address as its users reach it: the configured
// one, or the one this request came to.
func (s *Server) baseURL(r *http.Request) string {
	if s.base != "" {
		return s.base
	}
	scheme := "http"
	if s.secure || r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// setRole changes a member's role.
func (s *Server) setRole(w http.ResponseWriter, r *http.Request, c *call) error {
	_, err := s.svc.SetMemberRole(c.ctx, c.account.ID, r.PathValue("user"), adcamp.Role(r.PostFormValue("role")))
	if err != nil {
		return s.showMembers(w, r, c, 0, err)
	}
	return redirect(w, r, withNotice(c.accountPath("/members"), "role-changed"))
}

// newLink makes a new invitation link for a member who has not set a
// password yet.
func (s *Server) newLink(w http.ResponseWriter, r *http.Request, c *call) error {
	inv, err := s.svc.NewInvitation(c.ctx, c.account.ID, r.PathValue("user"))
	if err != nil {
		return s.showMembers(w, r, c, 0, err)
	}
	return s.showLink(w, r, c, inv)
}

// removeView is the content of the page that confirms a removal.
type removeView struct {
	Member *adcamp.Member
	Me     bool
}

// removeMember asks to confirm, then takes a member out of the account.
func (s *Server) removeMember(w http.ResponseWriter, r *http.Request, c *call) error {
	m, err := s.svc.Member(c.ctx, c.account.ID, r.PathValue("user"))
	if err != nil {
		return err
	}
	p := c.page(r, "Remove "+m.User.Email+"?", "members")
	p.Form, p.Data = newForm(r), removeView{Member: m, Me: m.User.ID == c.session.User.ID}
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "member-remove.html", p)
	}
	if _, err := s.svc.RemoveMember(c.ctx, c.account.ID, m.User.ID); err != nil {
		return s.showForm(w, "member-remove.html", p, err)
	}
	if m.User.ID == c.session.User.ID {
		return redirect(w, r, "/")
	}
	return redirect(w, r, withNotice(c.accountPath("/members"), "member-removed"))
}
