package apicmd

import (
	"context"
	"fmt"
	"time"

	"github.com/adcamp/adcamp/client"
)

// Ad groups, keywords (but their create, in keywords.go) and the API
// listing of channel accounts.

var adGroupView = view[client.AdGroup]{
	noun: "ad group", plural: "ad groups",
	header: []string{"ID", "NAME", "STATUS", "DEFAULT BID", "VERSION"},
	row: func(g client.AdGroup) []string {
		return []string{g.ID, g.Name, string(g.Status), g.DefaultBid.String(), versionCell(g.Version)}
	},
	fields: func(g client.AdGroup) [][2]string {
		return [][2]string{
			{"ID", g.ID}, {"Campaign", g.CampaignID}, {"Name", g.Name}, {"Status", string(g.Status)},
			{"Default bid", g.DefaultBid.String() + " USD"}, {"Version", versionCell(g.Version)},
			{"Created", timeCell(g.CreatedAt)}, {"Updated", timeCell(g.UpdatedAt)},
		}
	},
}

func (c *cli) adGroupsList(ctx context.Context, args []string) error {
	a := c.apiCommand("ad-groups list")
	campaign := a.fs.String("campaign", "", "the campaign's `ID` (required)")
	lf := a.listFlags()
	status := a.fs.String("status", "", "only ad groups with this `STATUS`: active or paused")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("campaign"); err != nil {
		return err
	}
	if err := a.checkList(lf); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	opts := client.AdGroupListOptions{Status: client.Status(*status)}
	return list(a, adGroupView, lf, func(lo client.ListOptions) (*client.Page[client.AdGroup], error) {
		opts.ListOptions = lo
		return cl.ListAdGroups(ctx, *campaign, &opts)
	}, cl.AllAdGroups(ctx, *campaign, &opts))
}

func (c *cli) adGroupsGet(ctx context.Context, args []string) error {
	return get(ctx, c.apiCommand("ad-groups get"), args, adGroupView, (*client.Client).GetAdGroup)
}

