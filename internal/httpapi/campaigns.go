package httpapi

import (
	"net/http"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/signing"
)

// campaignJSON is a campaign as the API shows it.
type campaignJSON struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	BudgetDaily      adcamp.Money `json:"budget_daily"`
	Marketplace      string       `json:"marketplace"`
	ChannelAccountID *int64       `json:"channel_account_id"`
	StartDate        *string      `json:"start_date"`
	EndDate          *string      `json:"end_date"`
	Status           string       `json:"status"`
	Version          int64        `json:"version"`
	CreatedAt        string       `json:"created_at"`
	UpdatedAt        string       `json:"updated_at"`
}

func toCampaignJSON(c *adcamp.Campaign) campaignJSON {
	return campaignJSON{
		ID: c.ID, Name: c.Name, BudgetDaily: c.BudgetDaily, Marketplace: c.Marketplace,
		ChannelAccountID: c.ChannelAccountID, StartDate: optDate(c.StartDate), EndDate: optDate(c.EndDate),
		Status: c.Status, Version: c.Version, CreatedAt: timeJSON(c.CreatedAt), UpdatedAt: timeJSON(c.UpdatedAt),
	}
}

func optDate(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// listJSON is the data of every list response.
type listJSON[T any] struct {
	Items      []T   `json:"items"`
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalItems int64 `json:"total_items"`
	TotalPages int64 `json:"total_pages"`
}

func toListJSON[E, T any](p *adcamp.Page[E], conv func(E) T) listJSON[T] {
	items := make([]T, len(p.Items))
	for i, e := range p.Items {
		items[i] = conv(e)
	}
	return listJSON[T]{items, p.Page, p.PageSize, p.TotalItems, p.TotalPages()}
}

// decodeCampaign reads a campaign create or update body.
func decodeCampaign(r *http.Request, body []byte) (*object, adcamp.CampaignInput, error) {
	var in adcamp.CampaignInput
	obj, err := decodeObject(r, body)
	if err != nil {
		return nil, in, err
	}
	for _, m := range obj.members {
		switch m.name {
		case "name":
			obj.str(m.name, m.value, &in.Name)
		case "budget_daily":
			obj.number(m.name, m.value, &in.BudgetDaily)
		case "marketplace":
			obj.str(m.name, m.value, &in.Marketplace)
		case "channel_account_id":
			obj.integer(m.name, m.value, &in.ChannelAccountID)
		case "start_date":
			obj.str(m.name, m.value, &in.StartDate)
		case "end_date":
			obj.str(m.name, m.value, &in.EndDate)
		case "status":
			obj.str(m.name, m.value, &in.Status)
		case "version":
			obj.integer(m.name, m.value, &in.Version)
		case "id", "created_at", "updated_at":
			obj.readOnly(m.name)
		default:
			obj.unknown(m.name)
		}
	}
	return obj, in, obj.err()
}

// writeCampaign answers with one campaign and its ETag.
func writeCampaign(w http.ResponseWriter, status int, c *adcamp.Campaign) {
	w.Header().Set("ETag", etag(c.Version))
	writeData(w, status, toCampaignJSON(c))
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "validate_only")
	dryRun := q.bool("validate_only")
	if err := q.issues.Err(); err != nil {
		return err
	}
	obj, in, err := decodeCampaign(r, c.body)
	if err != nil {
		return err
	}
	camp, err := s.svc.CreateCampaign(r.Context(), c.tenant, in, dryRun || len(obj.fields) > 0)
	if err := obj.mergeIssues(err); err != nil {
		return err
	}
	if dryRun {
		writeCampaign(w, http.StatusOK, camp)
		return nil
	}
	w.Header().Set("Location", signing.PrefixCanonical+"/campaigns/"+camp.ID)
	writeCampaign(w, http.StatusCreated, camp)
	return nil
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	camp, err := s.svc.GetCampaign(r.Context(), c.tenant, r.PathValue("campaign_id"))
	if err != nil {
		return err
	}
	writeCampaign(w, http.StatusOK, camp)
	return nil
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size", "status")
	f := adcamp.CampaignFilter{Page: q.int("page", 1), PageSize: q.int("page_size", 20), Status: q.str("status")}
	if err := q.issues.Err(); err != nil {
		return err
	}
	p, err := s.svc.ListCampaigns(r.Context(), c.tenant, f)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toListJSON(p, toCampaignJSON))
	return nil
}

func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "validate_only")
	dryRun := q.bool("validate_only")
	if err := q.issues.Err(); err != nil {
		return err
	}
	obj, in, err := decodeCampaign(r, c.body)
	if err != nil {
		return err
	}
	camp, err := s.svc.UpdateCampaign(r.Context(), c.tenant, r.PathValue("campaign_id"), in, parseIfMatch(r),
		dryRun || len(obj.fields) > 0)
	if err := obj.mergeIssues(err); err != nil {
		return err
	}
	writeCampaign(w, http.StatusOK, camp)
	return nil
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("campaign_id")
	if err := s.svc.DeleteCampaign(r.Context(), c.tenant, id, parseIfMatch(r)); err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}
