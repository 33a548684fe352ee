package httpapi

import (
	"net/http"

	"github.com/adcamp/adcamp"
)

// adGroupJSON is an ad group as the API shows it.
type adGroupJSON struct {
	ID         string        `json:"id"`
	CampaignID string        `json:"campaign_id"`
	Name       string        `json:"name"`
	DefaultBid adcamp.Money  `json:"default_bid"`
	Status     adcamp.Status `json:"status"`
	Version    int64         `json:"version"`
	CreatedAt  string        `json:"created_at"`
	UpdatedAt  string        `json:"updated_at"`
}

func toAdGroupJSON(g *adcamp.AdGroup) adGroupJSON {
	return adGroupJSON{
		ID: g.ID, CampaignID: g.CampaignID, Name: g.Name, DefaultBid: g.DefaultBid, Status: g.Status,
		Version: g.Version, CreatedAt: timeJSON(g.CreatedAt), UpdatedAt: timeJSON(g.UpdatedAt),
	}
}

// adGroupInput reads an ad group create or update body.
func adGroupInput(o *object) (in adcamp.AdGroupInput) {
	for _, m := range o.members {
		switch m.name {
		case "name":
			o.str(m.name, m.value, &in.Name)
		case "default_bid":
			o.number(m.name, m.value, &in.DefaultBid)
		case "status":
			text(o, m.name, m.value, &in.Status)
		case "version":
			o.integer(m.name, m.value, &in.Version)
		case "id", "campaign_id", "created_at", "updated_at":
			o.readOnly(m.name)
		default:
			o.unknown(m.name)
		}
	}
	in.Invalid = o.fields
	return in
}

func (s *Server) createAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, adGroupInput)
	if err != nil {
		return err
	}
	g, err := s.svc.CreateAdGroup(r.Context(), c.tenant, r.PathValue("campaign_id"), in, dryRun)
	if err != nil {
		return err
	}
	writeCreated(w, dryRun, "/ad-groups/"+g.ID, g.Version, toAdGroupJSON(g))
	return nil
}

func (s *Server) listAdGroups(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size", "status")
	page, size := q.paging()
	f := adcamp.AdGroupFilter{Page: page, PageSize: size, Status: adcamp.Status(q.str("status"))}
	if err := q.issues.Err(); err != nil {
		return err
	}
	p, err := s.svc.ListAdGroups(r.Context(), c.tenant, r.PathValue("campaign_id"), f)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toListJSON(p, toAdGroupJSON))
	return nil
}

func (s *Server) getAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	g, err := s.svc.GetAdGroup(r.Context(), c.tenant, r.PathValue("ad_group_id"))
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, g.Version, toAdGroupJSON(g))
	return nil
}

func (s *Server) updateAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	dryRun, in, err := decodeMutation(r, c, adGroupInput)
	if err != nil {
		return err
	}
	g, err := s.svc.UpdateAdGroup(r.Context(), c.tenant, r.PathValue("ad_group_id"), in, parseIfMatch(r), dryRun)
	if err != nil {
		return err
	}
	writeEntity(w, http.StatusOK, g.Version, toAdGroupJSON(g))
	return nil
}

func (s *Server) deleteAdGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	id := r.PathValue("ad_group_id")
	d, err := s.svc.DeleteAdGroup(r.Context(), c.tenant, id, parseIfMatch(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, deletedJSON{ID: id, Deleted: true, Keywords: &d.Keywords})
	return nil
}

// channelAccountJSON is a channel account as the API shows it.
type channelAccountJSON struct {
	ID          int64  `json:"id"`
	Marketplace string `json:"marketplace"`
	Name        string `json:"name"`
	CreatedAt   string `json:"created_at"`
}

func (s *Server) listChannelAccounts(w http.ResponseWriter, r *http.Request, c *call) error {
	q := parseQuery(r, "page", "page_size")
	page, size := q.paging()
	if err := q.issues.Err(); err != nil {
		return err
	}
	p, err := s.svc.ListChannelAccounts(r.Context(), c.tenant.AccountID, page, size)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, toListJSON(p, func(ca *adcamp.ChannelAccount) channelAccountJSON {
		return channelAccountJSON{ca.ID, ca.Marketplace, ca.Name, timeJSON(ca.CreatedAt)}
	}))
	return nil
}
