package service

import (
	"context"

	"github.com/adcamp/adcamp"
)

// Origin says who asked for a change and through which request, so that
// what is recorded of the change can name them. Each door into the
// service sets it: the API (the API key, the request id, an
// Idempotency-Key), the console (the signed-in user), the admin command
// line (the operator), and the service itself for what it does on its own
// (ending campaigns past their end date).
type Origin struct {
	Actor          adcamp.Actor
	RequestID      string // "" when there is no request (the command line, the system)
	IdempotencyKey string // the client's, or ""
}

type originKey struct{}

// WithOrigin returns ctx carrying o for the service calls made with it.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf returns the origin ctx carries. A context without one is the
// system's own doing.
func OriginOf(ctx context.Context) Origin {
	if o, ok := ctx.Value(originKey{}).(Origin); ok {
		return o
	}
	return Origin{Actor: systemActor}
}

// systemActor is adcamp acting on its own (ending campaigns past their end
// date).
var systemActor = adcamp.Actor{Type: adcamp.ActorSystem, ID: "adcamp"}
