package operatorapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/openapischema"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// feedClient follows the feed as an ad server would.
type feedClient struct {
	upserts, removes int
	negatives        int // records of negatives and lists applied
	limit            int // of an answer of changes (0: the server's default)
	e                *env
	id, secret       string
	environment      adcamp.Environment
}

func (f *feedClient) get(path string) (int, []byte) {
	f.e.t.Helper()
	req, _ := http.NewRequest("GET", f.e.operator.URL+path, nil)
	signing.SignRequest(req, signing.SchemeB, f.id, f.secret, nil, f.e.clock.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// snapshot returns the servable keywords by id and the position.
func (f *feedClient) snapshot() (map[string]json.RawMessage, string) {
	f.e.t.Helper()
	status, body := f.get("/operator/v1/serving/snapshot?environment=" + string(f.environment))
	if status != http.StatusOK {
		f.e.t.Fatalf("snapshot = %d %s", status, body)
	}
	out := map[string]json.RawMessage{}
	pos := ""
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			KeywordID     string          `json:"keyword_id"`
			Negative      json.RawMessage `json:"negative"`
			CampaignLists json.RawMessage `json:"campaign_lists"`
			Position      string          `json:"position"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			f.e.t.Fatalf("snapshot line %q: %v", sc.Text(), err)
		}
		if pos != "" {
			f.e.t.Fatalf("snapshot has a line after its position: %s", sc.Text())
		}
		switch {
		case line.Position != "":
			pos = line.Position
		case line.KeywordID != "":
			out["kw:"+line.KeywordID] = compact(sc.Bytes())
		case line.Negative != nil:
			out["neg:"+recordID(line.Negative, "negative_id")] = compact(line.Negative)
		case line.CampaignLists != nil:
			out["lists:"+recordID(line.CampaignLists, "campaign_id")] = compact(line.CampaignLists)
		default:
			f.e.t.Fatalf("snapshot line of no known kind: %s", sc.Text())
		}
	}
	if pos == "" {
		f.e.t.Fatalf("snapshot without a position line:\n%s", body)
	}
	return out, pos
}

// operatorDocument is openapi-operator.yaml's validator, made once.
var operatorDocument = sync.OnceValue(func() func(testing.TB) *openapischema.Validator {
	v, err := openapischema.New(adcamp.OpenAPIOperator)
	return func(t testing.TB) *openapischema.Validator {
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
})()

// recordID returns a record's field named id.
func recordID(m json.RawMessage, id string) string {
	var fields map[string]any
	json.Unmarshal(m, &fields)
	s, _ := fields[id].(string)
	return s
}

// feedChange is one change of an answer, of any kind.
type feedChange struct {
	Op              string          `json:"op"`
	Keyword         json.RawMessage `json:"keyword"`
	KeywordID       string          `json:"keyword_id"`
	Negative        json.RawMessage `json:"negative"`
	NegativeID      string          `json:"negative_id"`
	CampaignLists   json.RawMessage `json:"campaign_lists"`
	CampaignListsOf string          `json:"campaign_lists_of"`
}

// answer asks once for the changes after pos: it returns them, the
// answer's position and its size in bytes. With a limit, it checks that
// the answer holds no more changes.
func (f *feedClient) answer(pos string) ([]feedChange, string, int) {
	f.e.t.Helper()
	q := "/operator/v1/serving/changes?environment=" + string(f.environment) + "&after=" + pos
	if f.limit > 0 {
		q += "&limit=" + strconv.Itoa(f.limit)
	}
	status, body := f.get(q)
	if status != http.StatusOK {
		f.e.t.Fatalf("changes after %s = %d %s", pos, status, body)
	}
	var a struct {
		Data struct {
			Changes  []feedChange `json:"changes"`
			Position string       `json:"position"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		f.e.t.Fatal(err)
	}
	if err := operatorDocument(f.e.t).Response("GET", "/serving/changes", status, nil, body); err != nil {
		f.e.t.Errorf("the answer of changes does not match openapi-operator.yaml: %v\n%s", err, body)
	}
	if f.limit > 0 && len(a.Data.Changes) > f.limit {
		f.e.t.Fatalf("changes with limit=%d answered %d", f.limit, len(a.Data.Changes))
	}
	return a.Data.Changes, a.Data.Position, len(body)
}

// apply applies one change to a state, keyed by kind and id.
func (f *feedClient) apply(state map[string]json.RawMessage, c feedChange) {
	f.e.t.Helper()
	switch {
	case c.Op == "upsert" && c.Keyword != nil:
		state["kw:"+recordID(c.Keyword, "keyword_id")] = compact(c.Keyword)
		f.upserts++
	case c.Op == "upsert" && c.Negative != nil:
		state["neg:"+recordID(c.Negative, "negative_id")] = compact(c.Negative)
		f.negatives++
	case c.Op == "upsert" && c.CampaignLists != nil:
		state["lists:"+recordID(c.CampaignLists, "campaign_id")] = compact(c.CampaignLists)
		f.negatives++
	case c.Op == "remove" && c.KeywordID != "":
		delete(state, "kw:"+c.KeywordID)
		f.removes++
	case c.Op == "remove" && c.NegativeID != "":
		delete(state, "neg:"+c.NegativeID)
		f.negatives++
	case c.Op == "remove" && c.CampaignListsOf != "":
		delete(state, "lists:"+c.CampaignListsOf)
		f.negatives++
	default:
		f.e.t.Fatalf("change of no known kind: %+v", c)
	}
}

// follow applies the changes after pos to state until there are none, and
// returns the position reached.
func (f *feedClient) follow(state map[string]json.RawMessage, pos string) string {
	f.e.t.Helper()
	for range 1000 {
		changes, next, _ := f.answer(pos)
		for _, c := range changes {
			f.apply(state, c)
		}
		pos = next
		if len(changes) == 0 {
			return pos
		}
	}
	f.e.t.Fatal("the changes never ran out")
	return pos
}

// settle follows the changes and compares with a fresh snapshot. On
// PostgreSQL a change is answered once every transaction that began
// before it has ended, in the whole cluster (see internal/postgres/feed.go):
// a transaction of another client of the server can hold it back (in CI,
// another package's tests, which under the race detector may take
// seconds), so settle follows again until the two agree, for up to a
// minute, and then compares.
func (f *feedClient) settle(state map[string]json.RawMessage, pos, when string) string {
	f.e.t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		pos = f.follow(state, pos)
		fresh, _ := f.snapshot()
		if len(fresh) == len(state) && reflect.DeepEqual(fresh, compactAll(state)) {
			return pos
		}
		time.Sleep(20 * time.Millisecond)
	}
	fresh, _ := f.snapshot()
	same(f.e.t.(*testing.T), when, state, fresh)
	return pos
}

