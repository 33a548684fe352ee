package client

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
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

// WaitOptions say how [Client.WaitReportJob] polls a job.
type WaitOptions struct {
	// Interval is the first wait between two reads of the job (1 s if
	// zero); each wait after it is half as long again, up to MaxInterval
	// (10 s if zero). A Retry-After header asks for longer waits.
	Interval, MaxInterval time.Duration
	// Progress, if not nil, is called with each state of the job read,
	// the last one done or failed.
	Progress func(*ReportJob)
}

// Defaults of WaitOptions.
const (
	defaultWaitInterval    = time.Second
	defaultMaxWaitInterval = 10 * time.Second
)

// WaitReportJob reads the job id until it is done or failed, and returns
// it: a failed job is no error (its Error says why). It waits between
// reads with a growing interval (see [WaitOptions]; opts may be nil), at
// least what an answer's Retry-After asks. An answer of 429 or 503 (once
// the client's retries gave up) does not end the wait: it is read again
// after its Retry-After. Another error ends it, as the end of ctx does,
// with the last state read (nil if none).
func (c *Client) WaitReportJob(ctx context.Context, id string, opts *WaitOptions) (*ReportJob, error) {
	o := WaitOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Interval <= 0 {
		o.Interval = defaultWaitInterval
	}
	if o.MaxInterval <= 0 {
		o.MaxInterval = defaultMaxWaitInterval
	}
	o.MaxInterval = max(o.MaxInterval, o.Interval)
	var last *ReportJob
	for wait := o.Interval; ; wait = min(wait+wait/2, o.MaxInterval) {
		j, after, err := c.pollReportJob(ctx, id)
		if err != nil {
			if !retryableStatus(statusOf(err)) {
				return last, err
			}
		} else {
			last = j
			if o.Progress != nil {
				o.Progress(j)
			}
			if j.Finished() {
				return j, nil
			}
		}
		if err := c.sleep(ctx, max(wait, after)); err != nil {
			return last, err
		}
	}
}

// pollReportJob reads a job, and the wait its answer asks for before the
// next read (its Retry-After, that of an error answer too).
func (c *Client) pollReportJob(ctx context.Context, id string) (*ReportJob, time.Duration, error) {
	req, err := c.NewRequest(http.MethodGet, "report-jobs/"+esc(id), nil)
	if err != nil {
		return nil, 0, err
	}
	var j ReportJob
	resp, err := c.Do(ctx, req, &j)
	if e := asError(err); e != nil {
		return nil, e.RetryAfter, err
	}
	if err != nil {
		return nil, 0, err
	}
	after, _ := retryAfter(resp.Header, c.clock())
	return &j, after, nil
}

// statusOf is the HTTP status of an API error, 0 for another error.
func statusOf(err error) int {
	if e := asError(err); e != nil {
		return e.StatusCode
	}
	return 0
}

// ReportJobFile is the file of a done report job, read from the server as
// it arrives: close it when done.
type ReportJobFile struct {
	io.ReadCloser // the gzipped file, as stored
	// Size is the file's length in bytes (its Content-Length).
	Size int64
	// Name is the file's name the server suggests:
	// "report-rpj_....csv.gz".
	Name string
}

// OpenReportJob starts the download of a done job's file (409 CONFLICT
// until the job is done) and returns it unread, for the caller to read
// as it arrives and close: a file of any size takes no more memory than
// a read's buffer. The client's timeout (see [WithTimeout]) bounds the
// wait for each part of the file, not the whole download. A request
// refused or lost before the file begins is retried as any GET is; a
// download cut short shows as an error of a read (io.ErrUnexpectedEOF).
func (c *Client) OpenReportJob(ctx context.Context, id string) (*ReportJobFile, error) {
	req, err := c.NewRequest(http.MethodGet, "report-jobs/"+esc(id)+"/download", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/gzip, application/json")
	resp, err := c.open(ctx, req)
	if err != nil {
		return nil, err
	}
	name := ""
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		name = path.Base(params["filename"])
	}
	return &ReportJobFile{ReadCloser: resp.Body, Size: resp.ContentLength, Name: name}, nil
}

// DownloadReportJob writes the gzipped file of a done job to w as it
// arrives ([Client.OpenReportJob]), and returns the bytes written. A
// download cut short is an error.
func (c *Client) DownloadReportJob(ctx context.Context, id string, w io.Writer) (int64, error) {
	f, err := c.OpenReportJob(ctx, id)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.Copy(w, f)
	if err != nil {
		return n, fmt.Errorf("client: downloading report job %s: %w", id, err)
	}
	if f.Size >= 0 && n != f.Size {
		return n, fmt.Errorf("client: downloading report job %s: got %d of %d bytes", id, n, f.Size)
	}
	return n, nil
}
