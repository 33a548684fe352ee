package adcamp

import "time"

// Status is the state of a campaign, an ad group or a keyword. Campaigns
// use all three; ad groups and keywords are active or paused.
type Status string

// The statuses.
const (
	StatusActive Status = "active"
	StatusPaused Status = "paused"
	StatusEnded  Status = "ended"
)

// CampaignStatuses and ChildStatuses list the statuses of campaigns and of
// ad groups and keywords, in the order the API names them.
var (
	CampaignStatuses = []Status{StatusActive, StatusPaused, StatusEnded}
	ChildStatuses    = []Status{StatusActive, StatusPaused}
)

// Campaign is the top-level entity of ad delivery.
type Campaign struct {
	ID               string
	AccountID        string
	Environment      Environment
	Name             string
	BudgetDaily      Money
	Marketplace      string
	ChannelAccountID *int64
	StartDate        Date   // zero when unset
	EndDate          Date   // zero when unset
	Status           Status // as stored; see EffectiveStatus
	Notes            string // the account holder's own text; "" when none
	Version          int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// EffectiveStatus is the status a client sees: a campaign whose end_date
// has passed (in UTC) is ended whatever its stored status.
func (c *Campaign) EffectiveStatus(today Date) Status {
	if !c.EndDate.IsZero() && c.EndDate.Before(today) {
		return StatusEnded
	}
	return c.Status
}

// CampaignInput carries the fields of a create or update request as the
// client sent them; the service validates them all at once.
type CampaignInput struct {
	Name             Optional[string]
	BudgetDaily      Optional[string] // the JSON number's text, parsed by ParseMoney
	Marketplace      Optional[string]
	ChannelAccountID Optional[int64]
	StartDate        Optional[string] // YYYY-MM-DD, parsed by the service
	EndDate          Optional[string]
	Status           Optional[Status]
	Notes            Optional[string]
	// Version, when set, is a precondition like If-Match.
	Version Optional[int64]
	// Invalid lists problems found while reading the request (unknown or
	// read-only fields), reported with the service's own findings.
	Invalid Issues
}

// MaxNotes bounds a campaign's notes, in characters (Unicode code points).
const MaxNotes = 1000

// CampaignFilter selects a page of campaigns.
type CampaignFilter struct {
	Status   Status // "" for all
	Page     int    // from 1
	PageSize int    // 1..100
}

// Page is one page of a list.
type Page[T any] struct {
	Items      []T
	Page       int
	PageSize   int
	TotalItems int64
}

// TotalPages is the number of pages of PageSize that hold TotalItems.
func (p Page[T]) TotalPages() int64 {
	if p.PageSize <= 0 {
		return 0
	}
	return (p.TotalItems + int64(p.PageSize) - 1) / int64(p.PageSize)
}

// CanTransition reports whether a campaign may move from one status to
// another: active and paused move freely between each other and to ended;
// ended is final. Staying in the same status is allowed.
func CanTransition(from, to Status) bool {
	if from == to {
		return true
	}
	switch from {
	case StatusActive, StatusPaused:
		return to == StatusActive || to == StatusPaused || to == StatusEnded
	}
	return false
}
