package service_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// BenchmarkFanOut: what the dispatcher does with the events of b.N
// campaign creates of an account without a webhook endpoint (the API's
// sitting's case), from the outbox until it is empty: the work the
// request's own count (bench/instructions.sh) leaves out. The creates are
// not timed. Counted by callgrind, whole runs (a toggle by function is
// confused by the goroutines' switches), less the same run with
// ADCAMP_BENCH_NO_DISPATCH=1 (the creates alone), at two sizes
// (bench/notes/webhooks.md):
//
//	go test -c -o /tmp/service.test ./internal/service
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind /tmp/service.test \
//	  -test.run '^$' -test.bench '^BenchmarkFanOut$' -test.benchtime 1200x -test.cpu 1
func BenchmarkFanOut(b *testing.B) {
	f := benchFixture(b)
	tn := adcamp.Tenant{AccountID: mustAccount(b, f), Environment: adcamp.Sandbox}
	for i := range b.N {
		if _, err := f.svc.CreateCampaign(admin, tn, campaignInput(fmt.Sprint("Bench ", i)), false); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	if os.Getenv("ADCAMP_BENCH_NO_DISPATCH") != "" {
		return // the creates alone, to subtract
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.svc.RunWebhooks(ctx, service.DispatchConfig{Sender: webhook.NewSender(true), Poll: 20 * time.Millisecond, Sole: true})
	}()
	for {
		n, _, err := f.svc.WebhookQueue(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	cancel()
	<-done
}
