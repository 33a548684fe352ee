package console

import (
	"net/http"
	"strconv"

	"github.com/adcamp/adcamp"
)

// The ad groups of a campaign: an ad group's page with its keywords, the
// forms that create and edit one, and the pages that confirm a pause, a
// resume or a delete.

// adGroupView is an ad group's page.
type adGroupView struct {
	Group     *adcamp.AdGroup
	Campaign  *adcamp.Campaign
	Facts     []fact
	Keywords  []*adcamp.Keyword
	Status    adcamp.Status    // the keywords' filters
	Match     adcamp.MatchType //
	Statuses  []option
	Matches   []option
	Pager     pager
	CanChange bool
	Ended     bool // its campaign has ended: nothing under it changes
	History   *recentView
}

// adGroupAndCampaign finds the ad group of the path and its campaign.
func (s *Server) adGroupAndCampaign(r *http.Request, c *call) (*adcamp.AdGroup, *adcamp.Campaign, error) {
	g, err := s.svc.GetAdGroup(c.ctx, c.tenant(), r.PathValue("adgroup"))
	if err != nil {
		return nil, nil, err
	}
	camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), g.CampaignID)
	if err != nil {
		return nil, nil, err
	}
	return g, camp, nil
}

func (s *Server) adGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	g, camp, err := s.adGroupAndCampaign(r, c)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := adcamp.KeywordFilter{Status: adcamp.Status(q.Get("status")), MatchType: adcamp.MatchType(q.Get("match_type")),
		Page: pageParam(r), PageSize: defaultPageSize}
	list, err := s.svc.ListKeywords(c.ctx, c.tenant(), g.ID, f)
	if err != nil {
		return err
	}
	history, err := s.recentChanges(c, adcamp.EntityAdGroup, g.ID)
	if err != nil {
		return err
	}
	p := c.page(r, g.Name, "campaigns")
	p.Data = adGroupView{Group: g, History: history, Campaign: camp, Keywords: list.Items, Status: f.Status, Match: f.MatchType,
		Statuses: statusOptions(adcamp.ChildStatuses), Matches: matchOptions("Any match type"),
		Facts: []fact{{"Default bid", money(g.DefaultBid)}, {"Ad group ID", g.ID}, {"Version", strconv.FormatInt(g.Version, 10)},
			{"Created", formatTime(g.CreatedAt)}, {"Last changed", formatTime(g.UpdatedAt)}},
		Pager: newPager(list, c.envPath(adGroupPath(g.ID)), q), CanChange: c.mayChange(), Ended: camp.Status == adcamp.StatusEnded}
	return s.render(w, http.StatusOK, "ad-group.html", p)
}

// matchOptions are the match types as choices, after first if not "".
func matchOptions(first string) []option {
	var opts []option
	if first != "" {
		opts = append(opts, option{"", first})
	}
	for _, m := range adcamp.MatchTypes {
		opts = append(opts, option{string(m), statusName(adcamp.Status(m))})
	}
	return opts
}

// adGroupFormView is the content of the form that creates or edits an ad
// group.
type adGroupFormView struct {
	Group     *adcamp.AdGroup // nil for a new one
	Campaign  *adcamp.Campaign
	Conflict  *conflict
	CanChange bool
}

var (
	adGroupFields = []string{"name", "default_bid", "version"}
	adGroupLabels = []labelled{{"name", "Name"}, {"default_bid", "Default bid"}}
)

func adGroupValues(g *adcamp.AdGroup) map[string]string {
	return map[string]string{"name": g.Name, "default_bid": g.DefaultBid.String(), "version": strconv.FormatInt(g.Version, 10)}
}

func (s *Server) newAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), r.PathValue("campaign"))
	if err != nil {
		return err
	}
	p := c.page(r, "New ad group", "campaigns")
	p.Form, p.Data = newForm(r, adGroupFields...), &adGroupFormView{Campaign: camp, CanChange: c.mayChange()}
	if r.Method == http.MethodGet {
		if err := s.svc.MayChangeCampaigns(c.ctx, c.tenant()); err != nil {
			return s.showChange(w, "ad-group-form.html", p, err)
		}
		return s.render(w, http.StatusOK, "ad-group-form.html", p)
	}
	in := adcamp.AdGroupInput{Name: adcamp.Some(r.PostFormValue("name"))}
	given(&in.DefaultBid, r, "default_bid")
	g, err := s.svc.CreateAdGroup(c.ctx, c.tenant(), camp.ID, in, false)
	if err != nil {
		return s.showChange(w, "ad-group-form.html", p, err, adGroupFields...)
	}
	return redirect(w, r, withNotice(c.envPath(adGroupPath(g.ID)), "ad-group-created"))
}

