package adcamp

// ServingStatus says whether a campaign's keywords are in the serving
// feed now, and if not why: read-only, computed on the account's day
// (its time zone).
type ServingStatus string

// The serving statuses, in the order they are decided.
const (
	ServingPaused          ServingStatus = "paused"           // the campaign is paused
	ServingEnded           ServingStatus = "ended"            // ended, or its end_date has passed
	ServingNotStarted      ServingStatus = "not_started"      // its start_date is ahead
	ServingBudgetExhausted ServingStatus = "budget_exhausted" // today's spend reached budget_daily
	ServingServing         ServingStatus = "serving"
)

// ServingStatuses lists the serving statuses as the API names them.
var ServingStatuses = []ServingStatus{ServingServing, ServingPaused, ServingEnded, ServingNotStarted, ServingBudgetExhausted}

// ServingOf decides a campaign's serving status on today (the account's
// date) with spend spent so far today.
func ServingOf(c *Campaign, today Date, spend Money) ServingStatus {
	switch {
	case c.Status == StatusPaused:
		return ServingPaused
	case c.Status == StatusEnded || (!c.EndDate.IsZero() && c.EndDate.Before(today)):
		return ServingEnded
	case !c.StartDate.IsZero() && today.Before(c.StartDate):
		return ServingNotStarted
	case spend >= c.BudgetDaily:
		return ServingBudgetExhausted
	}
	return ServingServing
}