// barrier follows the changes after a snapshot's position until they
// hold a keyword created after it, and returns the position reached. On
// PostgreSQL a snapshot's position is behind the transactions still open
// when it was taken, so the setup's own changes may be answered again
// after it; they come before the marker's or in its stretch (answers are
// in commit order), so a test that counts the records of its next change
// starts after the barrier. The marker is a keyword of an account of its
// own, left in the state: a fresh snapshot holds it too.
func (f *feedClient) barrier(state map[string]json.RawMessage, pos string) string {
	f.e.t.Helper()
	marker := f.e.tree("", f.environment, "20.00", 1).keywords[0].ID
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		changes, next, _ := f.answer(pos)
		for _, c := range changes {
			f.apply(state, c)
		}
		pos = next
		// With a limit, the records of one stretch are paged in the order
		// of their keys, not of their commits: the barrier ends with it.
		if _, ok := state["kw:"+marker]; ok && !strings.Contains(pos, "-") {
			return pos
		}
		if len(changes) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	f.e.t.Fatalf("the marker keyword %s never came in the changes", marker)
	return pos
}

func compactAll(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = compact(v)
	}
	return out
}

func compact(m json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	json.Compact(&b, m)
	return b.Bytes()
}

// same compares a followed state with a fresh snapshot.
func same(t *testing.T, when string, got, want map[string]json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: following holds %d keywords, a fresh snapshot %d", when, len(got), len(want))
	}
	var diffs []string
	for id, w := range want {
		if g, ok := got[id]; !ok {
			diffs = append(diffs, "missing "+id)
		} else if !bytes.Equal(compact(g), compact(w)) {
			diffs = append(diffs, fmt.Sprintf("%s: followed %s, snapshot %s", id, g, w))
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			diffs = append(diffs, "extra "+id)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], "…")
	}
	for _, d := range diffs {
		t.Errorf("%s: %s", when, d)
	}
}

