package apicmd

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adcamp/adcamp/client"
)

// The webhook commands (adcamp webhooks ...) and adcamp events list.

func (c *cli) webhooks(ctx context.Context, cmd string, args []string) error {
	switch cmd {
	case "webhooks create":
		return c.webhooksCreate(ctx, args)
	case "webhooks list":
		return c.webhooksList(ctx, args)
	case "webhooks get":
		return c.webhooksGet(ctx, args)
	case "webhooks update":
		return c.webhooksUpdate(ctx, args)
	case "webhooks delete":
		return c.webhooksDelete(ctx, args)
	case "webhooks rotate-secret":
		return c.webhooksRotate(ctx, args)
	case "webhooks test", "webhooks redeliver":
		return c.webhooksQueue(ctx, cmd, args)
	case "webhooks deliveries":
		return c.webhooksDeliveries(ctx, args)
	case "events list":
		return c.eventsList(ctx, args)
	}
	return usageError("unknown command %q; see adcamp help", cmd)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (a *apiCommand) showEndpoint(e *client.WebhookEndpoint) error {
	if a.json {
		return a.printJSON(e)
	}
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	types := strings.Join(e.EventTypes, ", ")
	if types == "" {
		types = "(every type)"
	}
	state := "enabled"
	if !e.Enabled {
		state = "disabled (" + e.DisabledReason + ")"
	}
	for _, f := range [][2]string{{"id", e.ID}, {"url", e.URL}, {"description", e.Description}, {"event types", types},
		{"ordering", e.Ordering}, {"state", state}, {"environment", e.Environment}, {"created", e.CreatedAt.Format(time.RFC3339)}} {
		fmt.Fprintf(w, "%s:\t%s\n", f[0], f[1])
	}
	if e.FailingSince != nil {
		fmt.Fprintf(w, "failing since:\t%s\n", e.FailingSince.Format(time.RFC3339))
	}
	if e.PreviousSecretExpiresAt != nil {
		fmt.Fprintf(w, "previous secret signs until:\t%s\n", e.PreviousSecretExpiresAt.Format(time.RFC3339))
	}
	if e.Secret != "" {
		fmt.Fprintf(w, "secret:\t%s\t(shown once: keep it to verify deliveries)\n", e.Secret)
	}
	return w.Flush()
}

func (c *cli) webhooksCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks create")
	var in client.WebhookEndpointCreate
	a.fs.StringVar(&in.URL, "url", "", "the endpoint's `URL` (https://; http:// in the sandbox)")
	a.fs.StringVar(&in.Description, "description", "", "a `TEXT` for people")
	types := a.fs.String("event-types", "", "only these event `TYPES`, comma-separated (default every type)")
	a.fs.StringVar(&in.Ordering, "ordering", "", "`none` (default) or per_campaign: hold a campaign's events back while an earlier one is retried")
	disabled := a.fs.Bool("disabled", false, "create it disabled")
	if err := a.parse(args); err != nil {
		return err
	}
	if err := a.require("url"); err != nil {
		return err
	}
	in.EventTypes = splitList(*types)
	if *disabled {
		off := false
		in.Enabled = &off
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	e, err := cl.CreateWebhookEndpoint(ctx, in)
	if err != nil {
		return err
	}
	return a.showEndpoint(e)
}

func (c *cli) webhooksList(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks list")
	if err := a.parse(args); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	list, err := cl.ListWebhookEndpoints(ctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(struct {
			Items []client.WebhookEndpoint `json:"items"`
		}{list})
	}
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tURL\tSTATE\tEVENT TYPES")
	for _, e := range list {
		state := "enabled"
		if !e.Enabled {
			state = "disabled (" + e.DisabledReason + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.ID, e.URL, state, strings.Join(e.EventTypes, ","))
	}
	return w.Flush()
}

func (c *cli) webhooksGet(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks get")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	e, err := cl.GetWebhookEndpoint(ctx, a.args[0])
	if err != nil {
		return err
	}
	return a.showEndpoint(e)
}

func (c *cli) webhooksUpdate(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks update")
	url := a.fs.String("url", "", "a new `URL`")
	desc := a.fs.String("description", "", "a new `TEXT`")
	types := a.fs.String("event-types", "", "only these event `TYPES`, comma-separated; \"all\" for every type")
	ordering := a.fs.String("ordering", "", "`none` or per_campaign")
	enable := a.fs.Bool("enable", false, "enable it (clears why it was disabled)")
	disable := a.fs.Bool("disable", false, "disable it")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	var in client.WebhookEndpointUpdate
	if a.given["url"] {
		in.URL = url
	}
	if a.given["description"] {
		in.Description = desc
	}
	if a.given["event-types"] {
		t := splitList(*types)
		if *types == "all" {
			t = []string{}
		}
		in.EventTypes = &t
	}
	if a.given["ordering"] {
		in.Ordering = ordering
	}
	switch {
	case *enable && *disable:
		return usageError("%s takes --enable or --disable, not both", a.name)
	case *enable || *disable:
		on := *enable
		in.Enabled = &on
	}
	if in == (client.WebhookEndpointUpdate{}) {
		return usageError("%s needs a change: --url, --description, --event-types, --ordering, --enable or --disable", a.name)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	e, err := cl.UpdateWebhookEndpoint(ctx, a.args[0], in)
	if err != nil {
		return err
	}
	return a.showEndpoint(e)
}

func (c *cli) webhooksDelete(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks delete")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	d, err := cl.DeleteWebhookEndpoint(ctx, a.args[0])
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(d)
	}
	return a.printf("deleted webhook endpoint %s\n", a.args[0])
}

func (c *cli) webhooksRotate(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks rotate-secret")
	grace := a.fs.Duration("grace", 24*time.Hour, "how long the old secret keeps signing too (`DURATION`, at most 168h; 0 for not at all)")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if *grace < 0 || *grace > 7*24*time.Hour {
		return usageError("--grace must be from 0 to 168h, got %s", *grace)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	e, err := cl.RotateWebhookSecret(ctx, a.args[0], *grace)
	if err != nil {
		return err
	}
	return a.showEndpoint(e)
}

func (c *cli) webhooksQueue(ctx context.Context, cmd string, args []string) error {
	a := c.apiCommand(cmd)
	var in client.DeliveryRequest
	since, until := new(string), new(string)
	if cmd == "webhooks redeliver" {
		a.fs.StringVar(&in.EventID, "event", "", "send the event `ID` again")
		since = a.fs.String("since", "", "send every event from `TIME` again (RFC 3339)")
		until = a.fs.String("until", "", "... up to `TIME` (default now)")
	} else {
		in.Test = true
	}
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if cmd == "webhooks redeliver" {
		if (in.EventID == "") == (*since == "") {
			return usageError("%s takes --event ID, or --since TIME [--until TIME]", a.name)
		}
		for name, s := range map[string]*string{"since": since, "until": until} {
			t, err := timeFlag(name, *s)
			if err != nil {
				return err
			}
			if !t.IsZero() {
				if name == "since" {
					in.Since = &t
				} else {
					in.Until = &t
				}
			}
		}
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	q, err := cl.QueueDeliveries(ctx, a.args[0], in)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(q)
	}
	if in.Test {
		return a.printf("queued test event %s\n", q.TestEventID)
	}
	return a.printf("queued %d deliveries\n", q.Queued)
}

func (c *cli) webhooksDeliveries(ctx context.Context, args []string) error {
	a := c.apiCommand("webhooks deliveries")
	cursor := a.fs.String("cursor", "", "start at `CURSOR`, the next page a list printed")
	limit := a.fs.Int("limit", 50, "attempts per page, 1 to 200")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	if *limit < 1 || *limit > 200 {
		return usageError("--limit must be 1 to 200, got %d", *limit)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	p, err := cl.ListDeliveryAttempts(ctx, a.args[0], *cursor, *limit)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(p)
	}
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tEVENT\tTYPE\tSTATUS\tLATENCY\tERROR")
	for _, at := range p.Items {
		status := "-"
		if at.Status != 0 {
			status = fmt.Sprint(at.Status)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%dms\t%s\n", at.AttemptedAt.Format(time.RFC3339), at.EventID, at.EventType, status,
			at.LatencyMS, at.Error)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if p.NextCursor != "" {
		return a.printf("more: --cursor %s\n", p.NextCursor)
	}
	return nil
}

func (c *cli) eventsList(ctx context.Context, args []string) error {
	a := c.apiCommand("events list")
	var o client.EventListOptions
	types := a.fs.String("type", "", "only events of these `TYPES`, comma-separated")
	since := a.fs.String("since", "", "only events at or after `TIME` (RFC 3339)")
	until := a.fs.String("until", "", "only events before `TIME` (RFC 3339)")
	a.fs.StringVar(&o.Cursor, "cursor", "", "start at `CURSOR`, the next page a list printed")
	a.fs.IntVar(&o.Limit, "limit", 50, "events per page, 1 to 200")
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
	o.Types = splitList(*types)
	if o.Limit < 1 || o.Limit > 200 {
		return usageError("--limit must be 1 to 200, got %d", o.Limit)
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	var items []client.Event
	next := ""
	if *all {
		for e, err := range cl.Events(ctx, &o) {
			if err != nil {
				return err
			}
			items = append(items, e)
		}
	} else {
		p, err := cl.ListEvents(ctx, &o)
		if err != nil {
			return err
		}
		items, next = p.Items, p.NextCursor
	}
	if a.json {
		out := struct {
			Items      []client.Event `json:"items"`
			NextCursor *string        `json:"next_cursor"`
		}{Items: items}
		if items == nil {
			out.Items = []client.Event{}
		}
		if next != "" {
			out.NextCursor = &next
		}
		return a.printJSON(out)
	}
	w := tabwriter.NewWriter(a.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tID\tTYPE")
	for _, e := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\n", e.Timestamp.Format(time.RFC3339), e.ID, e.Type)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if next != "" {
		return a.printf("more: --cursor %s\n", next)
	}
	return nil
}
