package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The negative keywords of campaigns and ad groups, and the account's
// shared negative keyword lists (issue 35): each parent has a page that
// lists its negatives and takes many at once, pasted one a line. Every
// change goes through the service, which checks the user's role.

// negativesView is the content of a page of negatives.
type negativesView struct {
	Level     string // "campaign", "ad group" or "shared list"
	Name      string // the parent's name
	Self      string // the page's path, within the environment
	Back      string // the parent's own page
	BackName  string
	Negatives []*adcamp.NegativeKeyword
	Total     int64
	Ended     bool
	// After a paste:
	Stored   int
	Lines    []lineIssue
	Warnings []adcamp.Blocked
	// A campaign's attached lists, and the lists it may attach.
	Campaign   bool
	CampaignID string
	Attached   []*adcamp.NegativeList
	Lists      []*adcamp.NegativeList
	// AttachBlocked counts the keywords the list just attached blocks.
	AttachBlocked int
}

var negativeFields = []string{"items", "match_type"}

// negativesParent reads the parent of the page and fills what v says of it.
func (s *Server) negativesParent(r *http.Request, c *call, level adcamp.NegativeLevel, v *negativesView) (service.NegativeParent, error) {
	p := service.NegativeParent{Level: level}
	switch level {
	case adcamp.LevelCampaign:
		camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), r.PathValue("campaign"))
		if err != nil {
			return p, err
		}
		p.ID = camp.ID
		v.Level, v.Name, v.Back, v.BackName, v.Ended, v.Campaign = "campaign", camp.Name, campaignPath(camp.ID), camp.Name, camp.Status == adcamp.StatusEnded, true
		v.Self, v.CampaignID = campaignPath(camp.ID)+"/negatives", camp.ID
	case adcamp.LevelAdGroup:
		g, camp, err := s.adGroupAndCampaign(r, c)
		if err != nil {
			return p, err
		}
		p.ID = g.ID
		v.Level, v.Name, v.Back, v.BackName, v.Ended = "ad group", g.Name, adGroupPath(g.ID), g.Name, camp.Status == adcamp.StatusEnded
		v.Self = adGroupPath(g.ID) + "/negatives"
	default:
		l, err := s.svc.GetNegativeList(c.ctx, c.tenant(), r.PathValue("list"))
		if err != nil {
			return p, err
		}
		p.ID = l.ID
		v.Level, v.Name, v.Back, v.BackName = "shared list", l.Name, "/negative-lists", "Shared negative lists"
		v.Self = "/negative-lists/" + l.ID
	}
	return p, nil
}

// negativesPage lists a parent's negatives and adds those pasted, one a
// line, keeping the valid ones and naming each line refused; the
// keywords the new ones block are listed as warnings.
func (s *Server) negativesPage(level adcamp.NegativeLevel) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		v := &negativesView{}
		v.AttachBlocked, _ = strconv.Atoi(r.URL.Query().Get("blocked"))
		parent, err := s.negativesParent(r, c, level, v)
		if err != nil {
			return err
		}
		p := c.page(r, "Negative keywords of "+v.Name, "campaigns")
		p.Form, p.Data = newForm(r, negativeFields...), v
		status := http.StatusOK
		if r.Method == http.MethodPost {
			pasted := parsePaste(r.PostFormValue("items"), r.PostFormValue("match_type"), "")
			items := make([]adcamp.NegativeInput, len(pasted.items))
			for i, it := range pasted.items {
				items[i] = adcamp.NegativeInput{Text: it.Text, MatchType: it.MatchType}
			}
			out, err := s.svc.CreateNegatives(c.ctx, c.tenant(), parent, items, service.BatchOptions{Batch: true, Partial: true})
			if err != nil {
				if err := s.showChange(w, "negatives.html", p, err, negativeFields...); err != nil {
					return err
				}
				return nil
			}
			var again []string
			for i, res := range out.Results {
				if res.Err == nil {
					v.Stored++
					continue
				}
				again = append(again, pasted.texts[i])
				for _, is := range itemIssues(res.Err) {
					if is.Field == "match_type" {
						p.Form.errors["match_type"] = issueText(is)
						continue
					}
					v.Lines = append(v.Lines, lineIssue{Line: pasted.lines[i], Text: pasted.texts[i], Issue: pasted.lineText(is, true),
						Duplicate: adcamp.ErrorCode(res.Err) == adcamp.CodeDuplicateKeyword})
				}
			}
			v.Warnings = out.Warnings
			p.Form.values["items"] = strings.Join(again, "\n")
			if v.Stored == 0 {
				status = http.StatusUnprocessableEntity
			}
		} else {
			p.Form.values["match_type"] = string(adcamp.MatchPhrase)
		}
		page, err := s.svc.ListNegatives(c.ctx, c.tenant(), parent, adcamp.NegativeFilter{Page: 1, PageSize: 100})
		if err != nil {
			return err
		}
		v.Negatives, v.Total = page.Items, page.TotalItems
		if v.Campaign {
			if v.Attached, err = s.svc.AttachedLists(c.ctx, c.tenant(), parent.ID); err != nil {
				return err
			}
			all, err := s.svc.ListNegativeLists(c.ctx, c.tenant(), 1, 100)
			if err != nil {
				return err
			}
			v.Lists = all.Items
		}
		return s.render(w, status, "negatives.html", p)
	}
}