// TestFeedExact: random changes of every kind, through two services on one
// database; a snapshot followed by every change after its position is, at
// every step, a fresh snapshot. On PostgreSQL with two store handles
// (connection pools), as two processes would have.
func TestFeedExact(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		feedExact(t, db, db)
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skipf("%s is not set", pgtest.EnvURL)
		}
		url := pgtest.NewSchema(t).URL
		var dbs [2]store.Store
		for i := range dbs {
			db, err := postgres.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			dbs[i] = db
		}
		feedExact(t, dbs[0], dbs[1])
	})
}

func feedExact(t *testing.T, db1, db2 store.Store) {
	e := newEnv(t, db1)
	other := newEnvWith(t, db2, e.clock) // one clock
	svcs := []*service.Service{e.svc, other.svc}
	id, secret := e.operatorKey()
	rng := rand.New(rand.NewPCG(33, 1))
	fc := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Production}
	sb := &feedClient{e: e, id: id, secret: secret, environment: adcamp.Sandbox}

	var trees []*tree
	acct := ""
	for i := range 4 {
		tr := e.tree(acct, adcamp.Production, "20.00", 5)
		acct = tr.tenant.AccountID
		if i == 3 {
			acct = ""
		}
		trees = append(trees, tr)
	}
	sbt := e.tree(trees[0].tenant.AccountID, adcamp.Sandbox, "20.00", 3)

	state, pos := fc.snapshot()
	sstate, spos := sb.snapshot()
	first := len(state)
	if first != 20 || len(sstate) != 3 {
		t.Fatalf("first snapshots hold %d and %d keywords, want 20 and 3", first, len(sstate))
	}
	post := func(k *adcamp.Keyword, cost string) {
		t.Helper()
		a := e.do(e.operator.URL, id, secret, "POST", "/operator/v1/delivery", map[string]any{"items": []any{
			map[string]any{"keyword_id": k.ID, "hour": e.clock.Now().Truncate(time.Hour).Format(time.RFC3339), "cost": json.Number(cost)}}})
		if a.Status != http.StatusOK {
			t.Fatalf("delivery = %d %s", a.Status, a.Raw)
		}
	}
	live := func() (*tree, bool) {
		for range 10 {
			tr := trees[rng.IntN(len(trees))]
			if tr.campaign != nil && tr.group != nil {
				return tr, true
			}
		}
		// Everything picked is gone: a new campaign.
		tr := e.tree(trees[0].tenant.AccountID, adcamp.Production, "20.00", 4)
		trees = append(trees, tr)
		return tr, true
	}
	n, step0, withNegatives := 0, 0, 0
	// Negatives: those made (to pause and delete), and the shared lists
	// with their entries, by account.
	type negRef struct {
		tenant adcamp.Tenant
		id     string
	}
	var negatives []negRef
	type listRef struct {
		tenant  adcamp.Tenant
		id      string
		entries []string
	}
	var lists []*listRef
	negItems := func() []adcamp.NegativeInput {
		var items []adcamp.NegativeInput
		for i := range 1 + rng.IntN(3) {
			// Texts of keywords made ("new N") and others, both match types.
			text := fmt.Sprintf("new %d", 1+rng.IntN(n+1))
			if rng.IntN(3) == 0 {
				text = fmt.Sprintf("other %d %d", step0, i)
			}
			mt := adcamp.MatchExact
			if rng.IntN(2) == 0 {
				mt = adcamp.MatchPhrase
			}
			items = append(items, adcamp.NegativeInput{Text: adcamp.Some(text), MatchType: adcamp.Some(mt)})
		}
		return items
	}
	for step := range 150 {
		step0 = step
		s := svcs[step%2]
		tr, ok := live()
		if !ok {
			break
		}
		tn := tr.tenant
		var err error
		op := rng.IntN(22)
		if (op == 8 || op == 10) && rng.IntN(4) > 0 {
			op = 0 // deletes and ends, a quarter as often: keep something to serve
		}
		switch op {
		case 0, 12, 13: // a batch of new keywords
			items := []adcamp.KeywordInput{}
			for range 1 + rng.IntN(4) {
				n++
				items = append(items, adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("new %d", n)), MatchType: adcamp.Some(adcamp.MatchPhrase)})
			}
			var res []adcamp.BatchResult
			res, err = s.CreateKeywords(admin, tn, tr.group.ID, items, service.BatchOptions{Batch: true})
			for _, r := range res {
				tr.keywords = append(tr.keywords, r.Keyword)
			}
		case 1, 2, 14, 15: // a keyword paused, resumed or its bid changed
			if len(tr.keywords) == 0 {
				continue
			}
			k := tr.keywords[rng.IntN(len(tr.keywords))]
			in := adcamp.KeywordInput{}
			switch rng.IntN(3) {
			case 0:
				in.Status = adcamp.Some(adcamp.StatusPaused)
			case 1:
				in.Status = adcamp.Some(adcamp.StatusActive)
			default:
				in.Bid = adcamp.Some(fmt.Sprintf("%d.%02d", rng.IntN(3), rng.IntN(100)+1))
			}
			_, err = s.UpdateKeyword(admin, tn, k.ID, in, service.IfMatch{}, false)
		case 3: // a keyword deleted
			if len(tr.keywords) == 0 {
				continue
			}
			i := rng.IntN(len(tr.keywords))
			err = s.DeleteKeyword(admin, tn, tr.keywords[i].ID, service.IfMatch{})
			tr.keywords = append(tr.keywords[:i], tr.keywords[i+1:]...)
		case 4: // the ad group paused, resumed, or its default bid changed
			in := adcamp.AdGroupInput{}
			switch rng.IntN(3) {
			case 0:
				in.Status = adcamp.Some(adcamp.StatusPaused)
			case 1:
				in.Status = adcamp.Some(adcamp.StatusActive)
			default:
				in.DefaultBid = adcamp.Some("0.77")
			}
			_, err = s.UpdateAdGroup(admin, tn, tr.group.ID, in, service.IfMatch{}, false)
		case 5: // the campaign paused or resumed
			st := adcamp.StatusPaused
			if rng.IntN(2) == 0 {
				st = adcamp.StatusActive
			}
			_, err = s.UpdateCampaign(admin, tn, tr.campaign.ID, adcamp.CampaignInput{Status: adcamp.Some(st)}, service.IfMatch{}, false)
		case 6: // spend past the budget, then maybe the budget raised
			if len(tr.keywords) == 0 {
				continue
			}
			post(tr.keywords[0], "25.00")
			if rng.IntN(2) == 0 {
				_, err = s.UpdateCampaign(admin, tn, tr.campaign.ID, adcamp.CampaignInput{BudgetDaily: adcamp.Some("30.00")}, service.IfMatch{}, false)
			}
		case 7: // a correction under the budget
			if len(tr.keywords) == 0 {
				continue
			}
			post(tr.keywords[0], "1.00")
		case 8: // the campaign ends with today: after midnight it is ended
			today := adcamp.DateOf(e.clock.Now()).String()
			_, err = s.UpdateCampaign(admin, tn, tr.campaign.ID, adcamp.CampaignInput{EndDate: adcamp.Some(today)}, service.IfMatch{}, false)
			if err == nil {
				*tr = tree{tenant: tn} // picked no more: it refuses changes once ended
			}
		case 9: // midnight passes (in UTC; other zones at their own)
			next := e.clock.Now().Truncate(24 * time.Hour).Add(24*time.Hour + time.Duration(rng.IntN(3))*time.Hour)
			e.clock.Set(next)
			if err := s.FeedTick(ctx); err != nil {
				t.Fatal(err)
			}
		case 10: // the ad group deleted, or the campaign
			if rng.IntN(2) == 0 {
				_, err = s.DeleteAdGroup(admin, tn, tr.group.ID, service.IfMatch{})
				tr.group, tr.keywords = nil, nil
			} else {
				_, err = s.DeleteCampaign(admin, tn, tr.campaign.ID, service.IfMatch{})
				tr.campaign, tr.group, tr.keywords = nil, nil, nil
			}
		case 11: // the account's time zone changes
			zones := []string{"UTC", "Asia/Seoul", "America/Los_Angeles", "Asia/Kolkata"}
			_, err = s.SetAccountTimeZone(admin, tn.AccountID, zones[rng.IntN(len(zones))])
		case 16, 17: // negatives made under the ad group or the campaign
			p := service.NegativeParent{Level: adcamp.LevelAdGroup, ID: tr.group.ID}
			if op == 17 {
				p = service.NegativeParent{Level: adcamp.LevelCampaign, ID: tr.campaign.ID}
			}
			var b *service.NegativeBatch
			b, err = s.CreateNegatives(admin, tn, p, negItems(), service.BatchOptions{Batch: true, Partial: true})
			if b != nil {
				for _, r := range b.Results {
					if r.Negative != nil {
						negatives = append(negatives, negRef{tn, r.Negative.ID})
					}
				}
			}
		case 18: // a negative paused, resumed or deleted
			if len(negatives) == 0 {
				continue
			}
			i := rng.IntN(len(negatives))
			r := negatives[i]
			switch rng.IntN(3) {
			case 0:
				_, err = s.UpdateNegative(admin, r.tenant, r.id, adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
			case 1:
				_, err = s.UpdateNegative(admin, r.tenant, r.id, adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusActive)}, service.IfMatch{}, false)
			default:
				err = s.DeleteNegative(admin, r.tenant, r.id, service.IfMatch{})
				negatives = append(negatives[:i], negatives[i+1:]...)
			}
		case 19: // a shared list made, or entries added to one
			var l *listRef
			for _, x := range lists {
				if x.tenant == tn && rng.IntN(3) > 0 {
					l = x
				}
			}
			if l == nil {
				var nl *adcamp.NegativeList
				if nl, err = s.CreateNegativeList(admin, tn, adcamp.NegativeListInput{Name: adcamp.Some(fmt.Sprintf("list %d", step))}, false); err != nil {
					break
				}
				l = &listRef{tenant: tn, id: nl.ID}
				lists = append(lists, l)
			}
			var b *service.NegativeBatch
			b, err = s.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelList, ID: l.id}, negItems(), service.BatchOptions{Batch: true, Partial: true})
			if b != nil {
				for _, r := range b.Results {
					if r.Negative != nil {
						l.entries = append(l.entries, r.Negative.ID)
						negatives = append(negatives, negRef{tn, r.Negative.ID})
					}
				}
			}
		case 20: // a list attached to the campaign, or detached
			var mine []*listRef
			for _, x := range lists {
				if x.tenant == tn {
					mine = append(mine, x)
				}
			}
			if len(mine) == 0 {
				continue
			}
			l := mine[rng.IntN(len(mine))]
			if rng.IntN(3) > 0 {
				if _, err = s.AttachNegativeList(admin, tn, tr.campaign.ID, l.id); err == nil && rng.IntN(2) == 0 {
					// Entries added to, or paused in, an attached list, after
					// the reader took the attachment.
					pos = fc.settle(state, pos, fmt.Sprintf("attached at step %d", step))
					var b *service.NegativeBatch
					b, err = s.CreateNegatives(admin, tn, service.NegativeParent{Level: adcamp.LevelList, ID: l.id}, negItems(),
						service.BatchOptions{Batch: true, Partial: true})
					if b != nil {
						for _, r := range b.Results {
							if r.Negative != nil {
								l.entries = append(l.entries, r.Negative.ID)
							}
						}
					}
					if err == nil && len(l.entries) > 0 {
						_, err = s.UpdateNegative(admin, tn, l.entries[0], adcamp.NegativeInput{Status: adcamp.Some(adcamp.StatusPaused)}, service.IfMatch{}, false)
					}
				}
			} else {
				err = s.DetachNegativeList(admin, tn, tr.campaign.ID, l.id)
			}
		case 21: // a list's entries removed, or the list deleted
			if len(lists) == 0 {
				continue
			}
			i := rng.IntN(len(lists))
			l := lists[i]
			if rng.IntN(3) > 0 && len(l.entries) > 0 {
				k := 1 + rng.IntN(len(l.entries))
				_, err = s.RemoveListEntries(admin, l.tenant, l.id, l.entries[:k])
				l.entries = l.entries[k:]
			} else {
				err = s.DeleteNegativeList(admin, l.tenant, l.id, service.IfMatch{})
				lists = append(lists[:i], lists[i+1:]...)
			}
		}
		if err != nil && adcamp.ErrorCode(err) != adcamp.CodeInvalidStateTransition && adcamp.ErrorCode(err) != adcamp.CodeValidation &&
			adcamp.ErrorCode(err) != adcamp.CodeNotFound && adcamp.ErrorCode(err) != adcamp.CodeConflict {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%3 == 2 {
			// Answers of every size: one change, a few, the default.
			fc.limit = []int{0, 1, 3, 7}[step%4]
			pos = fc.settle(state, pos, fmt.Sprintf("after step %d", step))
			if t.Failed() {
				return
			}
			withNegatives = max(withNegatives, carryNegatives(state))
			checkEffective(t, e, adcamp.Production, state, fmt.Sprintf("after step %d", step))
			spos = sb.settle(sstate, spos, fmt.Sprintf("sandbox after step %d", step))
		}
	}
	pos = fc.settle(state, pos, "at the end")
	fresh, freshPos := fc.snapshot()
	withNegatives = max(withNegatives, carryNegatives(fresh))
	t.Logf("at most %d keywords carried negatives at once", withNegatives)
	if withNegatives == 0 {
		t.Errorf("no keyword ever carried negatives: the negative steps showed nothing")
	}
	t.Logf("followed %d upserts and %d removals; %d keywords served at the end", fc.upserts, fc.removes, len(fresh))
	if fc.upserts < 20 || fc.removes < 10 {
		t.Errorf("the random changes made %d upserts and %d removals: too few to show anything", fc.upserts, fc.removes)
	}
	if again := fc.follow(state, freshPos); again != freshPos && reflect.DeepEqual(state, fresh) == false {
		t.Errorf("changes after the fresh snapshot's position moved the state")
	}
	_ = pos
	sb.settle(sstate, spos, "sandbox at the end")
	_ = sbt
}

