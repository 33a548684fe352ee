package service

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/reportcsv"
	"github.com/adcamp/adcamp/internal/jsonwrite"
	"github.com/adcamp/adcamp/internal/lowpriority"
	"github.com/adcamp/adcamp/internal/store"
)

// Report jobs (docs/report-jobs.md): a report of any size, written in the
// background to a gzipped file (JSON lines or CSV) kept in chunks (in the
// database on PostgreSQL, in a database of their own on SQLite: see
// store.ReportJobsTx), downloaded through the API's signed requests.

// The report jobs' statuses and formats.
const (
	JobPending = "pending"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"

	FormatJSONL = "jsonl.gz"
	FormatCSV   = "csv.gz"
)

const (
	// ReportJobRetention is how long a finished job and its file are kept.
	ReportJobRetention = 7 * 24 * time.Hour
	// DefaultMaxReportJobs is how many jobs an account may have pending
	// or running at once in one environment.
	DefaultMaxReportJobs = 3
	// reportChunk is the size of the file's chunks in the database.
	reportChunk = 1 << 20
	// reportLease is how long a worker holds a job without renewing it:
	// a worker that died leaves it to be claimed again after that.
	reportLease = 30 * time.Second
	// maxReportAttempts is how many times a job is started before it
	// fails (a job that crashed its workers that often).
	maxReportAttempts = 3
	// reportJobPurgeBatch bounds the jobs one purge transaction deletes.
	reportJobPurgeBatch = 100
)

// ReportJobsConfig configures the report jobs of a Service.
type ReportJobsConfig struct {
	// MaxPerAccount bounds an account's jobs pending or running
	// (DefaultMaxReportJobs if zero).
	MaxPerAccount int
	// Lease is how long a claim holds without renewal (reportLease if
	// zero; tests shorten it).
	Lease time.Duration
	// ChunkRows is how many rows of a report by day or hour are read in
	// one transaction (reportChunkRows if zero; tests lower it): see
	// EachPerformanceRow.
	ChunkRows int
	// Foreground, if set, tells a job's writer that the server is
	// answering requests: it then gives way more (lowpriority.Pacer).
	Foreground *lowpriority.Foreground
}

// reportJobs is a Service's part of the report jobs.
type reportJobs struct {
	mu   sync.Mutex
	cfg  ReportJobsConfig
	wake chan struct{}
}

// SetReportJobs configures the report jobs.
func (s *Service) SetReportJobs(c ReportJobsConfig) {
	s.jobs.mu.Lock()
	s.jobs.cfg = c
	s.jobs.mu.Unlock()
}

func (s *core) jobsConfig() ReportJobsConfig {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	c := s.jobs.cfg
	if c.MaxPerAccount <= 0 {
		c.MaxPerAccount = DefaultMaxReportJobs
	}
	if c.Lease <= 0 {
		c.Lease = reportLease
	}
	if c.ChunkRows <= 0 {
		c.ChunkRows = reportChunkRows
	}
	return c
}

func (s *core) jobsWake() chan struct{} {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	if s.jobs.wake == nil {
		s.jobs.wake = make(chan struct{}, 1)
	}
	return s.jobs.wake
}

// reportJobParams is what a job keeps of its query.
type reportJobParams struct {
	Level       string `json:"level"`
	Granularity string `json:"granularity"`
	From        string `json:"from"`
	To          string `json:"to"`
	CampaignID  string `json:"campaign_id,omitempty"`
	AdGroupID   string `json:"ad_group_id,omitempty"`
	Status      string `json:"status,omitempty"`
	Sort        string `json:"sort,omitempty"`
}

// ReportJob is a job as the API shows it.
type ReportJob struct {
	*store.ReportJob
	Query ReportQuery
}

func jobOf(j *store.ReportJob) (*ReportJob, error) {
	var p reportJobParams
	if err := json.Unmarshal(j.Params, &p); err != nil {
		return nil, fmt.Errorf("report job %s: params: %w", j.ID, err)
	}
	q := ReportQuery{Level: p.Level, Granularity: p.Granularity, CampaignID: p.CampaignID, AdGroupID: p.AdGroupID,
		Status: p.Status, Sort: p.Sort}
	q.From, _ = adcamp.ParseDate(p.From)
	q.To, _ = adcamp.ParseDate(p.To)
	return &ReportJob{ReportJob: j, Query: q}, nil
}

