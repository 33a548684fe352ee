package adcamp

import "time"

// AdGroup belongs to a campaign and holds keywords.
type AdGroup struct {
	ID          string
	CampaignID  string
	AccountID   string
	Environment Environment
	Name        string
	DefaultBid  Money
	Status      Status // active or paused
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// AdGroupInput carries the fields of an ad group create or update request.
type AdGroupInput struct {
	Name       Optional[string]
	DefaultBid Optional[string] // JSON number text
	Status     Optional[Status]
	Version    Optional[int64] // precondition, like If-Match
	Invalid    Issues          // problems found while reading the request
}

// AdGroupFilter selects a page of a campaign's ad groups.
type AdGroupFilter struct {
	Status   Status // "" for all
	Page     int
	PageSize int
}
