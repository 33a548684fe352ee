package console

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// The keywords of an ad group: added in bulk by pasting one a line,
// edited, paused, resumed and deleted one at a time.

// paste is a list of keywords pasted one a line: the batch the API would
// get, and for each of its items the line it came from.
type paste struct {
	items []adcamp.KeywordInput
	lines []int    // the line of each item, from 1, blank lines counted
	texts []string // the text of each item's line
	blank int      // blank lines, skipped
}

// parsePaste reads text pasted one keyword a line, each with match type
// and (unless "") bid. A blank line (white space only) is skipped, not
// sent as an empty keyword; line numbers still count it, so they are
// those of the box the user sees. The line break after the last line
// ends it and starts no line of its own.
func parsePaste(text, match, bid string) paste {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var p paste
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			p.blank++
			continue
		}
		in := adcamp.KeywordInput{Text: adcamp.Some(line)}
		if match != "" {
			in.MatchType = adcamp.Some(adcamp.MatchType(match))
		}
		if strings.TrimSpace(bid) != "" {
			in.Bid = adcamp.Some(bid)
		}
		p.items = append(p.items, in)
		p.lines = append(p.lines, i+1)
		p.texts = append(p.texts, line)
	}
	return p
}

// lineIssue is the problem of one pasted line.
type lineIssue struct {
	Line      int
	Text      string
	Issue     string // "Use at most 80 characters."
	Duplicate bool
}

// String writes the problem as the page shows it: "Line 3: use at most
// 80 characters.", or for a duplicate "Line 7 (duplicate): it repeats
// line 4."
func (l lineIssue) String() string {
	head := "Line " + strconv.Itoa(l.Line)
	if l.Duplicate {
		head += " (duplicate)"
	}
	return head + ": " + lowerFirst(l.Issue)
}

// lowerFirst is s with its first letter in lower case, to follow a colon.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// sharedFields are the fields every pasted line takes from the form: a
// problem with them is the form's, said once, not the lines'.
var sharedFields = []string{"match_type", "bid"}

// outcome maps the outcome of each item of the batch back to the lines
// pasted: the problems of the lines, and those of the form's shared
// fields. When kept, the valid items were stored and the lines refused
// are put back in the box on their own, so each is named by its line
// there.
func (p paste) outcome(results []adcamp.BatchResult, kept bool) (lines []lineIssue, fields map[string]string, stored int) {
	fields = map[string]string{}
	number := p.lines
	if kept {
		number = p.keptLines(results)
	}
	for i, res := range results {
		if res.Err == nil {
			stored++
			continue
		}
		for _, is := range itemIssues(res.Err) {
			if slices.Contains(sharedFields, is.Field) {
				if fields[is.Field] == "" {
					fields[is.Field] = issueText(is)
				}
				continue
			}
			dup := adcamp.ErrorCode(res.Err) == adcamp.CodeDuplicateKeyword
			lines = append(lines, lineIssue{Line: number[i], Text: p.texts[i], Issue: p.lineText(is, kept), Duplicate: dup})
		}
	}
	return lines, fields, stored
}

// keptLines numbers the items refused by a batch that stored the others,
// as they are put back in the box: 1, 2, ...
func (p paste) keptLines(results []adcamp.BatchResult) []int {
	number := make([]int, len(results))
	n := 0
	for i, res := range results {
		if res.Err != nil {
			n++
			number[i] = n
		}
	}
	return number
}

// itemIssues are the problems of one item of the batch.
func itemIssues(err error) []adcamp.FieldIssue {
	if e := (*adcamp.Error)(nil); errors.As(err, &e) {
		if d, ok := e.Details.([]adcamp.FieldIssue); ok && len(d) > 0 {
			return d
		}
		return []adcamp.FieldIssue{{Field: "item", Issue: e.Message}}
	}
	return []adcamp.FieldIssue{{Field: "item", Issue: "This line was refused."}}
}