// CreateReportJob checks q as PerformanceReport would (Limit and Cursor
// aside) and queues a job writing its rows in format. An account with
// MaxPerAccount jobs pending or running is RATE_LIMITED.
func (s *Ads) CreateReportJob(ctx context.Context, t adcamp.Tenant, q ReportQuery, format string) (*ReportJob, error) {
	if format != FormatJSONL && format != FormatCSV {
		var issues adcamp.Issues
		issues.AddKind("format", adcamp.IssueNotOneOf, FormatJSONL+", "+FormatCSV, "must be one of %s, %s", FormatJSONL, FormatCSV)
		return nil, issues.Err()
	}
	q.Limit, q.Cursor = 0, ""
	if q.Granularity == "" {
		q.Granularity = GranularitySum
	}
	max := s.jobsConfig().MaxPerAccount
	var out *store.ReportJob
	err := s.write(ctx, func(tx store.Tx) error {
		plan, err := s.planReport(ctx, tx, t, q, false)
		if err != nil {
			return err
		}
		// The job keeps the report as asked with its defaults filled in
		// now: a range left out is the last 7 days of today, not of the
		// day the job runs.
		q := plan.rq
		n, err := tx.ActiveReportJobs(ctx, t)
		if err != nil {
			return err
		}
		if n >= max {
			return adcamp.Errorf(adcamp.CodeRateLimited,
				"the account has %d report jobs pending or running, the most it may (%d): wait for one to finish", n, max)
		}
		params, err := json.Marshal(reportJobParams{Level: q.Level, Granularity: q.Granularity, From: q.From.String(), To: q.To.String(),
			CampaignID: q.CampaignID, AdGroupID: q.AdGroupID, Status: q.Status, Sort: q.Sort})
		if err != nil {
			return err
		}
		now := s.Now()
		out = &store.ReportJob{ID: adcamp.NewID(adcamp.PrefixReportJob, now), Tenant: t, Status: JobPending, Format: format,
			Params: params, CreatedAt: now}
		return tx.CreateReportJob(ctx, out)
	})
	if err != nil {
		return nil, err
	}
	select {
	case s.jobsWake() <- struct{}{}:
	default:
	}
	return jobOf(out)
}

