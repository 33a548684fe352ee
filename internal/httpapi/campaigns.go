package httpapi

import (
	"net/http"
	"strconv"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// campaignJSON is a campaign as the API shows it.
type campaignJSON struct {
	ID               string        `json:"id"`
	Name             string        `json:"name"`
	BudgetDaily      adcamp.Money  `json:"budget_daily"`
	Marketplace      string        `json:"marketplace"`
	ChannelAccountID *int64        `json:"channel_account_id"`
	StartDate        optDate       `json:"start_date"`
	EndDate          optDate       `json:"end_date"`
	Status           adcamp.Status `json:"status"`
	Notes            optText       `json:"notes"`
	// ServingStatus and SpendToday are read-only, on the account's day
	// (see servingJSON).
	ServingStatus adcamp.ServingStatus `json:"serving_status"`
	SpendToday    adcamp.Money         `json:"spend_today"`
	Version       int64                `json:"version"`
	CreatedAt     apiTime              `json:"created_at"`
	UpdatedAt     apiTime              `json:"updated_at"`
}

// appendJSON writes c as encoding/json would (see jsonAppender).
func (c campaignJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"budget_daily":`...)
	b = c.BudgetDaily.AppendText(b)
	b = append(b, `,"marketplace":`...)
	b = appendJSONString(b, c.Marketplace)
	b = append(b, `,"channel_account_id":`...)
	if c.ChannelAccountID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *c.ChannelAccountID, 10)
	}
	b = append(b, `,"start_date":`...)
	b = c.StartDate.appendJSON(b)
	b = append(b, `,"end_date":`...)
	b = c.EndDate.appendJSON(b)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(c.Status))
	b = append(b, `,"notes":`...)
	b = c.Notes.appendJSON(b)
	b = append(b, `,"serving_status":`...)
	b = appendJSONString(b, string(c.ServingStatus))
	b = append(b, `,"spend_today":`...)
	b = c.SpendToday.AppendText(b)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, c.Version, 10)
	b = append(b, `,"created_at":`...)
	b = c.CreatedAt.appendJSON(b)
	b = append(b, `,"updated_at":`...)
	b = c.UpdatedAt.appendJSON(b)
	return append(b, '}')
}

func toCampaignJSON(c *adcamp.Campaign) campaignJSON {
	return campaignJSON{
		ID: c.ID, Name: c.Name, BudgetDaily: c.BudgetDaily, Marketplace: c.Marketplace,
		ChannelAccountID: c.ChannelAccountID, StartDate: optDate(c.StartDate), EndDate: optDate(c.EndDate),
		Status: c.Status, Notes: optText(c.Notes), Version: c.Version, CreatedAt: apiTime(c.CreatedAt), UpdatedAt: apiTime(c.UpdatedAt),
	}
}

// optDate is a date that may be unset (the zero date), written as null.
type optDate adcamp.Date

func (d optDate) MarshalJSON() ([]byte, error) { return d.appendJSON(nil), nil }

func (d optDate) appendJSON(b []byte) []byte {
	if adcamp.Date(d).IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b, _ = adcamp.Date(d).AppendText(b)
	return append(b, '"')
}

// optText is a text that may be empty, written as null then.
type optText string

func (s optText) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s optText) appendJSON(b []byte) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendJSONString(b, string(s))
}

// campaignInput reads a campaign create or update body.
func campaignInput(o *object) (in adcamp.CampaignInput) {
	for _, m := range o.members {
		switch m.name {
		case "name":
			o.str(m.name, m.value, &in.Name)
		case "budget_daily":
			o.number(m.name, m.value, &in.BudgetDaily)
		case "marketplace":
			o.str(m.name, m.value, &in.Marketplace)
		case "channel_account_id":
			o.integer(m.name, m.value, &in.ChannelAccountID)
		case "start_date":
			o.str(m.name, m.value, &in.StartDate)
		case "end_date":
			o.str(m.name, m.value, &in.EndDate)
		case "status":
			text(o, m.name, m.value, &in.Status)
		case "notes":
			o.str(m.name, m.value, &in.Notes)
		case "version":
			o.integer(m.name, m.value, &in.Version)
		case "id", "created_at", "updated_at", "serving_status", "spend_today":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	in.Invalid = o.fields
	return in
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, campaignInput)
	if err != nil {
		return err
	}
	camp, err := s.svc.CreateCampaign(r.Context(), c.tenant, in, dryRun)
	if err != nil {
		return err
	}
	sv, err := s.svc.NewCampaignServing(r.Context(), c.tenant, camp)
	if err != nil {
		return err
	}
	writeCreated(w, dryRun, "/campaigns/"+camp.ID, camp.Version, servingJSON(camp, sv))
	return nil
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	camp, sv, err := s.svc.GetCampaignServing(r.Context(), c.tenant, r.PathValue("campaign_id"))
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, camp.Version, servingJSON(camp, sv))
	return nil
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size", "status")
	page, size := q.paging()
	f := adcamp.CampaignFilter{Page: page, PageSize: size, Status: adcamp.Status(q.str("status"))}
	if err := q.issues.Err(); err != nil {
		return err
	}
	p, sv, err := s.svc.ListCampaignsServing(r.Context(), c.tenant, f)
	if err != nil {
		return err
	}
	items := make([]campaignJSON, len(p.Items))
	for i, camp := range p.Items {
		items[i] = servingJSON(camp, sv[i])
	}
	writeData(w, http.StatusOK, listJSON[campaignJSON]{items, p.Page, p.PageSize, p.TotalItems, p.TotalPages()})
	return nil
}

func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, campaignInput)
	if err != nil {
		return err
	}
	camp, sv, err := s.svc.UpdateCampaignServing(r.Context(), c.tenant, r.PathValue("campaign_id"), in, parseIfMatch(r), dryRun)
	if err != nil {
		return err
	}
	if sv == nil {
		out, err := s.withServing(r, c, camp)
		if err != nil {
			return err
		}
		writeEntity(w, http.StatusOK, camp.Version, out[0])
		return nil
	}
	writeEntity(w, http.StatusOK, camp.Version, servingJSON(camp, *sv))
	return nil
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("campaign_id")
	d, err := s.svc.DeleteCampaign(r.Context(), c.tenant, id, parseIfMatch(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true, AdGroups: &d.AdGroups, Keywords: &d.Keywords})
	return nil
}

// withServing renders campaigns with their serving status and spend
// today, read after the campaigns (a moment later: what the feed shows).
func (s *Server) withServing(r *http.Request, c *call, camps ...*adcamp.Campaign) ([]campaignJSON, error) {
	sv, err := s.svc.CampaignServing(r.Context(), c.tenant, camps)
	if err != nil {
		return nil, err
	}
	out := make([]campaignJSON, len(camps))
	for i, camp := range camps {
		out[i] = servingJSON(camp, sv[i])
	}
	return out, nil
}

// servingJSON renders a campaign with its serving status and spend today.
func servingJSON(camp *adcamp.Campaign, sv service.Serving) campaignJSON {
	out := toCampaignJSON(camp)
	out.ServingStatus, out.SpendToday = sv.Status, sv.SpendToday
	return out
}
