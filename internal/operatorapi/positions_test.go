package operatorapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// TestFeedPositions: a position survives a restart; one older than the
// retention answers 410 POSITION_EXPIRED; bad parameters are 400.
func TestFeedPositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, db)
	tr := e.tree("", adcamp.Production, "10.00", 2)
	id, secret := e.operatorKey()
	fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
	state, pos := fc.snapshot()
	if len(state) != 2 {
		t.Fatalf("snapshot holds %d keywords, want 2", len(state))
	}
	if _, err := e.svc.UpdateKeyword(admin, tr.tenant, tr.keywords[0].ID, adcamp.KeywordInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	e.operator.Close()
	db.Close()

	// A restart: the same database, a new process.
	db, err = sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e2 := newEnvWith(t, db, e.clock)
	k2, err := e2.svc.CreateOperatorKey(admin, "after restart")
	if err != nil {
		t.Fatal(err)
	}
	fc2 := &feedClient{e: e2, id: k2.ID, secret: k2.Secret, environment: adcamp.Production}
	pos2 := fc2.follow(state, pos)
	if _, ok := state[tr.keywords[0].ID]; ok || len(state) != 1 {
		t.Errorf("after the restart, following from %s left %d keywords, the paused one still in: %v", pos, len(state), ok)
	}

	for _, q := range []string{"environment=production", "environment=prod&after=" + pos2, "environment=production&after=x",
		"environment=production&after=" + pos2 + "&wait=2m", "environment=production&after=" + pos2 + "&bogus=1"} {
		if status, body := fc2.get("/operator/v1/serving/changes?" + q); status != http.StatusBadRequest {
			t.Errorf("changes?%s = %d %s, want 400", q, status, body)
		}
	}

	// Past the retention: the old position is gone, the new one not.
	e2.svc.SetFeedRetention(time.Hour)
	if _, err := e2.svc.UpdateKeyword(admin, tr.tenant, tr.keywords[1].ID, adcamp.KeywordInput{Bid: adcamp.Some("1.00")}, service.IfMatch{}, false); err != nil {
		t.Fatal(err)
	}
	e2.clock.Set(e2.clock.Now().Add(2 * time.Hour))
	if err := e2.svc.FeedTick(ctx); err != nil {
		t.Fatal(err)
	}
	status, body := fc2.get("/operator/v1/serving/changes?environment=production&after=" + pos2)
	var a struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal(body, &a)
	if status != http.StatusGone || a.Error.Code != "POSITION_EXPIRED" || !strings.Contains(a.Error.Message, "snapshot") {
		t.Errorf("changes after a purged position = %d %s, want 410 POSITION_EXPIRED saying to take a snapshot", status, body)
	}
	_, pos3 := fc2.snapshot()
	if status, body := fc2.get("/operator/v1/serving/changes?environment=production&after=" + pos3); status != http.StatusOK {
		t.Errorf("changes after a new snapshot = %d %s", status, body)
	}
}

// TestLongPoll: a long-poll answers the change made while it waits. On
// PostgreSQL the setup's own changes may still come after the snapshot
// (another session's open transaction, in this database or another of
// the server, holds the horizon back): those are upserts of what the
// snapshot already holds, and the test takes them as they come.
func TestLongPoll(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newEnv(t, open(t))
		tr := e.tree("", adcamp.Production, "10.00", 1)
		id, secret := e.operatorKey()
		fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
		state, pos := fc.snapshot()
		pos = fc.follow(state, pos)
		type answer struct {
			status int
			body   []byte
		}
		poll := func(pos string) chan answer {
			done := make(chan answer, 1)
			go func() {
				status, body := fc.get("/operator/v1/serving/changes?environment=production&wait=30s&after=" + pos)
				done <- answer{status, body}
			}()
			return done
		}
		// next reads an answer: whether it removes the keyword, and the
		// position it ends at.
		next := func(a answer) (removed bool, pos string) {
			var page struct {
				Data struct{ Position string } `json:"data"`
			}
			if a.status != http.StatusOK || json.Unmarshal(a.body, &page) != nil || page.Data.Position == "" {
				t.Fatalf("the long-poll = %d %s", a.status, a.body)
			}
			return strings.Contains(string(a.body), `"op":"remove"`) && strings.Contains(string(a.body), tr.keywords[0].ID), page.Data.Position
		}
		done := poll(pos)
	wait:
		for range 50 {
			select {
			case a := <-done:
				removed, p := next(a)
				if removed {
					t.Fatalf("the long-poll removed the keyword before it was paused: %s", a.body)
				}
				pos, done = p, poll(p) // the setup's late upserts
			case <-time.After(300 * time.Millisecond):
				break wait
			}
		}
		if _, err := e.svc.UpdateKeyword(admin, tr.tenant, tr.keywords[0].ID, adcamp.KeywordInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			a := <-done
			removed, p := next(a)
			if removed {
				return
			}
			done = poll(p)
		}
		t.Error("the long-poll never answered the keyword's removal")
	})
}