// GetReportJob returns t's job id.
func (s *Ads) GetReportJob(ctx context.Context, t adcamp.Tenant, id string) (*ReportJob, error) {
	if !adcamp.ValidID(adcamp.PrefixReportJob, id) {
		return nil, adcamp.NotFound("report job", id)
	}
	var j *store.ReportJob
	err := s.read(ctx, func(tx store.Tx) error {
		if err := s.mayReadReports(ctx, tx, t); err != nil {
			return err
		}
		var err error
		j, err = tx.GetReportJob(ctx, t, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return jobOf(j)
}

// MaxListedReportJobs is how many jobs ReportJobs lists: the newest.
const MaxListedReportJobs = 100

// ReportJobs lists the tenant's jobs, newest first (the newest
// MaxListedReportJobs; jobs are kept 7 days after they end).
func (s *Ads) ReportJobs(ctx context.Context, t adcamp.Tenant) ([]*ReportJob, error) {
	var list []*store.ReportJob
	err := s.read(ctx, func(tx store.Tx) error {
		if err := s.mayReadReports(ctx, tx, t); err != nil {
			return err
		}
		var err error
		list, err = tx.ListReportJobs(ctx, t, MaxListedReportJobs)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]*ReportJob, 0, len(list))
	for _, j := range list {
		job, err := jobOf(j)
		if err != nil {
			return nil, err
		}
		out = append(out, job)
	}
	return out, nil
}

// mayReadReports checks that a console user may read t's reports.
func (s *core) mayReadReports(ctx context.Context, tx store.Tx, t adcamp.Tenant) error {
	if OriginOf(ctx).Actor.Type != adcamp.ActorUser {
		return nil
	}
	_, err := s.authorize(ctx, tx, t.AccountID, actRead, adcamp.NotFound("account", t.AccountID))
	return err
}

// DownloadReportJob writes the file of t's job id to w, after calling
// start with the job (to write headers). A job not done is CONFLICT.
func (s *Ads) DownloadReportJob(ctx context.Context, t adcamp.Tenant, id string, start func(*ReportJob) error, w io.Writer) error {
	if !adcamp.ValidID(adcamp.PrefixReportJob, id) {
		return adcamp.NotFound("report job", id)
	}
	return s.store.Read(ctx, func(tx store.Tx) error {
		if err := s.mayReadReports(ctx, tx, t); err != nil {
			return err
		}
		j, err := tx.GetReportJob(ctx, t, id)
		if err != nil {
			return err
		}
		if j.Status != JobDone {
			return adcamp.Errorf(adcamp.CodeConflict, "the report job is %s: its file can be downloaded once it is done", j.Status)
		}
		rj, err := jobOf(j)
		if err != nil {
			return err
		}
		// Headers once the file is known to be there, so that a missing
		// one is answered as an error. The file is its first Size bytes:
		// a worker that lost its lease may have added chunks after them.
		started, left := false, j.Size
		err = tx.ReportChunks(ctx, id, func(b []byte) error {
			if !started {
				if err := start(rj); err != nil {
					return err
				}
				started = true
			}
			b = b[:min(int64(len(b)), left)]
			left -= int64(len(b))
			_, err := w.Write(b)
			return err
		})
		switch {
		case errors.Is(err, store.ErrReportFileGone) || err == nil && !started:
			return adcamp.Errorf(adcamp.CodeNotFound, "the report job's file is no longer available "+
				"(the database was restored from a backup, which holds no report files); create the job again")
		case err == nil && left > 0:
			return fmt.Errorf("report job %s: its file ended %d bytes short", id, left)
		}
		return err
	})
}

// RunReportJobs runs the report jobs, one at a time, until ctx ends:
// it claims the oldest pending job (or one whose worker died), writes
// its file, and claims the next; with none, it waits for one created by
// this process or polls every second for those of others. It purges
// the expired jobs every hour. owner names this worker in its leases.
func (s *Service) RunReportJobs(ctx context.Context, owner string) {
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	var purged time.Time
	for ctx.Err() == nil {
		if now := s.Now(); now.Sub(purged) >= time.Hour {
			if n, err := s.PurgeReportJobs(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("purge expired report jobs", "err", err)
			} else if n > 0 {
				s.log.Debug("purged expired report jobs", "n", n)
			}
			purged = now
		}
		ran, err := s.RunReportJob(ctx, owner)
		if err != nil && ctx.Err() == nil {
			s.log.Error("report job", "err", err)
		}
		if ran {
			continue
		}
		select {
		case <-ctx.Done():
		case <-s.jobsWake():
		case <-poll.C:
		}
	}
}

// RunReportJob claims one job and runs it, and reports whether there was
// one.
func (s *Service) RunReportJob(ctx context.Context, owner string) (bool, error) {
	cfg := s.jobsConfig()
	var j *store.ReportJob
	err := s.store.Write(ctx, func(tx store.Tx) error {
		var err error
		now := s.Now()
		j, err = tx.ClaimReportJob(ctx, owner, now, now.Add(cfg.Lease))
		return err
	})
	if err != nil || j == nil {
		return false, err
	}
	if j.Attempts > maxReportAttempts {
		return true, s.finishJob(ctx, j, owner, &adcamp.Error{Code: adcamp.CodeInternal,
			Message: fmt.Sprintf("its run stopped %d times before the end (the server stopped or crashed); create the job again", j.Attempts-1)})
	}
	rj, err := jobOf(j)
	if err != nil {
		return true, s.finishJob(ctx, j, owner, err)
	}
	s.log.Info("report job started", "job", j.ID, "attempt", j.Attempts)
	// The job is background work: its reads, formatting and compression
	// run on a thread at the lowest priority, so that the API's requests
	// go first on a machine of few cores.
	var runErr error
	lowpriority.Do(func() { runErr = s.writeJob(ctx, rj, owner, cfg) })
	if ctx.Err() != nil {
		return true, nil // stopped: another run (or this process's next) takes it up
	}
	return true, s.finishJob(ctx, j, owner, runErr)
}

// errLeaseLost stops a job whose lease another worker took.
var errLeaseLost = adcamp.Errorf(adcamp.CodeConflict, "the report job's lease was taken by another worker")

// finishJob stores the end of j (done unless runErr), with its event.
func (s *core) finishJob(ctx context.Context, j *store.ReportJob, owner string, runErr error) error {
	if runErr == errLeaseLost {
		return nil
	}
	now := s.Now()
	expires := now.Add(ReportJobRetention)
	j.FinishedAt, j.ExpiresAt = &now, &expires
	j.Status = JobDone
	typ := adcamp.EventReportJobDone
	if runErr != nil {
		j.Status, j.Error, j.Rows, j.Size = JobFailed, jobError(runErr), 0, 0
		typ = adcamp.EventReportJobFailed
		s.log.Warn("report job failed", "job", j.ID, "err", runErr)
	} else {
		s.log.Info("report job done", "job", j.ID, "rows", j.Rows, "bytes", j.Size)
	}
	return s.store.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
		ok, err := tx.FinishReportJob(ctx, j, owner)
		if err != nil || !ok {
			return err
		}
		return tx.AddEvents(ctx, []*adcamp.Event{reportJobEvent(j, typ, now)})
	})
}

// jobError is what a failed job says: the service's message for an
// error of the domain, a generic one for the rest (logged).
func jobError(err error) string {
	if e, ok := err.(*adcamp.Error); ok {
		return e.Message
	}
	if c := adcamp.ErrorCode(err); c != "" && c != adcamp.CodeInternal {
		return err.Error()
	}
	return "the report could not be written; create the job again"
}

// reportJobEvent is the webhook event of a finished job: its data is
// the job as GET /report-jobs/{id} shows it.
func reportJobEvent(j *store.ReportJob, typ string, now time.Time) *adcamp.Event {
	e := &adcamp.Event{ID: adcamp.NewID(adcamp.PrefixEvent, now), AccountID: j.Tenant.AccountID, Environment: j.Tenant.Environment,
		Type: typ, OccurredAt: now}
	rj, err := jobOf(j)
	var data any = map[string]string{"id": j.ID}
	if err == nil {
		data = ReportJobJSON(rj)
	}
	e.Payload = payload(e, data)
	return e
}

// ReportJobView is a job as the API writes it.
type ReportJobView struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	Format      string  `json:"format"`
	Level       string  `json:"level"`
	Granularity string  `json:"granularity"`
	From        string  `json:"from"`
	To          string  `json:"to"`
	CampaignID  *string `json:"campaign_id"`
	AdGroupID   *string `json:"ad_group_id"`
	StatusQ     *string `json:"status_filter"`
	Sort        *string `json:"sort"`
	RowCount    int64   `json:"row_count"`
	SizeBytes   int64   `json:"size_bytes"`
	Error       *string `json:"error"`
	CreatedAt   string  `json:"created_at"`
	StartedAt   *string `json:"started_at"`
	FinishedAt  *string `json:"finished_at"`
	ExpiresAt   *string `json:"expires_at"`
}

