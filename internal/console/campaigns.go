package console

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The campaigns of an environment: the list, a campaign's page with its ad
// groups, the forms that create and edit one, and the pages that confirm
// a pause, a resume, an end or a delete.

// campaignsView is the list's content.
type campaignsView struct {
	Items     []*adcamp.Campaign
	Status    adcamp.Status // the filter, "" for all
	Statuses  []option
	Pager     pager
	Simulator bool // the sandbox's delivery simulator is on
	Perf      *perfSummary
}

func (s *Server) campaigns(w http.ResponseWriter, r *http.Request, c *call) error {
	f := adcamp.CampaignFilter{Status: adcamp.Status(r.URL.Query().Get("status")), Page: pageParam(r), PageSize: defaultPageSize}
	list, err := s.svc.ListCampaigns(c.ctx, c.tenant(), f)
	if err != nil {
		return err
	}
	perf, err := s.perfSummaryOf(c, accountScope())
	if err != nil {
		return err
	}
	p := c.page(r, "Campaigns", "campaigns")
	p.Data = campaignsView{Perf: perf, Items: list.Items, Status: f.Status, Statuses: statusOptions(adcamp.CampaignStatuses),
		Pager: newPager(list, c.envPath("/campaigns"), r.URL.Query()), Simulator: s.svc.SimulatorEnabled()}
	return s.render(w, http.StatusOK, "campaigns.html", p)
}

// campaignView is a campaign's page.
type campaignView struct {
	Campaign *adcamp.Campaign
	Facts    []fact
	Groups   []*adcamp.AdGroup
	Status   adcamp.Status // the ad groups' filter
	Statuses []option
	Pager    pager
	Ended    bool
	History  *recentView
	Perf     *perfSummary
}

func (s *Server) campaign(w http.ResponseWriter, r *http.Request, c *call) error {
	t := c.tenant()
	camp, sv, err := s.svc.GetCampaignServing(c.ctx, t, r.PathValue("campaign"))
	if err != nil {
		return err
	}
	f := adcamp.AdGroupFilter{Status: adcamp.Status(r.URL.Query().Get("status")), Page: pageParam(r), PageSize: defaultPageSize}
	groups, err := s.svc.ListAdGroups(c.ctx, t, camp.ID, f)
	if err != nil {
		return err
	}
	facts, err := s.campaignFacts(c, camp, sv)
	if err != nil {
		return err
	}
	history, err := s.recentChanges(c, adcamp.EntityCampaign, camp.ID)
	if err != nil {
		return err
	}
	perf, err := s.perfSummaryOf(c, campaignScope(camp))
	if err != nil {
		return err
	}
	p := c.page(r, camp.Name, "campaigns")
	p.Data = campaignView{Perf: perf, Campaign: camp, History: history, Facts: facts, Groups: groups.Items, Status: f.Status,
		Statuses: statusOptions(adcamp.ChildStatuses), Pager: newPager(groups, c.envPath(campaignPath(camp.ID)), r.URL.Query()),
		Ended: camp.Status == adcamp.StatusEnded}
	return s.render(w, http.StatusOK, "campaign.html", p)
}

// campaignFacts lists a campaign's fields, with its serving status and
// spend today, for people.
func (s *Server) campaignFacts(c *call, camp *adcamp.Campaign, sv service.Serving) ([]fact, error) {
	facts := []fact{
		{"Daily budget", money(camp.BudgetDaily)},
		{"Spent today", money(sv.SpendToday) + " (the account's day, " + c.account.TimeZone + ")"},
		{"Serving", servingText[sv.Status]},
		{"Marketplace", camp.Marketplace},
	}
	if camp.ChannelAccountID != nil {
		name, err := s.channelName(c, *camp.ChannelAccountID)
		if err != nil {
			return nil, err
		}
		facts = append(facts, fact{"Channel account", name})
	}
	facts = append(facts,
		fact{"Starts", orText(dateText(camp.StartDate), "No start date: at once")},
		fact{"Ends", orText(dateText(camp.EndDate), "No end date")},
		fact{"Notes", orText(camp.Notes, "None")},
		fact{"Campaign ID", camp.ID},
		fact{"Version", strconv.FormatInt(camp.Version, 10)},
		fact{"Created", formatTime(camp.CreatedAt)},
		fact{"Last changed", formatTime(camp.UpdatedAt)},
	)
	return facts, nil
}

