package console

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
)

// The history of an environment: every change to its campaigns, ad
// groups, keywords and API keys, and the account's member changes, newest
// first and filtered as the API's GET /changes is; the latest lines of it
// on each campaign, ad group and keyword page; and a filtered history as
// CSV. Each line names who made the change and through which door:
// "owner@example.com (console) changed budget 25.00 → 40.00".

// changeLine is one change record, for people.
type changeLine struct {
	When   time.Time
	Who    string // "owner@example.com (console)"
	What   string // "changed budget 25.00 → 40.00"
	Entity string // "Campaign Spring"
	Link   string // the entity's page in this environment, or ""
	// Values lists a create's first values or a delete's last ones.
	Values []string
	Record *adcamp.Change
}

// Sentence is the line as one sentence.
func (l changeLine) Sentence() string { return l.Who + " " + l.What }

// historyView is the content of the history page.
type historyView struct {
	Lines       []changeLine
	Query       url.Values // the filters, as the form shows them
	Scope       string     // what the page is limited to, for people ("" for everything)
	EntityTypes []option
	ActorTypes  []option
	Next        string // the link to older changes, or ""
	Newest      string // the link back to the newest, when paging
	CSV         string // the link to the filtered history as CSV
}

// historyParams are the query parameters of the history page and its CSV:
// the API's filters, with dates for since and until.
var historyParams = []string{"entity_type", "entity_id", "campaign_id", "ad_group_id", "actor_type", "actor_id", "since", "until"}

// historyFilter reads the history's filters from q. Since and until are
// days (UTC), both included.
func historyFilter(q url.Values) (adcamp.ChangeFilter, error) {
	f := adcamp.ChangeFilter{
		EntityType: adcamp.EntityType(q.Get("entity_type")),
		EntityID:   strings.TrimSpace(q.Get("entity_id")),
		CampaignID: strings.TrimSpace(q.Get("campaign_id")),
		AdGroupID:  strings.TrimSpace(q.Get("ad_group_id")),
		ActorType:  adcamp.ActorType(q.Get("actor_type")),
		ActorID:    strings.TrimSpace(q.Get("actor_id")),
		Cursor:     q.Get("cursor"),
	}
	var bad []string
	day := func(name, label string) time.Time {
		v := strings.TrimSpace(q.Get(name))
		if v == "" {
			return time.Time{}
		}
		if _, err := adcamp.ParseDate(v); err != nil {
			bad = append(bad, label)
			return time.Time{}
		}
		d, _ := time.Parse(adcamp.DateLayout, v)
		return d
	}
	f.Since = day("since", "“From”")
	if until := day("until", "“To”"); !until.IsZero() {
		f.Until = until.AddDate(0, 0, 1)
	}
	if len(bad) > 0 {
		what := "the " + bad[0] + " date"
		if len(bad) > 1 {
			what = "the " + strings.Join(bad, " and ") + " dates"
		}
		return f, adcamp.Errorf(adcamp.CodeValidation, "Write %s as YYYY-MM-DD, such as 2026-01-31, or leave it empty.", what)
	}
	return f, nil
}

// history is the environment's history page, filtered.
func (s *Server) history(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	f, err := historyFilter(q)
	if err != nil {
		return err
	}
	records, next, err := s.svc.ListChanges(c.ctx, c.tenant(), f)
	if err != nil {
		return err
	}
	lines, err := s.changeLines(c, records)
	if err != nil {
		return err
	}
	kept := url.Values{}
	for _, name := range historyParams {
		if v := q.Get(name); v != "" {
			kept.Set(name, v)
		}
	}
	v := historyView{Lines: lines, Query: kept, Scope: s.historyScope(c, f),
		EntityTypes: historyOptions("Anything", adcamp.EntityTypes, entityTypeName),
		ActorTypes:  historyOptions("Anyone", adcamp.ActorTypes, actorTypeName),
		CSV:         withQuery(c.envPath("/history.csv"), kept)}
	if next != "" {
		older := url.Values{"cursor": {next}}
		for k, vs := range kept {
			older[k] = vs
		}
		v.Next = withQuery(c.envPath("/history"), older)
	}
	if f.Cursor != "" {
		v.Newest = withQuery(c.envPath("/history"), kept)
	}
	p := c.page(r, "History", "history")
	p.Data = v
	return s.render(w, http.StatusOK, "history.html", p)
}