// effectiveNegatives computes, as an ad server does (docs/operator.md),
// the negatives that apply to each keyword of a state: the ids of the
// negative records whose scope is its ad group, its campaign, or one of
// the lists its campaign's record names, sorted.
func effectiveNegatives(state map[string]json.RawMessage) map[string][]string {
	byScope := map[string][]string{}
	lists := map[string][]string{}
	for key, v := range state {
		switch {
		case strings.HasPrefix(key, "neg:"):
			var n struct {
				NegativeID string `json:"negative_id"`
				Scope      string `json:"scope"`
				ScopeID    string `json:"scope_id"`
			}
			json.Unmarshal(v, &n)
			byScope[n.Scope+":"+n.ScopeID] = append(byScope[n.Scope+":"+n.ScopeID], n.NegativeID)
		case strings.HasPrefix(key, "lists:"):
			var l struct {
				CampaignID string   `json:"campaign_id"`
				ListIDs    []string `json:"list_ids"`
			}
			json.Unmarshal(v, &l)
			lists[l.CampaignID] = l.ListIDs
		}
	}
	out := map[string][]string{}
	for key, v := range state {
		if !strings.HasPrefix(key, "kw:") {
			continue
		}
		var k struct {
			KeywordID  string `json:"keyword_id"`
			AdGroupID  string `json:"ad_group_id"`
			CampaignID string `json:"campaign_id"`
		}
		json.Unmarshal(v, &k)
		ids := append(slices.Clone(byScope["ad_group:"+k.AdGroupID]), byScope["campaign:"+k.CampaignID]...)
		for _, l := range lists[k.CampaignID] {
			ids = append(ids, byScope["list:"+l]...)
		}
		sort.Strings(ids)
		out[k.KeywordID] = ids
	}
	return out
}

