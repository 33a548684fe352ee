package storetest

import (
	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// reportJob stores a report job and brings every field of it to a value
// (for testEveryField): created, claimed, finished while still marked
// running so that a claim takes it again, and read back through the claim
// and GetReportJob.
func (r *roundTrip) reportJob(a *adcamp.Account) {
	ctx := r.t.Context()
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	started, finished, expires := at(41), at(42), at(42+7*86400)
	j := &store.ReportJob{ID: adcamp.NewID(adcamp.PrefixReportJob, at(40)), Tenant: tn, Status: "pending",
		Format: "csv.gz", Params: []byte(`{"level":"keyword","from":"2026-11-01","to":"2026-11-20"}`), CreatedAt: at(40)}
	r.writing(func(tx store.Tx) error { return tx.CreateReportJob(ctx, j) })
	r.writing(func(tx store.Tx) error {
		_, err := tx.ClaimReportJob(ctx, "p1", started, at(70))
		return err
	})
	j.Status, j.Rows, j.Size, j.Error, j.FinishedAt, j.ExpiresAt = "running", 12, 3456, "stopped — ☂", &finished, &expires
	r.writing(func(tx store.Tx) error {
		ok, err := tx.FinishReportJob(ctx, j, "p1")
		if !ok && err == nil {
			r.t.Errorf("FinishReportJob by its owner = false")
		}
		return err
	})
	j.Attempts, j.StartedAt = 2, &started
	r.fixture("a report job", j)
	r.writing(func(tx store.Tx) error {
		got, err := tx.ClaimReportJob(ctx, "p2", started, at(80))
		r.read("ClaimReportJob", got, j, err)
		return nil
	})
	r.reading(func(tx store.Tx) {
		got, err := tx.GetReportJob(ctx, tn, j.ID)
		r.read("GetReportJob", got, j, err)
		list, err := tx.ListReportJobs(ctx, tn, 10)
		r.read("ListReportJobs", list, []*store.ReportJob{j}, err)
	})
}