// historyScope says what a filter limits the history to, by name.
func (s *Server) historyScope(c *call, f adcamp.ChangeFilter) string {
	t := c.tenant()
	switch {
	case f.CampaignID != "":
		if camp, err := s.svc.GetCampaign(c.ctx, t, f.CampaignID); err == nil {
			return "Campaign " + camp.Name + " and everything under it"
		}
		return "Campaign " + f.CampaignID + " and everything under it"
	case f.AdGroupID != "":
		if g, err := s.svc.GetAdGroup(c.ctx, t, f.AdGroupID); err == nil {
			return "Ad group " + g.Name + " and its keywords"
		}
		return "Ad group " + f.AdGroupID + " and its keywords"
	case f.EntityID != "":
		if k, err := s.svc.GetKeyword(c.ctx, t, f.EntityID); err == nil {
			return "Keyword " + k.Text
		}
		return f.EntityID
	}
	return ""
}

// maxCSVRows bounds one export: a longer history is exported in parts,
// by dates.
const maxCSVRows = 100_000

// historyCSV writes the filtered history as CSV, one row a changed field
// (a record that lists no field, one row), oldest last as on the page.
func (s *Server) historyCSV(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := historyFilter(r.URL.Query())
	if err != nil {
		return err
	}
	f.Limit = adcamp.MaxChangeLimit
	// Read the first page before answering, so that a refused filter is
	// an error page rather than a broken file.
	records, next, err := s.svc.ListChanges(c.ctx, c.tenant(), f)
	if err != nil {
		return err
	}
	name := "adcamp-history-" + string(c.env) + "-" + time.Now().UTC().Format("2006-01-02") + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	out := csv.NewWriter(w)
	out.Write([]string{"occurred_at", "environment", "entity_type", "entity_id", "campaign_id", "ad_group_id", "operation",
		"field", "old", "new", "actor_type", "actor_id", "actor", "request_id", "idempotency_key", "transaction_id", "change_id"})
	rows := 0
	for {
		emails, err := s.actorEmails(c, records)
		if err != nil {
			return err // the status is sent: the file ends here, short
		}
		for _, ch := range records {
			who := emails[ch.Actor]
			row := func(field, old, new string) {
				out.Write(csvSafe([]string{ch.OccurredAt.UTC().Format(time.RFC3339Nano), string(ch.Environment), string(ch.EntityType),
					ch.EntityID, ch.CampaignID, ch.AdGroupID, string(ch.Operation), field, old, new,
					string(ch.Actor.Type), ch.Actor.ID, who, ch.RequestID, ch.IdempotencyKey, ch.TransactionID, ch.ID}))
				rows++
			}
			if len(ch.Changes) == 0 {
				row("", "", "")
			}
			for _, fc := range ch.Changes {
				row(fc.Field, csvValue(fc.Old), csvValue(fc.New))
			}
		}
		if next == "" || rows >= maxCSVRows {
			break
		}
		f.Cursor = next
		if records, next, err = s.svc.ListChanges(c.ctx, c.tenant(), f); err != nil {
			return err
		}
	}
	out.Flush()
	return out.Error()
}

// csvValue writes a field's value for a spreadsheet: null as nothing.
func csvValue(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// csvSafe keeps a spreadsheet from taking a cell for a formula: a cell
// that starts with = + - @ or a tab gets a leading apostrophe. Names and
// keyword texts are the account's users' own words, but a file opened in
// a spreadsheet should not run them.
func csvSafe(row []string) []string {
	for i, cell := range row {
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			row[i] = "'" + cell
		}
	}
	return row
}

// entityChanges is the latest lines of an entity's history, for its page.
const entityHistoryLines = 10

// recentChanges returns the latest lines of the history of a campaign
// (with what lies under it), an ad group (with its keywords) or a
// keyword, and the link to all of it.
func (s *Server) recentChanges(c *call, typ adcamp.EntityType, id string) (*recentView, error) {
	records, next, err := s.svc.EntityChanges(c.ctx, c.tenant(), typ, id, adcamp.ChangeFilter{Limit: entityHistoryLines})
	if err != nil {
		return nil, err
	}
	lines, err := s.changeLines(c, records)
	if err != nil {
		return nil, err
	}
	param := map[adcamp.EntityType]string{adcamp.EntityCampaign: "campaign_id", adcamp.EntityAdGroup: "ad_group_id", adcamp.EntityKeyword: "entity_id"}[typ]
	return &recentView{Lines: lines, More: next != "", All: withQuery(c.envPath("/history"), url.Values{param: {id}})}, nil
}

// recentView is the History section of an entity's page.
type recentView struct {
	Lines []changeLine
	More  bool   // older lines exist
	All   string // the history page of the entity
}

