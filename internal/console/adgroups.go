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
	Group    *adcamp.AdGroup
	Campaign *adcamp.Campaign
	Facts    []fact
	Keywords []*adcamp.Keyword
	Status   adcamp.Status    // the keywords' filters
	Match    adcamp.MatchType //
	Statuses []option
	Matches  []option
	Pager    pager
	Ended    bool // its campaign has ended: nothing under it changes
	History  *recentView
	Perf     *perfSummary
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
	perf, err := s.perfSummaryOf(c, groupScope(g, camp))
	if err != nil {
		return err
	}
	p := c.page(r, g.Name, "campaigns")
	p.Data = adGroupView{Perf: perf, Group: g, History: history, Campaign: camp, Keywords: list.Items, Status: f.Status, Match: f.MatchType,
		Statuses: statusOptions(adcamp.ChildStatuses), Matches: matchOptions("Any match type"),
		Facts: []fact{{"Default bid", money(g.DefaultBid)}, {"Ad group ID", g.ID}, {"Version", strconv.FormatInt(g.Version, 10)},
			{"Created", formatTime(g.CreatedAt)}, {"Last changed", formatTime(g.UpdatedAt)}},
		Pager: newPager(list, c.envPath(adGroupPath(g.ID)), q), Ended: camp.Status == adcamp.StatusEnded}
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

func (s *Server) newAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), r.PathValue("campaign"))
	if err != nil {
		return err
	}
	p := c.page(r, "New ad group", "campaigns")
	p.Form, p.Data = newForm(r, adGroupFields...), &adFormView{Campaign: camp}
	if r.Method == http.MethodGet {
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