// ReportJobJSON is j as the API (and its webhook events) write it.
func ReportJobJSON(j *ReportJob) ReportJobView {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	tm := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		s := t.UTC().Format(time.RFC3339)
		return &s
	}
	return ReportJobView{ID: j.ID, Status: j.Status, Format: j.Format, Level: j.Query.Level, Granularity: j.Query.Granularity,
		From: j.Query.From.String(), To: j.Query.To.String(), CampaignID: opt(j.Query.CampaignID), AdGroupID: opt(j.Query.AdGroupID),
		StatusQ: opt(j.Query.Status), Sort: opt(j.Query.Sort), RowCount: j.Rows, SizeBytes: j.Size, Error: opt(j.ReportJob.Error),
		CreatedAt: j.CreatedAt.UTC().Format(time.RFC3339), StartedAt: tm(j.StartedAt), FinishedAt: tm(j.FinishedAt),
		ExpiresAt: tm(j.ExpiresAt)}
}

// chunkWriter stores what is written to it as a job's chunks, renewing
// the job's lease on time.
type chunkWriter struct {
	ctx   context.Context
	s     *Service
	job   *store.ReportJob
	owner string
	lease time.Duration
	buf   []byte
	seq   int
	size  int64
	// renewed is when the lease was last renewed (see renew).
	renewed time.Time
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), reportChunk-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == reportChunk {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	if err := c.renew(); err != nil {
		return err
	}
	// At the usual priority: on SQLite this write may lead a batch that
	// commits the API's writes too (see lowpriority.Usual).
	var err error
	lowpriority.Usual(func() {
		err = c.s.store.Write(c.ctx, func(tx store.Tx) error {
			return tx.PutReportChunk(c.ctx, c.job.ID, c.seq, c.buf)
		})
	})
	if err != nil {
		return err
	}
	c.seq++
	c.size += int64(len(c.buf))
	c.buf = c.buf[:0]
	return nil
}

