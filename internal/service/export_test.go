package service

import "context"

// Dispatcher exposes a webhook dispatcher's steps to the tests of the
// race between a worker giving an endpoint up and a claim.
type Dispatcher struct{ d *dispatcher }

func NewDispatcher(s *Service, cfg DispatchConfig) *Dispatcher {
	return &Dispatcher{&dispatcher{s: s, cfg: cfg.withDefaults(), busy: map[string]bool{}}}
}

func (d *Dispatcher) FanOut(ctx context.Context)            { d.d.fanOut(ctx) }
func (d *Dispatcher) Claim(ctx context.Context) []string    { return d.d.claim(ctx) }
func (d *Dispatcher) Finish(ctx context.Context, id string) { d.d.finish(ctx, id) }