// negativesBack is the page a button's form came from: a path of the
// environment's negatives pages, or the shared lists.
func negativesBack(r *http.Request, c *call) string {
	back := r.PostFormValue("back")
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "?#\\") {
		back = "/negative-lists"
	}
	return c.envPath(back)
}

// changeNegative pauses, resumes or deletes a negative (op), at the
// version the page showed.
func (s *Server) changeNegative(w http.ResponseWriter, r *http.Request, c *call) error {
	id := r.PathValue("negative")
	ifMatch, err := versionOf(r)
	if err != nil {
		return err
	}
	switch op := r.PathValue("op"); op {
	case "pause", "resume":
		st := adcamp.StatusPaused
		if op == "resume" {
			st = adcamp.StatusActive
		}
		_, err = s.svc.UpdateNegative(c.ctx, c.tenant(), id, adcamp.NegativeInput{Status: adcamp.Some(st)}, ifMatch, false)
	case "delete":
		err = s.svc.DeleteNegative(c.ctx, c.tenant(), id, ifMatch)
	default:
		return adcamp.Errorf(adcamp.CodeNotFound, "There is no page at this address.")
	}
	if err != nil {
		return err
	}
	return redirect(w, r, negativesBack(r, c))
}

// negativeListsView is the page of the shared lists.
type negativeListsView struct {
	Lists []*adcamp.NegativeList
	Total int64
}

// negativeLists lists the shared lists and creates one.
func (s *Server) negativeLists(w http.ResponseWriter, r *http.Request, c *call) error {
	v := &negativeListsView{}
	p := c.page(r, "Shared negative keyword lists", "campaigns")
	p.Form, p.Data = newForm(r, "name"), v
	status := http.StatusOK
	if r.Method == http.MethodPost {
		l, err := s.svc.CreateNegativeList(c.ctx, c.tenant(), adcamp.NegativeListInput{Name: adcamp.Some(r.PostFormValue("name"))}, false)
		if err == nil {
			return redirect(w, r, c.envPath("/negative-lists/"+l.ID))
		}
		if status = p.Form.take(err); status == 0 {
			return err
		}
	}
	page, err := s.svc.ListNegativeLists(c.ctx, c.tenant(), 1, 100)
	if err != nil {
		return err
	}
	v.Lists, v.Total = page.Items, page.TotalItems
	return s.render(w, status, "negative-lists.html", p)
}

func (s *Server) deleteNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	ifMatch, err := versionOf(r)
	if err != nil {
		return err
	}
	if err := s.svc.DeleteNegativeList(c.ctx, c.tenant(), r.PathValue("list"), ifMatch); err != nil {
		return err
	}
	return redirect(w, r, c.envPath("/negative-lists"))
}

func (s *Server) attachNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	campaign := r.PathValue("campaign")
	a, err := s.svc.AttachNegativeList(c.ctx, c.tenant(), campaign, r.PostFormValue("list"))
	if err != nil {
		return err
	}
	target := c.envPath(campaignPath(campaign) + "/negatives")
	if n := len(a.Warnings); n > 0 {
		target += "?blocked=" + strconv.Itoa(n)
	}
	return redirect(w, r, target)
}

func (s *Server) detachNegativeList(w http.ResponseWriter, r *http.Request, c *call) error {
	campaign := r.PathValue("campaign")
	if err := s.svc.DetachNegativeList(c.ctx, c.tenant(), campaign, r.PathValue("list")); err != nil {
		return err
	}
	return redirect(w, r, c.envPath(campaignPath(campaign)+"/negatives"))
}

// statusOp is the change that toggles status: resume a paused negative,
// pause an active one.
func statusOp(status adcamp.Status) string {
	if status == adcamp.StatusPaused {
		return "resume"
	}
	return "pause"
}
