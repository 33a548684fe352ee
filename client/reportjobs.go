package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"time"
)

// ReportJobCreate is a report job's parameters: those of the performance
// report (no limit or cursor) and the file's Format, "jsonl.gz" or
// "csv.gz" (docs/report-jobs.md).
type ReportJobCreate struct {
	Level       string `json:"level"`
	Granularity string `json:"granularity,omitempty"`
	From        string `json:"from"`
	To          string `json:"to"`
	CampaignID  string `json:"campaign_id,omitempty"`
	AdGroupID   string `json:"ad_group_id,omitempty"`
	Status      string `json:"status,omitempty"`
	Sort        string `json:"sort,omitempty"`
	Format      string `json:"format"`
}

// ReportJob is a report job and its state.
type ReportJob struct {
	ID           string     `json:"id"`
	Status       string     `json:"status"` // pending, running, done, failed
	Format       string     `json:"format"`
	Level        string     `json:"level"`
	Granularity  string     `json:"granularity"`
	From         string     `json:"from"`
	To           string     `json:"to"`
	CampaignID   *string    `json:"campaign_id"`
	AdGroupID    *string    `json:"ad_group_id"`
	StatusFilter *string    `json:"status_filter"`
	Sort         *string    `json:"sort"`
	RowCount     int64      `json:"row_count"`
	SizeBytes    int64      `json:"size_bytes"`
	Error        *string    `json:"error"`
	CreatedAt    time.Time  `json:"created_at"`
	StartedAt    *time.Time `json:"started_at"`
	FinishedAt   *time.Time `json:"finished_at"`
	ExpiresAt    *time.Time `json:"expires_at"`
}

// Finished reports whether the job is done or failed.
func (j *ReportJob) Finished() bool { return j.Status == "done" || j.Status == "failed" }

// CreateReportJob queues a report job.
func (c *Client) CreateReportJob(ctx context.Context, in ReportJobCreate) (*ReportJob, error) {
	return call[ReportJob](ctx, c, op{method: http.MethodPost, path: "report-jobs", body: in})
}

// ListReportJobs returns the environment's report jobs, newest first (the
// newest 100; jobs are kept 7 days after they end).
func (c *Client) ListReportJobs(ctx context.Context) ([]ReportJob, error) {
	p, err := call[struct {
		Items []ReportJob `json:"items"`
	}](ctx, c, op{method: http.MethodGet, path: "report-jobs"})
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// GetReportJob returns a report job.
func (c *Client) GetReportJob(ctx context.Context, id string) (*ReportJob, error) {
	return call[ReportJob](ctx, c, op{method: http.MethodGet, path: "report-jobs/" + url.PathEscape(id)})
}

// WaitReportJob polls a job every interval (2 s if zero) until it is done
// or failed, calling progress (if not nil) with each state read.
func (c *Client) WaitReportJob(ctx context.Context, id string, interval time.Duration, progress func(*ReportJob)) (*ReportJob, error) {
	if interval <= 0 {
		interval = 2 * time.Second
	}
	for {
		j, err := c.GetReportJob(ctx, id)
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(j)
		}
		if j.Finished() {
			return j, nil
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return j, ctx.Err()
		case <-t.C:
		}
	}
}

// DownloadReportJob writes the gzipped file of a done job to w, and
// returns its size.
func (c *Client) DownloadReportJob(ctx context.Context, id string, w io.Writer) (int64, error) {
	req, err := c.NewRequest(http.MethodGet, "report-jobs/"+url.PathEscape(id)+"/download", nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(ctx, req, nil)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(resp.raw)
	return int64(n), err
}