// renew extends the job's lease once a third of it has passed since the
// last renewal (the claim the first), and stops the job if another worker
// took it. Not with each chunk: on SQLite every commit to the main
// database costs the API's reads (they map its file again), and the
// chunks, a database apart, commit nothing there (docs/report-jobs.md).
func (c *chunkWriter) renew() error {
	now := c.s.Now()
	if now.Sub(c.renewed) <= c.lease/3 {
		return nil
	}
	c.renewed = now
	var err error
	lowpriority.Usual(func() { // as flush's
		err = c.s.store.Write(c.ctx, func(tx store.Tx) error {
			ok, err := tx.RenewReportJob(c.ctx, c.job.ID, c.owner, now.Add(c.lease))
			if err == nil && !ok {
				err = errLeaseLost
			}
			return err
		})
	})
	return err
}

// writeJob writes j's file and sets its row count and size.
func (s *Service) writeJob(ctx context.Context, j *ReportJob, owner string, cfg ReportJobsConfig) error {
	cw := &chunkWriter{ctx: ctx, s: s, job: j.ReportJob, owner: owner, lease: cfg.Lease, buf: make([]byte, 0, reportChunk),
		renewed: s.Now()}
	// klauspost/compress's gzip at its fastest level: about 1.7 times
	// the speed of the standard library's, for a smaller file
	// (bench/notes/reports.md).
	zw, err := gzip.NewWriterLevel(cw, gzip.BestSpeed)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	var rows int64
	var line []byte
	csv := j.Format == FormatCSV
	if csv {
		bw.WriteString(csvHeader(j.Query))
	}
	// Give way to the API's requests every half millisecond of work, and
	// wait for them while they come (see lowpriority.Pacer): in a process
	// pinned to one core, the API's p99 beside a job was 26 ms, 1.9 ms
	// with the yields (bench/README.md).
	pace := lowpriority.NewPacer(500*time.Microsecond, cfg.Foreground)
	err = s.EachPerformanceRow(store.WithBackgroundReads(ctx), j.Tenant, j.Query, func(r *ReportRow) error {
		if rows%64 == 0 {
			pace.Yield()
		}
		if csv {
			line = appendCSVRow(line[:0], j.Query, r)
		} else {
			line = appendJSONRow(line[:0], r)
		}
		rows++
		if _, err := bw.Write(line); err != nil {
			return err
		}
		// Rows that compress well may fill no chunk for a while: renew
		// the lease on time anyway.
		if rows%4096 == 0 {
			return cw.renew()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := cw.flush(); err != nil {
		return err
	}
	j.Rows, j.Size = rows, cw.size
	return nil
}

// appendJSONRow writes a row as one line of JSON, with the fields and
// values of the rows of GET /reports/performance.
func appendJSONRow(b []byte, r *ReportRow) []byte {
	str := func(name, v string) {
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = jsonwrite.AppendString(b, v, jsonwrite.EncodingJSON)
		b = append(b, ',')
	}
	b = append(b, '{')
	// Dates and hours are digits and dashes: nothing to escape.
	if !r.Date.IsZero() {
		b = append(b, `"date":"`...)
		b, _ = r.Date.AppendText(b)
		b = append(b, `",`...)
	}
	if !r.Hour.IsZero() {
		b = append(b, `"hour":"`...)
		b = r.Hour.AppendFormat(b, time.RFC3339)
		b = append(b, `",`...)
	}
	str("campaign_id", r.CampaignID)
	str("campaign_name", r.CampaignName)
	if r.AdGroupID != "" {
		str("ad_group_id", r.AdGroupID)
		str("ad_group_name", r.AdGroupName)
	}
	if r.KeywordID != "" {
		str("keyword_id", r.KeywordID)
		str("keyword_text", r.KeywordText)
		str("match_type", string(r.MatchType))
	}
	str("status", r.Status)
	b = append(b, `"deleted":`...)
	b = strconv.AppendBool(b, r.Deleted)
	b = appendJSONMetrics(b, r.ReportMetrics)
	return append(b, "}\n"...)
}

func appendJSONMetrics(b []byte, m ReportMetrics) []byte {
	num := func(name string, v int64) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	money := func(name string, v adcamp.Money) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = v.AppendText(b)
	}
	num("impressions", m.Impressions)
	num("clicks", m.Clicks)
	money("cost", m.Cost)
	num("orders", m.Orders)
	money("sales", m.Sales)
	return m.appendRatios(b, jsonRatios)
}

// jsonRatios writes the ratios as JSON members.
var jsonRatios = &ratioStyle{prefix: [5]string{`,"ctr":`, `,"cpc":`, `,"conversion_rate":`, `,"acos":`, `,"roas":`},
	quote: `"`, null: "null"}

// csvColumns are the columns of a CSV report of q.
func csvColumns(q ReportQuery) []string { return reportcsv.Columns(q.Level, q.Granularity) }

func csvHeader(q ReportQuery) string {
	var b []byte
	for i, c := range csvColumns(q) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	return string(append(b, "\r\n"...))
}

// PerformanceCSVHeader is the header line of a CSV report of q, and
// AppendPerformanceCSVRow appends one of its rows: the format of a
// csv.gz report job, for the console's download of a report (Level and
// Granularity must be given, not left to their defaults).
func PerformanceCSVHeader(q ReportQuery) string { return csvHeader(q) }

// AppendPerformanceCSVRow: see PerformanceCSVHeader.
func AppendPerformanceCSVRow(b []byte, q ReportQuery, r *ReportRow) []byte {
	return appendCSVRow(b, q, r)
}

// appendCSVRow writes a row of a CSV report of q (RFC 4180, CRLF). It
// allocates nothing: a job writes millions of rows.
func appendCSVRow(b []byte, q ReportQuery, r *ReportRow) []byte {
	switch q.Granularity {
	case GranularityDay:
		b, _ = r.Date.AppendText(b) // digits and dashes: no cell to quote
		b = append(b, ',')
	case GranularityHour:
		b, _ = r.Date.AppendText(b)
		b = append(b, ',')
		b = r.Hour.AppendFormat(b, time.RFC3339)
		b = append(b, ',')
	}
	// Text cells are defused as the CLI defuses them.
	b = append(reportcsv.AppendCell(b, r.CampaignID), ',')
	b = append(reportcsv.AppendCell(b, r.CampaignName), ',')
	if q.Level != LevelCampaign {
		b = append(reportcsv.AppendCell(b, r.AdGroupID), ',')
		b = append(reportcsv.AppendCell(b, r.AdGroupName), ',')
	}
	if q.Level == LevelKeyword {
		b = append(reportcsv.AppendCell(b, r.KeywordID), ',')
		b = append(reportcsv.AppendCell(b, r.KeywordText), ',')
		b = append(reportcsv.AppendCell(b, string(r.MatchType)), ',')
	}
	b = append(reportcsv.AppendCell(b, r.Status), ',')
	b = append(strconv.AppendBool(b, r.Deleted), ',')
	m := r.ReportMetrics
	b = append(strconv.AppendInt(b, m.Impressions, 10), ',')
	b = append(strconv.AppendInt(b, m.Clicks, 10), ',')
	b = append(m.Cost.AppendText(b), ',')
	b = append(strconv.AppendInt(b, m.Orders, 10), ',')
	b = m.Sales.AppendText(b)
	// The ratios, empty where the denominator is 0.
	b = m.appendRatios(b, csvRatios)
	return append(b, "\r\n"...)
}

// csvRatios writes the ratios as CSV cells, empty where the denominator
// is 0.
var csvRatios = &ratioStyle{prefix: [5]string{",", ",", ",", ",", ","}}

// PurgeReportJobs deletes the jobs whose file expired, and says how many.
func (s *Service) PurgeReportJobs(ctx context.Context) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.store.Write(ctx, func(tx store.Tx) error {
			var err error
			n, err = tx.PurgeReportJobs(ctx, s.Now(), reportJobPurgeBatch)
			return err
		})
		total += n
		if err != nil || n < reportJobPurgeBatch {
			return total, err
		}
	}
}