// changeLines writes records for people, naming their actors and
// entities.
func (s *Server) changeLines(c *call, records []*adcamp.Change) ([]changeLine, error) {
	emails, err := s.actorEmails(c, records)
	if err != nil {
		return nil, err
	}
	keys, err := s.keyNames(c, records)
	if err != nil {
		return nil, err
	}
	names := s.entityNames(c, records)
	lines := make([]changeLine, 0, len(records))
	for _, ch := range records {
		l := changeLine{When: ch.OccurredAt, Who: actorName(ch.Actor, emails, keys), Record: ch}
		l.Entity = entityTypeName(ch.EntityType)
		switch n := names[ch.EntityID]; {
		case ch.EntityType == adcamp.EntityAPIKey:
			l.Entity += " " + keyName(ch.EntityID, orText(keys[ch.EntityID], n))
		case n != "":
			l.Entity += " " + n
		}
		l.Link = s.entityLink(c, ch)
		l.What, l.Values = describe(ch)
		lines = append(lines, l)
	}
	return lines, nil
}

// keyNames finds the names of the account's API keys among the records'
// actors and entities, by id: a key deleted since, or never named, has
// none.
func (s *Server) keyNames(c *call, records []*adcamp.Change) (map[string]string, error) {
	if !slices.ContainsFunc(records, func(ch *adcamp.Change) bool {
		return ch.Actor.Type == adcamp.ActorAPIKey || ch.EntityType == adcamp.EntityAPIKey
	}) {
		return nil, nil
	}
	keys, err := s.svc.ListKeys(c.ctx, c.account.ID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(keys))
	for _, k := range keys {
		if k.Name != "" {
			names[k.ID] = k.Name
		}
	}
	return names, nil
}

// keyName names an API key by its name, if it has one, with its id:
// "“Reporting job” (ak_test_…)".
func keyName(id, name string) string {
	if name == "" || name == id {
		return id
	}
	return "“" + name + "” (" + id + ")"
}

// actorEmails finds the emails of the users among the records' actors
// (a user deleted since keeps their id).
func (s *Server) actorEmails(c *call, records []*adcamp.Change) (map[adcamp.Actor]string, error) {
	return s.svc.ActorNames(c.ctx, records)
}

// entityNames names the records' entities: by the name (or text, or
// email) a record of the page carries, else as they are now; an entity
// deleted since, whose name no record here carries, keeps its id.
func (s *Server) entityNames(c *call, records []*adcamp.Change) map[string]string {
	names := map[string]string{}
	for _, ch := range records {
		if _, ok := names[ch.EntityID]; ok {
			continue
		}
		for _, fc := range ch.Changes {
			if fc.Field == "name" || fc.Field == "text" || fc.Field == "email" {
				if v := csvValue(fc.New); v != "" {
					names[ch.EntityID] = v
				} else if v := csvValue(fc.Old); v != "" {
					names[ch.EntityID] = v
				}
			}
		}
	}
	t := c.tenant()
	for _, ch := range records {
		if _, ok := names[ch.EntityID]; ok {
			continue
		}
		names[ch.EntityID] = ch.EntityID
		switch ch.EntityType {
		case adcamp.EntityCampaign:
			if v, err := s.svc.GetCampaign(c.ctx, t, ch.EntityID); err == nil {
				names[ch.EntityID] = v.Name
			}
		case adcamp.EntityAdGroup:
			if v, err := s.svc.GetAdGroup(c.ctx, t, ch.EntityID); err == nil {
				names[ch.EntityID] = v.Name
			}
		case adcamp.EntityKeyword:
			if v, err := s.svc.GetKeyword(c.ctx, t, ch.EntityID); err == nil {
				names[ch.EntityID] = v.Text
			}
		}
	}
	return names
}

// entityLink is the page of a record's entity in the page's environment,
// or "" where it has none (members, and records of another environment).
func (s *Server) entityLink(c *call, ch *adcamp.Change) string {
	if ch.Environment != c.env {
		return ""
	}
	switch ch.EntityType {
	case adcamp.EntityCampaign:
		return c.envPath(campaignPath(ch.EntityID))
	case adcamp.EntityAdGroup:
		return c.envPath(adGroupPath(ch.EntityID))
	case adcamp.EntityKeyword:
		return c.envPath(keywordPath(ch.EntityID))
	}
	return ""
}

// actorName names who made a change and through which door, an API key
// by its name (keys) where it has one.
func actorName(a adcamp.Actor, emails map[adcamp.Actor]string, keys map[string]string) string {
	switch a.Type {
	case adcamp.ActorUser:
		if e := emails[a]; e != "" && e != a.ID {
			return e + " (console)"
		}
		return "A former user, " + a.ID + " (console)"
	case adcamp.ActorAPIKey:
		if n := keys[a.ID]; n != "" {
			return "API key “" + n + "” (" + a.ID + ", API)"
		}
		return "API key " + a.ID + " (API)"
	case adcamp.ActorAdmin:
		return a.ID + " (command line)"
	case adcamp.ActorSystem:
		return "adcamp (automatically)"
	}
	return a.ID
}