// lineText says what is wrong with a line. A line that repeats an earlier
// one names it; when kept, the earlier one was stored.
func (p paste) lineText(is adcamp.FieldIssue, kept bool) string {
	if is.Kind == adcamp.IssueRepeats {
		j, err := strconv.Atoi(is.Param)
		switch {
		case kept:
			return "It repeats an earlier line, which was stored."
		case err == nil && j >= 0 && j < len(p.lines):
			return "It repeats line " + strconv.Itoa(p.lines[j]) + "."
		}
		return "It repeats an earlier line."
	}
	if is.Field == "item" {
		return is.Issue
	}
	return issueText(is)
}

// keywordsFormView is the content of the page that adds keywords.
type keywordsFormView struct {
	Group    *adcamp.AdGroup
	Campaign *adcamp.Campaign
	Matches  []option
	Max      string // the most lines a paste may have, for people
	// After a post that was refused whole, or stored in part:
	Sent    int // lines sent (blank ones skipped)
	Blank   int
	Lines   []lineIssue
	Refused bool // nothing was stored
	Good    int  // lines that would be stored, keeping the valid ones
	Stored  int  // stored with "keep the valid ones"
}

var keywordsFields = []string{"items", "match_type", "bid", "keep"}

// newKeywords adds keywords to an ad group from lines pasted: all of them
// or none (the API's batch), or with "keep the valid ones" the valid ones
// (the API's partial mode), each refused line named.
func (s *Server) newKeywords(w http.ResponseWriter, r *http.Request, c *call) error {
	g, camp, err := s.adGroupAndCampaign(r, c)
	if err != nil {
		return err
	}
	v := &keywordsFormView{Group: g, Campaign: camp, Matches: matchOptions(""), Max: grouped(adcamp.MaxKeywordBatch)}
	p := c.page(r, "Add keywords", "campaigns")
	p.Form, p.Data = newForm(r, keywordsFields...), v
	if r.Method == http.MethodGet {
		p.Form.values["match_type"] = string(adcamp.MatchExact)
		return s.render(w, http.StatusOK, "keywords-new.html", p)
	}
	pasted := parsePaste(r.PostFormValue("items"), r.PostFormValue("match_type"), r.PostFormValue("bid"))
	v.Sent, v.Blank = len(pasted.items), pasted.blank
	keep := r.PostFormValue("keep") != ""
	results, err := s.svc.CreateKeywords(c.ctx, c.tenant(), g.ID, pasted.items, service.BatchOptions{Batch: true, Partial: keep})
	if err == nil {
		lines, fields, stored := pasted.outcome(results, true)
		if len(lines) == 0 && len(fields) == 0 {
			return redirect(w, r, addedNotice(c.envPath(adGroupPath(g.ID)), stored, pasted.blank))
		}
		return s.partlyStored(w, p, v, pasted, results, lines, fields, stored)
	}
	if code := adcamp.ErrorCode(err); code != adcamp.CodeValidation && code != adcamp.CodeDuplicateKeyword {
		return s.showChange(w, "keywords-new.html", p, err, keywordsFields...)
	}
	// Refused whole: a dry run that keeps the valid ones names every
	// bad line at once, the invalid and the duplicates alike.
	dry, derr := s.svc.CreateKeywords(c.ctx, c.tenant(), g.ID, pasted.items, service.BatchOptions{Batch: true, Partial: true, DryRun: true})
	if derr != nil {
		return s.showChange(w, "keywords-new.html", p, derr, keywordsFields...)
	}
	lines, fields, good := pasted.outcome(dry, false)
	v.Lines, v.Refused, v.Good = lines, true, good
	for name, msg := range fields {
		p.Form.errors[name] = msg
	}
	p.Form.Error = refusal(len(lines), len(pasted.items), len(fields) > 0)
	return s.render(w, http.StatusUnprocessableEntity, "keywords-new.html", p)
}

