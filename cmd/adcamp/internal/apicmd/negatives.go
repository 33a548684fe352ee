package apicmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/adcamp/adcamp/client"
)

// The "negatives" commands: negative keywords of ad groups and campaigns,
// and shared lists (issue 35).

var negativeView = view[client.NegativeKeyword]{
	noun: "negative keyword", plural: "negative keywords",
	header: []string{"ID", "TEXT", "MATCH", "STATUS", "LEVEL", "VERSION"},
	row: func(n client.NegativeKeyword) []string {
		return []string{n.ID, n.Text, string(n.MatchType), string(n.Status), string(n.Level), versionCell(n.Version)}
	},
	fields: func(n client.NegativeKeyword) [][2]string {
		return [][2]string{
			{"ID", n.ID}, {"Level", string(n.Level)}, {"Campaign", n.CampaignID}, {"Ad group", n.AdGroupID}, {"List", n.ListID},
			{"Text", n.Text}, {"Match type", string(n.MatchType)}, {"Status", string(n.Status)},
			{"Version", versionCell(n.Version)}, {"Created", timeCell(n.CreatedAt)}, {"Updated", timeCell(n.UpdatedAt)},
		}
	},
}

var negativeListView = view[client.NegativeList]{
	noun: "negative keyword list", plural: "negative keyword lists",
	header: []string{"ID", "NAME", "ENTRIES", "CAMPAIGNS", "VERSION"},
	row: func(l client.NegativeList) []string {
		return []string{l.ID, l.Name, fmt.Sprint(l.Entries), fmt.Sprint(l.Campaigns), versionCell(l.Version)}
	},
	fields: func(l client.NegativeList) [][2]string {
		return [][2]string{{"ID", l.ID}, {"Name", l.Name}, {"Entries", fmt.Sprint(l.Entries)},
			{"Campaigns", fmt.Sprint(l.Campaigns)}, {"Version", versionCell(l.Version)},
			{"Created", timeCell(l.CreatedAt)}, {"Updated", timeCell(l.UpdatedAt)}}
	},
}

// negatives runs "negatives VERB" and "negatives lists VERB".
func (c *cli) negatives(ctx context.Context, cmd string, args []string) (bool, error) {
	switch cmd {
	case "negatives list":
		return true, c.negativesList(ctx, args)
	case "negatives get":
		return true, get(ctx, c.apiCommand(cmd), args, negativeView, (*client.Client).GetNegative)
	case "negatives create":
		return true, c.negativesCreate(ctx, args)
	case "negatives update":
		return true, c.negativesUpdate(ctx, args)
	case "negatives delete":
		return true, remove(ctx, c.apiCommand(cmd), args, (*client.Client).DeleteNegative,
			func(r *client.DeleteResult) (any, string) {
				return keywordDeleted{r.ID, r.Deleted}, "Deleted negative keyword " + r.ID + "."
			})
	case "negatives lists":
		return true, c.negativeLists(ctx, args)
	}
	return false, nil
}

// parentFlags are --ad-group, --campaign and --list, of which exactly one.
type parentFlags struct{ adGroup, campaign, list *string }

func (a *apiCommand) parentFlags() parentFlags {
	return parentFlags{
		adGroup:  a.fs.String("ad-group", "", "the negatives of the ad group `ID`"),
		campaign: a.fs.String("campaign", "", "the negatives of the campaign `ID` (its own)"),
		list:     a.fs.String("list", "", "the entries of the shared list `ID`"),
	}
}

func (a *apiCommand) parent(p parentFlags) (client.NegativeParent, error) {
	n := 0
	var out client.NegativeParent
	for _, f := range []struct {
		name string
		v    *string
		mk   func(string) client.NegativeParent
	}{{"ad-group", p.adGroup, client.AdGroupNegatives}, {"campaign", p.campaign, client.CampaignNegatives}, {"list", p.list, client.ListEntries}} {
		if a.given[f.name] {
			n++
			out = f.mk(*f.v)
		}
	}
	if n != 1 {
		return out, usageError("%s needs one of --ad-group, --campaign or --list", a.name)
	}
	return out, nil
}

