package adcamp

// ActorType says who made a change: a program signing with an API key, a
// person signed in to the console, an operator at the admin command line,
// or adcamp itself (ending campaigns past their end date).
type ActorType string

// The actor types.
const (
	ActorAPIKey ActorType = "api_key"
	ActorUser   ActorType = "user"
	ActorAdmin  ActorType = "admin"
	ActorSystem ActorType = "system"
)

// Actor names who made a change: for an API key its key id, for a user
// their user id, for an operator the name they run the command line as,
// for the system what part of it acted.
type Actor struct {
	Type ActorType `json:"type"`
	ID   string    `json:"id"`
}
