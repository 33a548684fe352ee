package console

import (
	"net/url"

	"github.com/adcamp/adcamp"
)

// The advertising of an account: its campaigns, their ad groups and their
// keywords, in one environment at a time. The environment is part of
// every address (/accounts/{account}/sandbox/campaigns/...), never a
// setting kept aside, so that two tabs cannot disagree about which one a
// form changes. Every page calls the service as the API does, with the
// signed-in user as the origin of each change (see newCall); the service
// checks the user's role in each change's own transaction.

// environments are the environments, in the order the switch shows them.
var environments = []adcamp.Environment{adcamp.Production, adcamp.Sandbox}

// The paths of an environment's pages, for templates and redirects.
func campaignPath(id string) string { return "/campaigns/" + url.PathEscape(id) }
func adGroupPath(id string) string  { return "/ad-groups/" + url.PathEscape(id) }
func keywordPath(id string) string  { return "/keywords/" + url.PathEscape(id) }