func (s *Server) editAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	g, camp, err := s.adGroupAndCampaign(r, c)
	if err != nil {
		return err
	}
	v := &adGroupFormView{Group: g, Campaign: camp, CanChange: c.mayChange()}
	p := c.page(r, "Edit "+g.Name, "campaigns")
	p.Data = v
	if r.Method == http.MethodGet {
		p.Form = formOf(adGroupValues(g))
		if err := s.svc.MayChangeCampaigns(c.ctx, c.tenant()); err != nil {
			return s.showChange(w, "ad-group-form.html", p, err)
		}
		return s.render(w, http.StatusOK, "ad-group-form.html", p)
	}
	p.Form = newForm(r, adGroupFields...)
	ifMatch, err := versionOf(r)
	if err != nil {
		return s.showChange(w, "ad-group-form.html", p, err)
	}
	in := adcamp.AdGroupInput{Name: adcamp.Some(r.PostFormValue("name"))}
	required(&in.DefaultBid, &in.Invalid, r, "default_bid")
	_, err = s.svc.UpdateAdGroup(c.ctx, c.tenant(), g.ID, in, ifMatch, false)
	if isStale(err) {
		now, gerr := s.svc.GetAdGroup(c.ctx, c.tenant(), g.ID)
		if gerr != nil {
			return gerr
		}
		v.Group, v.Conflict = now, newConflict("ad group", now.Version, adGroupLabels, p.Form, adGroupValues(now))
		p.Form = formOf(adGroupValues(now))
		return s.render(w, http.StatusConflict, "ad-group-form.html", p)
	}
	if err != nil {
		return s.showChange(w, "ad-group-form.html", p, err, adGroupFields...)
	}
	return redirect(w, r, withNotice(c.envPath(adGroupPath(g.ID)), "ad-group-saved"))
}

// changeAdGroup confirms op on an ad group, then does it.
func (s *Server) changeAdGroup(o *op) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		t := c.tenant()
		g, camp, err := s.adGroupAndCampaign(r, c)
		if err != nil {
			return err
		}
		p := c.page(r, o.Verb+" this ad group?", "campaigns")
		if p.Data, err = s.adGroupOp(c, o, g, camp); err != nil {
			return err
		}
		p.Form = formOf(map[string]string{})
		if r.Method == http.MethodGet {
			if err := s.svc.MayChangeCampaigns(c.ctx, t); err != nil {
				return s.showChange(w, "ad-confirm.html", p, err)
			}
			return s.render(w, http.StatusOK, "ad-confirm.html", p)
		}
		ifMatch, err := versionOf(r)
		if err != nil {
			return s.showChange(w, "ad-confirm.html", p, err)
		}
		reload := func() (*opView, error) {
			now, err := s.svc.GetAdGroup(c.ctx, t, g.ID)
			if err != nil {
				return nil, err
			}
			return s.adGroupOp(c, o, now, camp)
		}
		if o == opDelete {
			d, err := s.svc.DeleteAdGroup(c.ctx, t, g.ID, ifMatch)
			if err != nil {
				return s.opFailed(w, p, err, reload)
			}
			return redirect(w, r, withCounts(c.envPath(campaignPath(camp.ID)), "ad-group-deleted", 0, d.Keywords))
		}
		_, err = s.svc.UpdateAdGroup(c.ctx, t, g.ID, adcamp.AdGroupInput{Status: adcamp.Some(o.Status)}, ifMatch, false)
		if err != nil {
			return s.opFailed(w, p, err, reload)
		}
		return redirect(w, r, withNotice(c.envPath(adGroupPath(g.ID)), "ad-group-"+o.Done))
	}
}

// adGroupOp is the content of the page that confirms o on g.
func (s *Server) adGroupOp(c *call, o *op, g *adcamp.AdGroup, camp *adcamp.Campaign) (*opView, error) {
	v := &opView{Op: o, Kind: "ad group", Name: g.Name, Status: g.Status, Version: g.Version,
		Action: c.envPath(adGroupPath(g.ID) + "/" + o.Name), Back: c.envPath(adGroupPath(g.ID)),
		Facts: []fact{{"Campaign", camp.Name}, {"Default bid", money(g.DefaultBid)}, {"Ad group ID", g.ID}}}
	if camp.Status == adcamp.StatusEnded {
		v.Closed = "Its campaign has ended: nothing under an ended campaign can be changed or deleted. Delete the campaign instead."
	}
	if o == opDelete {
		d, err := s.svc.AdGroupContents(c.ctx, c.tenant(), g.ID)
		if err != nil {
			return nil, err
		}
		v.Takes = counted(d.Keywords, "keyword")
	}
	return v, nil
}