// describe says what a record did: "changed budget 25.00 → 40.00", or
// "created" with the first values listed.
func describe(ch *adcamp.Change) (string, []string) {
	switch ch.Operation {
	case adcamp.OpCreate, adcamp.OpDelete:
		verb := map[adcamp.Operation]string{adcamp.OpCreate: "created ", adcamp.OpDelete: "deleted "}[ch.Operation]
		if ch.EntityType == adcamp.EntityMember {
			verb = map[adcamp.Operation]string{adcamp.OpCreate: "added ", adcamp.OpDelete: "removed "}[ch.Operation]
		}
		var values []string
		for _, fc := range ch.Changes {
			v := fc.New
			if ch.Operation == adcamp.OpDelete {
				v = fc.Old
			}
			if v != nil && *v != "false" { // a flag not set says nothing
				values = append(values, fieldName(fc.Field)+" "+valueText(fc.Field, v))
			}
		}
		return verb + entityNoun(ch.EntityType), values
	}
	var parts []string
	for _, fc := range ch.Changes {
		parts = append(parts, fieldName(fc.Field)+" "+valueText(fc.Field, fc.Old)+" → "+valueText(fc.Field, fc.New))
	}
	if len(parts) == 0 {
		return "changed nothing", nil
	}
	return "changed " + strings.Join(parts, ", "), nil
}

// fieldName is a field's name for people.
func fieldName(field string) string {
	if n, ok := map[string]string{
		"budget_daily":               "budget",
		"default_bid":                "default bid",
		"channel_account_id":         "channel account",
		"start_date":                 "start date",
		"end_date":                   "end date",
		"match_type":                 "match type",
		"previous_secret_expires_at": "previous secret valid until",
		"two_step":                   "two-step sign-in",
	}[field]; ok {
		return n
	}
	return field
}

// moneyFields are the fields whose values are amounts of money.
var moneyFields = []string{"budget_daily", "default_bid", "bid"}

// valueText writes a field's value for people: an amount with its
// currency sign, a time as every page writes one, other text as it is,
// null as "none".
func valueText(field string, raw *string) string {
	if raw == nil {
		if field == "bid" {
			return "the ad group's default"
		}
		return "none"
	}
	v := csvValue(raw)
	if field == "two_step" {
		return map[string]string{"true": "on", "false": "off"}[v]
	}
	if slices.Contains(moneyFields, field) {
		if m, err := adcamp.ParseMoney(v); err == nil {
			return money(m)
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil && strings.HasSuffix(field, "_at") {
		return formatTime(t)
	}
	if field == "notes" && len([]rune(v)) > 60 {
		v = string([]rune(v)[:59]) + "…"
	}
	return v
}

// entityTypeName is an entity type for people.
func entityTypeName(t adcamp.EntityType) string {
	if n, ok := map[adcamp.EntityType]string{
		adcamp.EntityCampaign: "Campaign", adcamp.EntityAdGroup: "Ad group", adcamp.EntityKeyword: "Keyword",
		adcamp.EntityAPIKey: "API key", adcamp.EntityMember: "Member",
	}[t]; ok {
		return n
	}
	return string(t)
}

// entityNoun is an entity type within a sentence.
func entityNoun(t adcamp.EntityType) string {
	if t == adcamp.EntityAPIKey {
		return "API key"
	}
	return strings.ToLower(entityTypeName(t))
}

// actorTypeName is an actor type for people, as the filter offers it.
func actorTypeName(t adcamp.ActorType) string {
	if n, ok := map[adcamp.ActorType]string{
		adcamp.ActorUser: "People in the console", adcamp.ActorAPIKey: "API keys",
		adcamp.ActorAdmin: "The command line", adcamp.ActorSystem: "adcamp itself",
	}[t]; ok {
		return n
	}
	return string(t)
}

// historyOptions are the choices of a filter of the history.
func historyOptions[T ~string](first string, values []T, name func(T) string) []option {
	opts := []option{{"", first}}
	for _, v := range values {
		opts = append(opts, option{string(v), name(v)})
	}
	return opts
}

// withQuery adds q to a local path.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// HistoryHome is where the navigation's History leads: the history of
// the environment the user is in.
func (p *page) HistoryHome() string {
	return "/accounts/" + url.PathEscape(p.Account.ID) + "/" + string(p.Current) + "/history"
}
