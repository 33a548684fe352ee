package apicmd

import (
	"context"
	"fmt"
	"time"

	"github.com/adcamp/adcamp/client"
)

var campaignView = view[client.Campaign]{
	noun: "campaign", plural: "campaigns",
	header: []string{"ID", "NAME", "STATUS", "SERVING", "BUDGET", "SPENT TODAY", "MARKETPLACE", "START", "END", "VERSION"},
	row: func(c client.Campaign) []string {
		return []string{c.ID, c.Name, string(c.Status), string(c.ServingStatus), c.BudgetDaily.String(), c.SpendToday.String(), c.Marketplace,
			dateCell(c.StartDate), dateCell(c.EndDate), versionCell(c.Version)}
	},
	fields: func(c client.Campaign) [][2]string {
		channel, notes := "-", "-"
		if c.ChannelAccountID != 0 {
			channel = fmt.Sprint(c.ChannelAccountID)
		}
		if c.Notes != "" {
			notes = c.Notes
		}
		return [][2]string{
			{"ID", c.ID}, {"Name", c.Name}, {"Status", string(c.Status)},
			{"Daily budget", c.BudgetDaily.String() + " USD"}, {"Spent today", c.SpendToday.String() + " USD"},
			{"Serving", string(c.ServingStatus)}, {"Marketplace", c.Marketplace},
			{"Channel account", channel}, {"Start date", dateCell(c.StartDate)}, {"End date", dateCell(c.EndDate)},
			{"Notes", notes}, {"Version", versionCell(c.Version)}, {"Created", timeCell(c.CreatedAt)},
			{"Updated", timeCell(c.UpdatedAt)},
		}
	},
	json: func(c client.Campaign) any {
		out := campaignJSON{ID: c.ID, Name: c.Name, BudgetDaily: c.BudgetDaily, Marketplace: c.Marketplace,
			StartDate: c.StartDate, EndDate: c.EndDate, Status: c.Status, Version: c.Version,
			ServingStatus: c.ServingStatus, SpendToday: c.SpendToday,
			CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
		if c.ChannelAccountID != 0 {
			out.ChannelAccountID = &c.ChannelAccountID
		}
		if c.Notes != "" {
			out.Notes = &c.Notes
		}
		return out
	},
}

// campaignJSON is a campaign as the API's data shows it: a campaign
// created with a marketplace code has "channel_account_id": null, one
// without notes "notes": null.
type campaignJSON struct {
	ID               string                `json:"id"`
	Name             string                `json:"name"`
	BudgetDaily      client.Money          `json:"budget_daily"`
	Marketplace      string                `json:"marketplace"`
	ChannelAccountID *int64                `json:"channel_account_id"`
	StartDate        client.Date           `json:"start_date"`
	EndDate          client.Date           `json:"end_date"`
	Status           client.CampaignStatus `json:"status"`
	Notes            *string               `json:"notes"`
	ServingStatus    client.ServingStatus  `json:"serving_status"`
	SpendToday       client.Money          `json:"spend_today"`
	Version          int64                 `json:"version"`
	CreatedAt        time.Time             `json:"created_at"`
	UpdatedAt        time.Time             `json:"updated_at"`
}

func (c *cli) campaignsList(ctx context.Context, args []string) error {
	a := c.apiCommand("campaigns list")
	lf := a.listFlags()
	status := a.fs.String("status", "", "only campaigns with this `STATUS`: active, paused or ended")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.checkList(lf); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	opts := client.CampaignListOptions{Status: client.CampaignStatus(*status)}
	return list(a, campaignView, lf, func(lo client.ListOptions) (*client.Page[client.Campaign], error) {
		opts.ListOptions = lo
		return cl.ListCampaigns(ctx, &opts)
	}, cl.AllCampaigns(ctx, &opts))
}

func (c *cli) campaignsGet(ctx context.Context, args []string) error {
	return get(ctx, c.apiCommand("campaigns get"), args, campaignView, (*client.Client).GetCampaign)
}

func (c *cli) campaignsCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("campaigns create")
	name := a.fs.String("name", "", "campaign `NAME` (required)")
	var budget moneyFlag
	a.fs.Var(&budget, "budget", "daily budget `AMOUNT` in USD, such as 12.50 (required)")
	marketplace := a.fs.String("marketplace", "", "marketplace site `CODE`, such as US (or --channel-account)")
	channel := a.fs.Int64("channel-account", 0, "create on the channel account `ID` (its marketplace)")
	var start, end dateFlag
	a.fs.Var(&start, "start-date", "first day, a `DATE` written YYYY-MM-DD (UTC)")
	a.fs.Var(&end, "end-date", "last day, a `DATE` written YYYY-MM-DD (UTC)")
	notes := a.fs.String("notes", "", "your own notes on the campaign, `TEXT` of up to 1,000 characters")
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("name", "budget"); err != nil {
		return err
	}
	if !a.anyGiven("marketplace", "channel-account") {
		return usageError("%s needs --marketplace CODE or --channel-account ID", a.name)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	in := client.CampaignCreate{Name: *name, BudgetDaily: budget.v, Marketplace: *marketplace,
		ChannelAccountID: *channel, StartDate: start.v, EndDate: end.v, Notes: *notes}
	defer c.settle(ctx)
	cmp, err := cl.CreateCampaign(ctx, in, &client.CreateOptions{ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, campaignView, *cmp, *validate)
}

func (c *cli) campaignsUpdate(ctx context.Context, args []string) error {
	a := c.apiCommand("campaigns update")
	name := a.fs.String("name", "", "new `NAME`")
	var budget moneyFlag
	a.fs.Var(&budget, "budget", "new daily budget `AMOUNT` in USD")
	var start, end dateFlag
	a.fs.Var(&start, "start-date", "new first day, a `DATE` written YYYY-MM-DD")
	a.fs.Var(&end, "end-date", "new last day, a `DATE` written YYYY-MM-DD")
	clearStart := a.fs.Bool("clear-start-date", false, "remove the start date (sends null)")
	clearEnd := a.fs.Bool("clear-end-date", false, "remove the end date (sends null)")
	status := a.fs.String("status", "", "new `STATUS`: active, paused or ended")
	notes := a.fs.String("notes", "", "new notes, `TEXT` of up to 1,000 characters")
	clearNotes := a.fs.Bool("clear-notes", false, "remove the notes (sends null)")
	ifMatch := a.ifMatch()
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.checkIfMatch(*ifMatch); err != nil {
		return err
	}
	in := client.CampaignUpdate{}
	if a.given["name"] {
		in.Name = name
	}
	if a.given["budget"] {
		in.BudgetDaily = &budget.v
	}
	if a.given["status"] {
		in.Status = client.Ptr(client.CampaignStatus(*status))
	}
	var err error
	if in.StartDate, err = a.nullableDate("start-date", start, *clearStart); err != nil {
		return err
	}
	if in.EndDate, err = a.nullableDate("end-date", end, *clearEnd); err != nil {
		return err
	}
	if in.Notes, err = nullable(a, "notes", *notes, *clearNotes); err != nil {
		return err
	}
	if in == (client.CampaignUpdate{}) {
		return usageError("%s needs something to change: --name, --budget, --status, --start-date, --end-date, "+
			"--notes, --clear-start-date, --clear-end-date or --clear-notes", a.name)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	cmp, err := cl.UpdateCampaign(ctx, a.args[0], in, &client.UpdateOptions{IfMatch: *ifMatch, ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, campaignView, *cmp, *validate)
}

// nullableDate is the update of a date from --NAME and --clear-NAME.
func (a *apiCommand) nullableDate(name string, d dateFlag, clear bool) (client.Nullable[client.Date], error) {
	return nullable(a, name, d.v, clear)
}

// nullable is the update of a nullable field from --NAME (its value v)
// and --clear-NAME.
func nullable[T any](a *apiCommand, name string, v T, clear bool) (client.Nullable[T], error) {
	switch {
	case a.given[name] && clear:
		return client.Nullable[T]{}, usageError("%s: --%s and --clear-%s cannot be used together", a.name, name, name)
	case a.given[name]:
		return client.Set(v), nil
	case clear:
		return client.Null[T](), nil
	}
	return client.Nullable[T]{}, nil
}

// campaignsSetStatus is pause, resume and end.
func (c *cli) campaignsSetStatus(ctx context.Context, name string, args []string, status client.CampaignStatus) error {
	a := c.apiCommand(name)
	ifMatch := a.ifMatch()
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.checkIfMatch(*ifMatch); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	cmp, err := cl.UpdateCampaign(ctx, a.args[0], client.CampaignUpdate{Status: &status}, &client.UpdateOptions{IfMatch: *ifMatch})
	if err != nil {
		return apiError(err)
	}
	if a.json {
		return a.printJSON(campaignView.jsonOf(*cmp))
	}
	return a.printf("Campaign %s is now %s (version %d).\n", cmp.ID, cmp.Status, cmp.Version)
}

func (c *cli) campaignsDelete(ctx context.Context, args []string) error {
	return remove(ctx, c.apiCommand("campaigns delete"), args, (*client.Client).DeleteCampaign,
		func(r *client.DeleteResult) (any, string) {
			return r, fmt.Sprintf("Deleted campaign %s, with %s and %s.", r.ID,
				plural(r.DeletedAdGroups, "ad group", "ad groups"), plural(r.DeletedKeywords, "keyword", "keywords"))
		})
}

// get runs a get command: one ID, printed as a key/value block.
func get[T any](ctx context.Context, a *apiCommand, args []string, v view[T],
	fetch func(*client.Client, context.Context, string) (*T, error)) error {
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	x, err := fetch(cl, ctx, a.args[0])
	if err != nil {
		return apiError(err)
	}
	return showOne(a, v, *x, false)
}

// remove runs a delete command; describe gives the JSON and the line of
// text that report the result.
func remove(ctx context.Context, a *apiCommand, args []string,
	del func(*client.Client, context.Context, string, *client.DeleteOptions) (*client.DeleteResult, error),
	describe func(*client.DeleteResult) (any, string)) error {
	ifMatch := a.ifMatch()
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.checkIfMatch(*ifMatch); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer a.c.settle(ctx)
	r, err := del(cl, ctx, a.args[0], &client.DeleteOptions{IfMatch: *ifMatch})
	if err != nil {
		return apiError(err)
	}
	js, text := describe(r)
	if a.json {
		return a.printJSON(js)
	}
	return a.printf("%s\n", text)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
