package apicmd

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/adcamp/adcamp/client"
)

// changesJSON is a page of the history as --json prints it: the API's
// data (with --all, every record and no cursor).
type changesJSON struct {
	Items      []client.Change `json:"items"`
	NextCursor *string         `json:"next_cursor"`
}

// changesList prints the change history: the account's, or with
// --campaign, --ad-group or --keyword one entity's.
func (c *cli) changesList(ctx context.Context, args []string) error {
	a := c.apiCommand("changes list")
	campaign := a.fs.String("campaign", "", "the history of the campaign `ID` and of everything under it")
	adGroup := a.fs.String("ad-group", "", "the history of the ad group `ID` and of its keywords")
	keyword := a.fs.String("keyword", "", "the history of the keyword `ID`")
	var o client.ChangeListOptions
	a.fs.StringVar(&o.EntityType, "entity-type", "", "only records of this `TYPE`: campaign, ad_group, keyword, api_key, member, negative_keyword, negative_keyword_list, webhook_endpoint, account")
	a.fs.StringVar(&o.EntityID, "entity-id", "", "only records of the entity `ID`")
	a.fs.StringVar(&o.ActorType, "actor-type", "", "only changes by this kind of `ACTOR`: api_key, user, admin, system")
	a.fs.StringVar(&o.ActorID, "actor-id", "", "only changes by the actor `ID` (a key, a user id, an operator)")
	since := a.fs.String("since", "", "only changes at or after `TIME` (RFC 3339, such as 2026-11-22T09:30:00Z)")
	until := a.fs.String("until", "", "only changes before `TIME` (RFC 3339)")
	a.fs.StringVar(&o.Cursor, "cursor", "", "start at `CURSOR`, the next page a list printed")
	a.fs.IntVar(&o.Limit, "limit", 50, "records per page, 1 to 200")
	all := a.fs.Bool("all", false, "print every page")
	if err := a.parse(args); err != nil {
		return err
	}
	var err error
	if o.Since, err = timeFlag("since", *since); err != nil {
		return err
	}
	if o.Until, err = timeFlag("until", *until); err != nil {
		return err
	}
	scopes := 0
	for _, s := range []string{*campaign, *adGroup, *keyword} {
		if s != "" {
			scopes++
		}
	}
	switch {
	case scopes > 1:
		return usageError("%s takes one of --campaign, --ad-group and --keyword", a.name)
	case scopes == 1 && a.anyGiven("entity-id"):
		return usageError("%s: --entity-id is for the account's history; leave out --campaign, --ad-group and --keyword", a.name)
	case *all && a.anyGiven("cursor"):
		return usageError("%s: --all walks every page from the newest; leave out --cursor", a.name)
	case o.Limit < 1 || o.Limit > 200:
		return usageError("--limit must be 1 to 200, got %d", o.Limit)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	page, walk := cl.ListChanges, cl.Changes
	switch {
	case *campaign != "":
		page = func(ctx context.Context, o *client.ChangeListOptions) (*client.ChangePage, error) {
			return cl.ListCampaignChanges(ctx, *campaign, o)
		}
		walk = func(ctx context.Context, o *client.ChangeListOptions) iter.Seq2[client.Change, error] {
			return cl.CampaignChanges(ctx, *campaign, o)
		}
	case *adGroup != "":
		page = func(ctx context.Context, o *client.ChangeListOptions) (*client.ChangePage, error) {
			return cl.ListAdGroupChanges(ctx, *adGroup, o)
		}
		walk = func(ctx context.Context, o *client.ChangeListOptions) iter.Seq2[client.Change, error] {
			return cl.AdGroupChanges(ctx, *adGroup, o)
		}
	case *keyword != "":
		page = func(ctx context.Context, o *client.ChangeListOptions) (*client.ChangePage, error) {
			return cl.ListKeywordChanges(ctx, *keyword, o)
		}
		walk = func(ctx context.Context, o *client.ChangeListOptions) iter.Seq2[client.Change, error] {
			return cl.KeywordChanges(ctx, *keyword, o)
		}
	}
	if *all {
		items := []client.Change{}
		for ch, err := range walk(ctx, &o) {
			if err != nil {
				return apiError(err)
			}
			items = append(items, ch)
		}
		return showChanges(a, items, "")
	}
	p, err := page(ctx, &o)
	if err != nil {
		return apiError(err)
	}
	return showChanges(a, p.Items, p.NextCursor)
}

// timeFlag reads an RFC 3339 time flag ("" for none).
func timeFlag(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, usageError("--%s must be a time written RFC 3339, such as 2026-11-22T09:30:00Z; got %q", name, s)
	}
	return t, nil
}

// showChanges prints records as JSON or as a table, and how to go on.
func showChanges(a *apiCommand, items []client.Change, next string) error {
	if a.json {
		out := changesJSON{Items: items}
		if next != "" {
			out.NextCursor = &next
		}
		return a.printJSON(out)
	}
	if len(items) == 0 {
		return a.printf("No changes.\n")
	}
	if err := showTable(a, changeView, items); err != nil {
		return err
	}
	footer := plural(int64(len(items)), "change", "changes") + "."
	if next != "" {
		footer += " Next: --cursor " + next + "; every page: --all."
	}
	return a.printf("%s\n", footer)
}

var changeView = view[client.Change]{
	noun: "change", plural: "changes",
	header: []string{"TIME", "ACTOR", "OPERATION", "ENTITY", "ID", "CHANGES"},
	row: func(c client.Change) []string {
		return []string{c.OccurredAt.UTC().Format("2006-01-02T15:04:05.000Z"), c.Actor.Type + " " + c.Actor.ID,
			c.Operation, c.EntityType, c.EntityID, fieldsCell(c)}
	},
}

// fieldsCell writes a record's fields as "budget_daily 25.00 → 40.00;
// status active → paused" (a create its new values, a delete its old).
func fieldsCell(c client.Change) string {
	val := func(v *string) string {
		if v == nil {
			return "null"
		}
		return *v
	}
	var parts []string
	for _, f := range c.Changes {
		switch c.Operation {
		case "create":
			if f.New != nil {
				parts = append(parts, f.Field+" "+val(f.New))
			}
		case "delete":
			if f.Old != nil {
				parts = append(parts, f.Field+" "+val(f.Old))
			}
		default:
			parts = append(parts, fmt.Sprintf("%s %s → %s", f.Field, val(f.Old), val(f.New)))
		}
	}
	return strings.Join(parts, "; ")
}