func (c *cli) adGroupsCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("ad-groups create")
	campaign := a.fs.String("campaign", "", "the campaign's `ID` (required)")
	name := a.fs.String("name", "", "ad group `NAME` (required)")
	var bid moneyFlag
	a.fs.Var(&bid, "default-bid", "bid `AMOUNT` in USD of its keywords that have none, such as 0.75 (required)")
	status := a.fs.String("status", "", "`STATUS`: active (the default) or paused")
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("campaign", "name", "default-bid"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	in := client.AdGroupCreate{Name: *name, DefaultBid: bid.v, Status: client.Status(*status)}
	defer c.settle(ctx)
	g, err := cl.CreateAdGroup(ctx, *campaign, in, &client.CreateOptions{ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, adGroupView, *g, *validate)
}

func (c *cli) adGroupsUpdate(ctx context.Context, args []string) error {
	a := c.apiCommand("ad-groups update")
	name := a.fs.String("name", "", "new `NAME`")
	var bid moneyFlag
	a.fs.Var(&bid, "default-bid", "new default bid `AMOUNT` in USD")
	status := a.fs.String("status", "", "new `STATUS`: active or paused")
	ifMatch := a.ifMatch()
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.checkIfMatch(*ifMatch); err != nil {
		return err
	}
	in := client.AdGroupUpdate{}
	if a.given["name"] {
		in.Name = name
	}
	if a.given["default-bid"] {
		in.DefaultBid = &bid.v
	}
	if a.given["status"] {
		in.Status = client.Ptr(client.Status(*status))
	}
	if in == (client.AdGroupUpdate{}) {
		return usageError("%s needs something to change: --name, --default-bid or --status", a.name)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	g, err := cl.UpdateAdGroup(ctx, a.args[0], in, &client.UpdateOptions{IfMatch: *ifMatch, ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, adGroupView, *g, *validate)
}

// adGroupDeleted is the API's answer to an ad group's delete.
type adGroupDeleted struct {
	ID              string `json:"id"`
	Deleted         bool   `json:"deleted"`
	DeletedKeywords int64  `json:"deleted_keywords"`
}

func (c *cli) adGroupsDelete(ctx context.Context, args []string) error {
	return remove(ctx, c.apiCommand("ad-groups delete"), args, (*client.Client).DeleteAdGroup,
		func(r *client.DeleteResult) (any, string) {
			return adGroupDeleted{r.ID, r.Deleted, r.DeletedKeywords},
				fmt.Sprintf("Deleted ad group %s, with %s.", r.ID, plural(r.DeletedKeywords, "keyword", "keywords"))
		})
}

// keywordJSON is a keyword as the API shows it: a bid of null means the
// ad group's default bid applies.
type keywordJSON struct {
	ID        string           `json:"id"`
	AdGroupID string           `json:"ad_group_id"`
	Text      string           `json:"text"`
	MatchType client.MatchType `json:"match_type"`
	Bid       *client.Money    `json:"bid"`
	Status    client.Status    `json:"status"`
	Version   int64            `json:"version"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`
}

var keywordView = view[client.Keyword]{
	noun: "keyword", plural: "keywords",
	header: []string{"ID", "TEXT", "MATCH", "BID", "STATUS", "VERSION"},
	row: func(k client.Keyword) []string {
		return []string{k.ID, k.Text, string(k.MatchType), bidCell(k.Bid), string(k.Status), versionCell(k.Version)}
	},
	fields: func(k client.Keyword) [][2]string {
		bid := bidCell(k.Bid)
		if k.Bid != 0 {
			bid += " USD"
		}
		return [][2]string{
			{"ID", k.ID}, {"Ad group", k.AdGroupID}, {"Text", k.Text}, {"Match type", string(k.MatchType)},
			{"Bid", bid}, {"Status", string(k.Status)}, {"Version", versionCell(k.Version)},
			{"Created", timeCell(k.CreatedAt)}, {"Updated", timeCell(k.UpdatedAt)},
		}
	},
	json: func(k client.Keyword) any {
		out := keywordJSON{ID: k.ID, AdGroupID: k.AdGroupID, Text: k.Text, MatchType: k.MatchType,
			Status: k.Status, Version: k.Version, CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt}
		if k.Bid != 0 {
			out.Bid = &k.Bid
		}
		return out
	},
}

// bidCell shows a keyword's bid, or that the ad group's default applies.
func bidCell(m client.Money) string {
	if m == 0 {
		return "default"
	}
	return m.String()
}

func (c *cli) keywordsList(ctx context.Context, args []string) error {
	a := c.apiCommand("keywords list")
	adGroup := a.fs.String("ad-group", "", "the ad group's `ID` (required)")
	lf := a.listFlags()
	status := a.fs.String("status", "", "only keywords with this `STATUS`: active or paused")
	match := a.fs.String("match-type", "", "only keywords of this `TYPE`: exact, phrase or broad")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("ad-group"); err != nil {
		return err
	}
	if err := a.checkList(lf); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	opts := client.KeywordListOptions{Status: client.Status(*status), MatchType: client.MatchType(*match)}
	return list(a, keywordView, lf, func(lo client.ListOptions) (*client.Page[client.Keyword], error) {
		opts.ListOptions = lo
		return cl.ListKeywords(ctx, *adGroup, &opts)
	}, cl.AllKeywords(ctx, *adGroup, &opts))
}

func (c *cli) keywordsGet(ctx context.Context, args []string) error {
	return get(ctx, c.apiCommand("keywords get"), args, keywordView, (*client.Client).GetKeyword)
}

func (c *cli) keywordsUpdate(ctx context.Context, args []string) error {
	a := c.apiCommand("keywords update")
	text := a.fs.String("text", "", "new `TEXT`")
	match := a.fs.String("match-type", "", "new match `TYPE`: exact, phrase or broad")
	var bid moneyFlag
	a.fs.Var(&bid, "bid", "new bid `AMOUNT` in USD")
	clearBid := a.fs.Bool("clear-bid", false, "remove the keyword's bid: the ad group's default bid applies (sends null)")
	status := a.fs.String("status", "", "new `STATUS`: active or paused")
	ifMatch := a.ifMatch()
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.checkIfMatch(*ifMatch); err != nil {
		return err
	}
	in := client.KeywordUpdate{}
	if a.given["text"] {
		in.Text = text
	}
	if a.given["match-type"] {
		in.MatchType = client.Ptr(client.MatchType(*match))
	}
	if a.given["status"] {
		in.Status = client.Ptr(client.Status(*status))
	}
	switch {
	case a.given["bid"] && *clearBid:
		return usageError("%s: --bid and --clear-bid cannot be used together", a.name)
	case a.given["bid"]:
		in.Bid = client.Set(bid.v)
	case *clearBid:
		in.Bid = client.Null[client.Money]()
	}
	if in == (client.KeywordUpdate{}) {
		return usageError("%s needs something to change: --text, --match-type, --bid, --clear-bid or --status", a.name)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	defer c.settle(ctx)
	k, err := cl.UpdateKeyword(ctx, a.args[0], in, &client.UpdateOptions{IfMatch: *ifMatch, ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, keywordView, *k, *validate)
}

// keywordDeleted is the API's answer to a keyword's delete.
type keywordDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (c *cli) keywordsDelete(ctx context.Context, args []string) error {
	return remove(ctx, c.apiCommand("keywords delete"), args, (*client.Client).DeleteKeyword,
		func(r *client.DeleteResult) (any, string) {
			return keywordDeleted{r.ID, r.Deleted}, fmt.Sprintf("Deleted keyword %s.", r.ID)
		})
}

var channelAccountView = view[client.ChannelAccount]{
	noun: "channel account", plural: "channel accounts",
	header: []string{"ID", "MARKETPLACE", "NAME", "CREATED"},
	row: func(ca client.ChannelAccount) []string {
		return []string{fmt.Sprint(ca.ID), ca.Marketplace, ca.Name, timeCell(ca.CreatedAt)}
	},
}

// channelAccountsListAPI is "channel-accounts list --api": the channel
// accounts of the credentials' account, read through the API. (Without
// --api, "channel-accounts list" is the administrative command, which
// reads the database.)
func (c *cli) channelAccountsListAPI(ctx context.Context, args []string) error {
	a := c.apiCommand("channel-accounts list --api")
	viaAPI := a.fs.Bool("api", false, "list through the API with the API credentials (required here)")
	lf := a.listFlags()
	if err := a.parse(args); err != nil {
		return err
	}
	if !*viaAPI {
		return usageError("channel-accounts list: leave out --api=false to list through the database")
	}
	if err := a.checkList(lf); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	return list(a, channelAccountView, lf, func(lo client.ListOptions) (*client.Page[client.ChannelAccount], error) {
		return cl.ListChannelAccounts(ctx, &lo)
	}, cl.AllChannelAccounts(ctx))
}