func (c *cli) negativesList(ctx context.Context, args []string) error {
	a := c.apiCommand("negatives list")
	pf := a.parentFlags()
	lf := a.listFlags()
	status := a.fs.String("status", "", "only negatives with this `STATUS`: active or paused")
	match := a.fs.String("match-type", "", "only negatives of this `TYPE`: exact or phrase")
	if err := a.parse(args); err != nil {
		return err
	}
	p, err := a.parent(pf)
	if err != nil {
		return err
	}
	if err := a.checkList(lf); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	opts := client.NegativeListOptions{Status: client.Status(*status), MatchType: client.MatchType(*match)}
	return list(a, negativeView, lf, func(lo client.ListOptions) (*client.Page[client.NegativeKeyword], error) {
		opts.ListOptions = lo
		return cl.ListNegatives(ctx, p, &opts)
	}, cl.AllNegatives(ctx, p, &opts))
}

// negativesCreate creates one negative from --text, or many from --file
// (one text a line, blank lines skipped; - reads stdin), all of
// --match-type.
func (c *cli) negativesCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("negatives create")
	pf := a.parentFlags()
	text := a.fs.String("text", "", "the negative's `TEXT`")
	file := a.fs.String("file", "", "create up to 1000, one text a line, from `PATH`; - reads stdin")
	match := a.fs.String("match-type", "", "match `TYPE`: exact or phrase (required)")
	status := a.fs.String("status", "", "`STATUS`: active (the default) or paused")
	partial := a.fs.Bool("partial", false, "store the valid ones and report on each (partial_failure)")
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args); err != nil {
		return err
	}
	p, err := a.parent(pf)
	if err != nil {
		return err
	}
	if err := a.require("match-type"); err != nil {
		return err
	}
	var texts []string
	switch {
	case a.given["text"] == a.given["file"]:
		return usageError("%s needs --text or --file (one of them)", a.name)
	case a.given["text"]:
		texts = []string{*text}
	default:
		if texts, err = c.readLines(*file); err != nil {
			return err
		}
	}
	items := make([]client.NegativeKeywordCreate, len(texts))
	for i, t := range texts {
		items[i] = client.NegativeKeywordCreate{Text: t, MatchType: client.MatchType(*match), Status: client.Status(*status)}
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	opts := &client.CreateOptions{ValidateOnly: *validate}
	defer c.settle(ctx)
	var created []client.NegativeKeyword
	var warnings []client.Warning
	failed := 0
	if *partial {
		res, err := cl.CreateNegativesPartial(ctx, p, items, opts)
		if err != nil {
			return apiError(err)
		}
		for _, it := range res.Items {
			if it.Negative != nil {
				created = append(created, *it.Negative)
			} else if err := a.printf("item %d (%q): %s\n", it.Index, texts[it.Index], oneLine.Replace(it.Err.Error())); err != nil {
				return err
			}
		}
		warnings, failed = res.Warnings, res.Failed
	} else {
		res, err := cl.CreateNegatives(ctx, p, items, opts)
		if err != nil {
			return apiError(err)
		}
		created, warnings = res.Items, res.Warnings
	}
	if a.json {
		return a.printJSON(map[string]any{"items": created, "warnings": warnings, "failed": failed})
	}
	if err := showTable(a, negativeView, created); err != nil {
		return err
	}
	return c.showWarnings(a, warnings)
}

func (c *cli) showWarnings(a *apiCommand, warnings []client.Warning) error {
	for _, w := range warnings {
		if err := a.printf("warning: keyword %s (%q) is blocked by %s\n", w.KeywordID, w.Text, w.NegativeKeywordID); err != nil {
			return err
		}
	}
	return nil
}

// readLines reads the non-blank lines of path (- for stdin), trimmed.
func (c *cli) readLines(path string) ([]string, error) {
	var r io.Reader = c.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			out = append(out, t)
		}
	}
	return out, sc.Err()
}