// refusal says why a paste was refused whole.
func refusal(bad, sent int, shared bool) string {
	switch {
	case bad == 0:
		return "Nothing was stored: a field needs another look, see the message below it."
	case bad == 1:
		return "Nothing was stored: 1 of " + counted(int64(sent), "line") + " needs another look (listed below)."
	}
	return "Nothing was stored: " + strconv.Itoa(bad) + " of " + strconv.Itoa(sent) + " lines need another look (listed below)."
}

// partlyStored shows what "keep the valid ones" stored, and the lines it
// did not, which it puts back in the box (numbered as there) to correct
// and send again.
func (s *Server) partlyStored(w http.ResponseWriter, p *page, v *keywordsFormView, pasted paste, results []adcamp.BatchResult, lines []lineIssue, fields map[string]string, stored int) error {
	v.Lines, v.Stored = lines, stored
	for name, msg := range fields {
		p.Form.errors[name] = msg
	}
	var again []string
	for i, res := range results {
		if res.Err != nil {
			again = append(again, pasted.texts[i])
		}
	}
	p.Form.values["items"] = strings.Join(again, "\n")
	status := http.StatusOK
	if stored == 0 {
		status = http.StatusUnprocessableEntity
	}
	return s.render(w, status, "keywords-new.html", p)
}

// addedNotice is target with the notice of n keywords added.
func addedNotice(target string, n, blank int) string {
	if blank > 0 {
		return withCounts(target, "keywords-added-bl", int64(n), int64(blank))
	}
	return withCounts(target, "keywords-added", int64(n), 0)
}

// keywordView is a keyword's page.
type keywordView struct {
	Keyword  *adcamp.Keyword
	Group    *adcamp.AdGroup
	Campaign *adcamp.Campaign
	Facts    []fact
	Ended    bool
	History  *recentView
}

// keywordAndParents finds the keyword of the path, its ad group and its
// campaign.
func (s *Server) keywordAndParents(r *http.Request, c *call) (*adcamp.Keyword, *adcamp.AdGroup, *adcamp.Campaign, error) {
	k, err := s.svc.GetKeyword(c.ctx, c.tenant(), r.PathValue("keyword"))
	if err != nil {
		return nil, nil, nil, err
	}
	g, err := s.svc.GetAdGroup(c.ctx, c.tenant(), k.AdGroupID)
	if err != nil {
		return nil, nil, nil, err
	}
	camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), g.CampaignID)
	if err != nil {
		return nil, nil, nil, err
	}
	return k, g, camp, nil
}

// bidText is a keyword's bid for people.
func bidText(k *adcamp.Keyword, g *adcamp.AdGroup) string {
	if k.Bid == nil {
		return money(g.DefaultBid) + " (the ad group's default)"
	}
	return money(*k.Bid)
}

func (s *Server) keyword(w http.ResponseWriter, r *http.Request, c *call) error {
	k, g, camp, err := s.keywordAndParents(r, c)
	if err != nil {
		return err
	}
	history, err := s.recentChanges(c, adcamp.EntityKeyword, k.ID)
	if err != nil {
		return err
	}
	p := c.page(r, k.Text, "campaigns")
	p.Data = keywordView{Keyword: k, History: history, Group: g, Campaign: camp, Ended: camp.Status == adcamp.StatusEnded,
		Facts: []fact{{"Match type", statusName(adcamp.Status(k.MatchType))}, {"Bid", bidText(k, g)}, {"Keyword ID", k.ID},
			{"Version", strconv.FormatInt(k.Version, 10)}, {"Created", formatTime(k.CreatedAt)}, {"Last changed", formatTime(k.UpdatedAt)}}}
	return s.render(w, http.StatusOK, "keyword.html", p)
}

// backTo is where a button's change leads back to: the ad group's page
// when the button was on it (the form says "back=ad-group"), else def.
func backTo(r *http.Request, def, adGroup string) string {
	if r.PostFormValue("back") == "ad-group" {
		return adGroup
	}
	return def
}

// grouped writes n with its thousands grouped: "1,000".
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