// campaignDates writes a campaign's dates for a list: "2026-12-01 to
// 2026-12-31", "From 2026-12-01", "Until 2026-12-31", or "No start or end
// date".
func campaignDates(start, end adcamp.Date) string {
	switch {
	case start.IsZero() && end.IsZero():
		return "No start or end date"
	case end.IsZero():
		return "From " + start.String()
	case start.IsZero():
		return "Until " + end.String()
	}
	return start.String() + " to " + end.String()
}

func orText(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// channels are the account's channel accounts, as choices.
func (s *Server) channels(c *call) ([]option, error) {
	list, err := s.svc.ListChannelAccounts(c.ctx, c.account.ID, 1, 100)
	if err != nil {
		return nil, err
	}
	opts := make([]option, 0, len(list.Items))
	for _, ca := range list.Items {
		opts = append(opts, option{strconv.FormatInt(ca.ID, 10), fmt.Sprintf("%s (%s, #%d)", ca.Name, ca.Marketplace, ca.ID)})
	}
	return opts, nil
}

// channelName describes channel account id.
func (s *Server) channelName(c *call, id int64) (string, error) {
	opts, err := s.channels(c)
	if err != nil {
		return "", err
	}
	for _, o := range opts {
		if o.Value == strconv.FormatInt(id, 10) {
			return o.Label, nil
		}
	}
	return "#" + strconv.FormatInt(id, 10), nil
}

// newCampaignFields are the fields of the form that creates a campaign
// (the edit form's are in adkinds.go).
var newCampaignFields = []string{"name", "budget_daily", "marketplace", "channel_account_id", "start_date", "end_date", "notes"}

func (s *Server) newCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	channels, err := s.channels(c)
	if err != nil {
		return err
	}
	v := &adFormView{Marketplaces: marketplaceOptions(s.svc.Marketplaces()), Channels: channels}
	p := c.page(r, "New campaign", "campaigns")
	p.Form, p.Data = newForm(r, newCampaignFields...), v
	if r.Method == http.MethodGet {
		return s.render(w, http.StatusOK, "campaign-form.html", p)
	}
	in := adcamp.CampaignInput{Name: adcamp.Some(r.PostFormValue("name"))}
	given(&in.BudgetDaily, r, "budget_daily")
	given(&in.Marketplace, r, "marketplace")
	given(&in.StartDate, r, "start_date")
	given(&in.EndDate, r, "end_date")
	given(&in.Notes, r, "notes")
	if id := strings.TrimSpace(r.PostFormValue("channel_account_id")); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			in.Invalid.AddKind("channel_account_id", adcamp.IssueNoSuchChannel, "", "must be an integer")
		}
		in.ChannelAccountID = adcamp.Some(n)
	}
	camp, err := s.svc.CreateCampaign(c.ctx, c.tenant(), in, false)
	if err != nil {
		return s.showChange(w, "campaign-form.html", p, err, newCampaignFields...)
	}
	return redirect(w, r, withNotice(c.envPath(campaignPath(camp.ID)), "campaign-created"))
}

func marketplaceOptions(codes []string) []option {
	opts := make([]option, len(codes))
	for i, m := range codes {
		opts[i] = option{m, m}
	}
	return opts
}

// servingText says a campaign's serving status for people.
var servingText = map[adcamp.ServingStatus]string{
	adcamp.ServingServing:         "Serving",
	adcamp.ServingPaused:          "Not serving: paused",
	adcamp.ServingEnded:           "Not serving: ended",
	adcamp.ServingNotStarted:      "Not serving yet: its start date is ahead",
	adcamp.ServingBudgetExhausted: "Not serving: today's budget is spent (it serves again tomorrow, or now if the budget is raised)",
}