// checkEffective compares the negatives that apply to each keyword of a
// state, computed from the feed's records, with those the Open API says
// apply (service.EffectiveNegatives).
func checkEffective(t *testing.T, e *env, v adcamp.Environment, state map[string]json.RawMessage, when string) {
	t.Helper()
	got := effectiveNegatives(state)
	byAccount := map[string][]string{}
	for key, raw := range state {
		if strings.HasPrefix(key, "kw:") {
			a := recordID(raw, "account_id")
			byAccount[a] = append(byAccount[a], strings.TrimPrefix(key, "kw:"))
		}
	}
	for a, ids := range byAccount {
		want, err := e.svc.EffectiveNegatives(ctx, adcamp.Tenant{AccountID: a, Environment: v}, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			var w []string
			for _, n := range want[id] {
				w = append(w, n.ID)
			}
			sort.Strings(w)
			if !slices.Equal(got[id], w) {
				t.Errorf("%s: keyword %s: the feed's records apply negatives %v, the API says %v", when, id, got[id], w)
			}
		}
	}
}

// carryNegatives counts the keywords of a state that negatives apply to.
func carryNegatives(state map[string]json.RawMessage) int {
	n := 0
	for _, ids := range effectiveNegatives(state) {
		if len(ids) > 0 {
			n++
		}
	}
	return n
}
