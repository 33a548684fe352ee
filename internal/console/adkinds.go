package console

import (
	"net/http"
	"strconv"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The three kinds of advertising entity, described for the generic
// handlers of adedit.go: how to read one, what its edit form shows and
// saves, and what its ops (pause, resume, end, delete) call. A new kind
// is a new adKind here and a line in adKinds; routes installs its edit
// form and its ops from the description.

// adKind describes campaigns, ad groups or keywords.
type adKind struct {
	name   string     // "campaign", "ad group", "keyword": titles, the op page
	notice string     // the notices' prefix: "campaign" for "campaign-saved"
	base   string     // the path of one, within an environment: "/campaigns/{campaign}"
	form   string     // the edit form's template
	fields []string   // the edit form's fields
	labels []labelled // the fields a conflict compares
	ops    []*op
	// load reads the entity the request's path names, with its parents.
	load func(s *Server, r *http.Request, c *call) (*adItem, error)
}

// adKinds are the kinds whose pages routes installs.
var adKinds = []*adKind{campaignKind, adGroupKind, keywordKind}

// adItem is one entity, and what the generic handlers do with it.
type adItem struct {
	name    string
	status  adcamp.Status
	version int64
	path    string            // its page, within the environment
	values  map[string]string // as its edit form shows them
	view    adFormView        // the entity and its parents, for its form
	facts   []fact            // what the page that confirms an op shows
	closed  func(o *op) string
	// again reads the entity again, after a change refused as stale.
	again func() (*adItem, error)
	// save saves the edit form of r; setStatus and remove do the ops;
	// remove returns the page to go to (within the environment) and its
	// notice.
	save      func(r *http.Request, ifMatch service.IfMatch) error
	setStatus func(st adcamp.Status, ifMatch service.IfMatch) error
	remove    func(ifMatch service.IfMatch) (target string, err error)
	// takes says what a delete takes with it ("" for nothing).
	takes func() (string, error)
	// after is where an op other than delete leads.
	after func(r *http.Request) string
}

// adFormView is the content of the forms that create or edit a
// campaign, an ad group or a keyword; what a form is about is set, its
// parents too (a new campaign has none).
type adFormView struct {
	Campaign     *adcamp.Campaign
	Group        *adcamp.AdGroup
	Keyword      *adcamp.Keyword
	Marketplaces []option // a new campaign's choices
	Channels     []option
	Matches      []option
	Conflict     *conflict
}

var campaignKind = &adKind{
	name: "campaign", notice: "campaign", base: "/campaigns/{campaign}", form: "campaign-form.html",
	fields: editCampaignFields, labels: campaignLabels, ops: campaignOps,
	load: func(s *Server, r *http.Request, c *call) (*adItem, error) {
		return s.campaignItem(c, r.PathValue("campaign"))
	},
}

func (s *Server) campaignItem(c *call, id string) (*adItem, error) {
	t := c.tenant()
	camp, err := s.svc.GetCampaign(c.ctx, t, id)
	if err != nil {
		return nil, err
	}
	path := campaignPath(camp.ID)
	return &adItem{
		name: camp.Name, status: camp.Status, version: camp.Version, path: path,
		values: campaignValues(camp), view: adFormView{Campaign: camp},
		facts: []fact{{"Daily budget", money(camp.BudgetDaily)}, {"Marketplace", camp.Marketplace}, {"Campaign ID", camp.ID}},
		closed: func(o *op) string {
			if camp.Status == adcamp.StatusEnded && o != opDelete {
				return "This campaign has ended: it accepts no change but delete."
			}
			return ""
		},
		again: func() (*adItem, error) { return s.campaignItem(c, camp.ID) },
		save: func(r *http.Request, ifMatch service.IfMatch) error {
			in := adcamp.CampaignInput{Name: adcamp.Some(r.PostFormValue("name"))}
			required(&in.BudgetDaily, &in.Invalid, r, "budget_daily")
			clearable(&in.StartDate, r, "start_date")
			clearable(&in.EndDate, r, "end_date")
			clearable(&in.Notes, r, "notes")
			_, err := s.svc.UpdateCampaign(c.ctx, t, camp.ID, in, ifMatch, false)
			return err
		},
		setStatus: func(st adcamp.Status, ifMatch service.IfMatch) error {
			_, err := s.svc.UpdateCampaign(c.ctx, t, camp.ID, adcamp.CampaignInput{Status: adcamp.Some(st)}, ifMatch, false)
			return err
		},
		remove: func(ifMatch service.IfMatch) (string, error) {
			d, err := s.svc.DeleteCampaign(c.ctx, t, camp.ID, ifMatch)
			if err != nil {
				return "", err
			}
			return withCounts(c.envPath("/campaigns"), "campaign-deleted", d.AdGroups, d.Keywords), nil
		},
		takes: func() (string, error) {
			d, err := s.svc.CampaignContents(c.ctx, t, camp.ID)
			if err != nil {
				return "", err
			}
			return counted(d.AdGroups, "ad group") + " and " + counted(d.Keywords, "keyword"), nil
		},
		after: func(*http.Request) string { return c.envPath(path) },
	}, nil
}

var adGroupKind = &adKind{
	name: "ad group", notice: "ad-group", base: "/ad-groups/{adgroup}", form: "ad-group-form.html",
	fields: adGroupFields, labels: adGroupLabels, ops: childOps,
	load: func(s *Server, r *http.Request, c *call) (*adItem, error) {
		g, camp, err := s.adGroupAndCampaign(r, c)
		if err != nil {
			return nil, err
		}
		return s.adGroupItem(c, g, camp), nil
	},
}

func (s *Server) adGroupItem(c *call, g *adcamp.AdGroup, camp *adcamp.Campaign) *adItem {
	t := c.tenant()
	path := adGroupPath(g.ID)
	return &adItem{
		name: g.Name, status: g.Status, version: g.Version, path: path,
		values: adGroupValues(g), view: adFormView{Group: g, Campaign: camp},
		facts:  []fact{{"Campaign", camp.Name}, {"Default bid", money(g.DefaultBid)}, {"Ad group ID", g.ID}},
		closed: endedCampaign(camp, "Its campaign has ended: nothing under an ended campaign can be changed or deleted. Delete the campaign instead."),
		again: func() (*adItem, error) {
			now, err := s.svc.GetAdGroup(c.ctx, t, g.ID)
			if err != nil {
				return nil, err
			}
			return s.adGroupItem(c, now, camp), nil
		},
		save: func(r *http.Request, ifMatch service.IfMatch) error {
			in := adcamp.AdGroupInput{Name: adcamp.Some(r.PostFormValue("name"))}
			required(&in.DefaultBid, &in.Invalid, r, "default_bid")
			_, err := s.svc.UpdateAdGroup(c.ctx, t, g.ID, in, ifMatch, false)
			return err
		},
		setStatus: func(st adcamp.Status, ifMatch service.IfMatch) error {
			_, err := s.svc.UpdateAdGroup(c.ctx, t, g.ID, adcamp.AdGroupInput{Status: adcamp.Some(st)}, ifMatch, false)
			return err
		},
		remove: func(ifMatch service.IfMatch) (string, error) {
			d, err := s.svc.DeleteAdGroup(c.ctx, t, g.ID, ifMatch)
			if err != nil {
				return "", err
			}
			return withCounts(c.envPath(campaignPath(camp.ID)), "ad-group-deleted", 0, d.Keywords), nil
		},
		takes: func() (string, error) {
			d, err := s.svc.AdGroupContents(c.ctx, t, g.ID)
			if err != nil {
				return "", err
			}
			return counted(d.Keywords, "keyword"), nil
		},
		after: func(*http.Request) string { return c.envPath(path) },
	}
}

var keywordKind = &adKind{
	name: "keyword", notice: "keyword", base: "/keywords/{keyword}", form: "keyword-form.html",
	fields: keywordFields, labels: keywordLabels, ops: childOps,
	load: func(s *Server, r *http.Request, c *call) (*adItem, error) {
		k, g, camp, err := s.keywordAndParents(r, c)
		if err != nil {
			return nil, err
		}
		return s.keywordItem(c, k, g, camp), nil
	},
}

func (s *Server) keywordItem(c *call, k *adcamp.Keyword, g *adcamp.AdGroup, camp *adcamp.Campaign) *adItem {
	t := c.tenant()
	path := keywordPath(k.ID)
	return &adItem{
		name: k.Text, status: k.Status, version: k.Version, path: path,
		values: keywordValues(k), view: adFormView{Keyword: k, Group: g, Campaign: camp, Matches: matchOptions("")},
		facts:  []fact{{"Ad group", g.Name}, {"Match type", statusName(adcamp.Status(k.MatchType))}, {"Bid", bidText(k, g)}},
		closed: endedCampaign(camp, "Its campaign has ended: nothing under an ended campaign can be changed or deleted."),
		again: func() (*adItem, error) {
			now, err := s.svc.GetKeyword(c.ctx, t, k.ID)
			if err != nil {
				return nil, err
			}
			return s.keywordItem(c, now, g, camp), nil
		},
		save: func(r *http.Request, ifMatch service.IfMatch) error {
			in := adcamp.KeywordInput{Text: adcamp.Some(r.PostFormValue("text")), MatchType: adcamp.Some(adcamp.MatchType(r.PostFormValue("match_type")))}
			clearable(&in.Bid, r, "bid")
			_, err := s.svc.UpdateKeyword(c.ctx, t, k.ID, in, ifMatch, false)
			return err
		},
		setStatus: func(st adcamp.Status, ifMatch service.IfMatch) error {
			_, err := s.svc.UpdateKeyword(c.ctx, t, k.ID, adcamp.KeywordInput{Status: adcamp.Some(st)}, ifMatch, false)
			return err
		},
		remove: func(ifMatch service.IfMatch) (string, error) {
			if err := s.svc.DeleteKeyword(c.ctx, t, k.ID, ifMatch); err != nil {
				return "", err
			}
			return withNotice(c.envPath(adGroupPath(g.ID)), "keyword-deleted"), nil
		},
		takes: func() (string, error) { return "", nil },
		after: func(r *http.Request) string { return backTo(r, c.envPath(path), c.envPath(adGroupPath(g.ID))) },
	}
}

// endedCampaign is the closed of an entity under camp: nothing under an
// ended campaign may change.
func endedCampaign(camp *adcamp.Campaign, why string) func(*op) string {
	return func(*op) string {
		if camp.Status == adcamp.StatusEnded {
			return why
		}
		return ""
	}
}

// The fields of the edit forms, and the values they show of an entity.
var (
	editCampaignFields = []string{"name", "budget_daily", "start_date", "end_date", "notes", "version"}
	campaignLabels     = []labelled{{"name", "Name"}, {"budget_daily", "Daily budget"}, {"start_date", "Start date"},
		{"end_date", "End date"}, {"notes", "Notes"}}
	adGroupFields = []string{"name", "default_bid", "version"}
	adGroupLabels = []labelled{{"name", "Name"}, {"default_bid", "Default bid"}}
	keywordFields = []string{"text", "match_type", "bid", "version"}
	keywordLabels = []labelled{{"text", "Text"}, {"match_type", "Match type"}, {"bid", "Bid"}}
)

func campaignValues(camp *adcamp.Campaign) map[string]string {
	return map[string]string{
		"name": camp.Name, "budget_daily": camp.BudgetDaily.String(), "start_date": dateText(camp.StartDate),
		"end_date": dateText(camp.EndDate), "notes": camp.Notes, "version": strconv.FormatInt(camp.Version, 10),
	}
}

func adGroupValues(g *adcamp.AdGroup) map[string]string {
	return map[string]string{"name": g.Name, "default_bid": g.DefaultBid.String(), "version": strconv.FormatInt(g.Version, 10)}
}

func keywordValues(k *adcamp.Keyword) map[string]string {
	v := map[string]string{"text": k.Text, "match_type": string(k.MatchType), "version": strconv.FormatInt(k.Version, 10)}
	if k.Bid != nil {
		v["bid"] = k.Bid.String()
	}
	return v
}
