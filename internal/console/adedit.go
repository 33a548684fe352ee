package console

import (
	"net/http"

	"github.com/adcamp/adcamp"
)

// The two generic handlers of campaigns, ad groups and keywords, driven
// by their adKind: the edit form, and the page that confirms an op
// (pause, resume, end, delete) and then does it. Both are gated
// (campaignsForm): what the user may do is on the page already.

// editAd shows the edit form of an entity of kind k, and saves it. A
// change refused because the entity changed since the form was opened
// shows the form again with the values saved now and what the user
// typed that differs, so that nothing of theirs is lost.
func (s *Server) editAd(k *adKind) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		it, err := k.load(s, r, c)
		if err != nil {
			return err
		}
		v := it.view
		p := c.page(r, "Edit "+it.name, "campaigns")
		p.Data = &v
		if r.Method == http.MethodGet {
			p.Form = formOf(it.values)
			return s.render(w, http.StatusOK, k.form, p)
		}
		p.Form = newForm(r, k.fields...)
		ifMatch, err := versionOf(r)
		if err != nil {
			return s.showChange(w, k.form, p, err)
		}
		err = it.save(r, ifMatch)
		if isStale(err) {
			now, gerr := it.again()
			if gerr != nil {
				return gerr
			}
			v = now.view
			v.Conflict = newConflict(k.name, now.version, k.labels, p.Form, now.values)
			p.Form = formOf(now.values)
			return s.render(w, http.StatusConflict, k.form, p)
		}
		if err != nil {
			return s.showChange(w, k.form, p, err, k.fields...)
		}
		return redirect(w, r, withNotice(c.envPath(it.path), k.notice+"-saved"))
	}
}

// changeAd confirms op o on an entity of kind k, then does it. An op
// refused because the entity changed since the page was opened shows
// the page again with the entity as it is now, saying so.
func (s *Server) changeAd(k *adKind, o *op) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		it, err := k.load(s, r, c)
		if err != nil {
			return err
		}
		p := c.page(r, o.Verb+" this "+k.name+"?", "campaigns")
		if p.Data, err = s.opPage(c, k, o, it); err != nil {
			return err
		}
		p.Form = formOf(map[string]string{})
		if r.Method == http.MethodGet {
			return s.render(w, http.StatusOK, "ad-confirm.html", p)
		}
		ifMatch, err := versionOf(r)
		if err != nil {
			return s.showChange(w, "ad-confirm.html", p, err)
		}
		target := ""
		if o == opDelete {
			target, err = it.remove(ifMatch)
		} else if err = it.setStatus(o.Status, ifMatch); err == nil {
			target = withNotice(it.after(r), k.notice+"-"+o.Done)
		}
		if err == nil {
			return redirect(w, r, target)
		}
		if !isStale(err) {
			return s.showChange(w, "ad-confirm.html", p, err)
		}
		now, err := it.again()
		if err != nil {
			return err
		}
		v, err := s.opPage(c, k, o, now)
		if err != nil {
			return err
		}
		v.Stale = true
		p.Data = v
		return s.render(w, http.StatusConflict, "ad-confirm.html", p)
	}
}

// opPage is the content of the page that confirms o on it.
func (s *Server) opPage(c *call, k *adKind, o *op, it *adItem) (*opView, error) {
	v := &opView{Op: o, Kind: k.name, Name: it.name, Status: it.status, Version: it.version,
		Action: c.envPath(it.path + "/" + o.Name), Back: c.envPath(it.path), Facts: it.facts, Closed: it.closed(o)}
	if o == opDelete {
		var err error
		if v.Takes, err = it.takes(); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// op is a change of a campaign, an ad group or a keyword made by a button
// and confirmed on a page of its own (which also serves a link followed
// without JavaScript): pause, resume, end or delete.
type op struct {
	Name    string        // in the path
	Status  adcamp.Status // the status it sets; "" for delete
	Verb    string        // "Pause", for the button and the title
	Done    string        // "paused", for the notice
	Danger  bool
	Explain map[string]string // by kind ("campaign", "ad group", "keyword")
}

var (
	opPause = &op{Name: "pause", Status: adcamp.StatusPaused, Verb: "Pause", Done: "paused", Explain: map[string]string{
		"campaign": "Its ads stop showing until you resume it. Its ad groups and keywords keep their own status.",
		"ad group": "Its ads stop showing until you resume it. Its keywords keep their own status.",
		"keyword":  "It stops matching searches until you resume it.",
	}}
	opResume = &op{Name: "resume", Status: adcamp.StatusActive, Verb: "Resume", Done: "resumed", Explain: map[string]string{
		"campaign": "It becomes active again: its active ad groups and keywords show ads again.",
		"ad group": "It becomes active again: its active keywords match searches again.",
		"keyword":  "It becomes active again and matches searches.",
	}}
	opEnd = &op{Name: "end", Status: adcamp.StatusEnded, Verb: "End", Done: "ended", Danger: true, Explain: map[string]string{
		"campaign": "Its ads stop for good. An ended campaign cannot be resumed or changed, and nothing can be added under it; it can only be deleted.",
	}}
	opDelete = &op{Name: "delete", Verb: "Delete", Done: "deleted", Danger: true, Explain: map[string]string{
		"campaign": "This cannot be undone.",
		"ad group": "This cannot be undone.",
		"keyword":  "This cannot be undone.",
	}}
)

// campaignOps and childOps are the confirmed changes of a campaign, and
// of an ad group or a keyword.
var (
	campaignOps = []*op{opPause, opResume, opEnd, opDelete}
	childOps    = []*op{opPause, opResume, opDelete}
)

// opView is the content of the page that confirms an op.
type opView struct {
	Op      *op
	Kind    string // "campaign", "ad group", "keyword"
	Name    string // what the entity is called
	Status  adcamp.Status
	Facts   []fact
	Takes   string // what a delete takes with it: "2 ad groups and 50 keywords"
	Action  string // where the form posts
	Back    string // where Cancel leads
	Version int64
	// Closed says why the op cannot be done now (an ended campaign), and
	// then no button is shown; the service refuses it anyway.
	Closed string
	// Stale says the entity changed since the page that asked was opened.
	Stale bool
}