func (c *cli) negativesUpdate(ctx context.Context, args []string) error {
	a := c.apiCommand("negatives update")
	status := a.fs.String("status", "", "new `STATUS`: active or paused (required)")
	ifMatch := a.ifMatch()
	validate := a.fs.Bool("validate-only", false, "validate and show the result; store nothing")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if err := a.require("status"); err != nil {
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
	n, err := cl.UpdateNegative(ctx, a.args[0], client.NegativeKeywordUpdate{Status: client.Status(*status)},
		&client.UpdateOptions{IfMatch: *ifMatch, ValidateOnly: *validate})
	if err != nil {
		return apiError(err)
	}
	return showOne(a, negativeView, *n, *validate)
}

// negativeLists runs "negatives lists VERB ...".
func (c *cli) negativeLists(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError("negatives lists needs a subcommand: list, get, create, rename, delete, attach, detach, attached, remove")
	}
	verb, args := args[0], args[1:]
	name := "negatives lists " + verb
	a := c.apiCommand(name)
	switch verb {
	case "list":
		lf := a.listFlags()
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
		return list(a, negativeListView, lf, func(lo client.ListOptions) (*client.Page[client.NegativeList], error) {
			return cl.ListNegativeLists(ctx, &lo)
		}, cl.AllNegativeLists(ctx))
	case "get":
		return get(ctx, a, args, negativeListView, (*client.Client).GetNegativeList)
	case "create", "rename":
		listName := a.fs.String("name", "", "the list's `NAME` (required)")
		want := []string{}
		if verb == "rename" {
			want = []string{"ID"}
		}
		if err := a.parse(args, want...); err != nil {
			return err
		}
		if err := a.require("name"); err != nil {
			return err
		}
		cl, err := a.client()
		if err != nil {
			return err
		}
		defer c.settle(ctx)
		var l *client.NegativeList
		if verb == "create" {
			l, err = cl.CreateNegativeList(ctx, client.NegativeListCreate{Name: *listName}, nil)
		} else {
			l, err = cl.UpdateNegativeList(ctx, a.args[0], client.NegativeListUpdate{Name: *listName}, nil)
		}
		if err != nil {
			return apiError(err)
		}
		return showOne(a, negativeListView, *l, false)
	case "delete":
		return remove(ctx, a, args, (*client.Client).DeleteNegativeList, func(r *client.DeleteResult) (any, string) {
			return keywordDeleted{r.ID, r.Deleted}, "Deleted negative keyword list " + r.ID + "."
		})
	case "attach", "detach", "attached", "remove":
		return c.listLinks(ctx, a, verb, args)
	}
	return usageError("unknown command %q; see adcamp help", name)
}

// listLinks runs attach, detach, attached and remove.
func (c *cli) listLinks(ctx context.Context, a *apiCommand, verb string, args []string) error {
	campaign := a.fs.String("campaign", "", "the campaign `ID`")
	listID := a.fs.String("list", "", "the list `ID`")
	var want []string
	if verb == "remove" {
		want = []string{"ENTRY_IDS"}
	}
	if err := a.parse(args, want...); err != nil {
		return err
	}
	need := map[string][]string{"attach": {"campaign", "list"}, "detach": {"campaign", "list"}, "attached": {"campaign"}, "remove": {"list"}}[verb]
	if err := a.require(need...); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	switch verb {
	case "attached":
		ls, err := cl.AttachedLists(ctx, *campaign)
		if err != nil {
			return apiError(err)
		}
		if a.json {
			return a.printJSON(map[string]any{"items": ls})
		}
		return showTable(a, negativeListView, ls)
	case "attach":
		defer c.settle(ctx)
		at, err := cl.AttachList(ctx, *campaign, *listID)
		if err != nil {
			return apiError(err)
		}
		if a.json {
			return a.printJSON(at)
		}
		if err := a.printf("Attached list %s to campaign %s.\n", *listID, *campaign); err != nil {
			return err
		}
		return c.showWarnings(a, at.Warnings)
	case "detach":
		defer c.settle(ctx)
		if err := cl.DetachList(ctx, *campaign, *listID); err != nil {
			return apiError(err)
		}
		return a.printf("Detached list %s from campaign %s.\n", *listID, *campaign)
	default:
		defer c.settle(ctx)
		removed, err := cl.RemoveListEntries(ctx, *listID, strings.Split(a.args[0], ","))
		if err != nil {
			return apiError(err)
		}
		if a.json {
			return a.printJSON(map[string]any{"removed": removed})
		}
		return a.printf("Removed %s from list %s.\n", plural(int64(len(removed)), "entry", "entries"), *listID)
	}
}
