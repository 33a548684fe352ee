package apicmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/adcamp/adcamp/client"
)

// Report jobs (docs/report-jobs.md): reports job create waits for the
// job with a progress line on stderr and writes its file; get, download
// and jobs (the list) do one call each.

var reportJobView = view[client.ReportJob]{
	noun: "report job", plural: "report jobs",
	header: []string{"ID", "STATUS", "FORMAT", "LEVEL", "GRANULARITY", "FROM", "TO", "ROWS", "BYTES", "CREATED"},
	row: func(j client.ReportJob) []string {
		return []string{j.ID, j.Status, j.Format, j.Level, j.Granularity, j.From, j.To,
			strconv.FormatInt(j.RowCount, 10), strconv.FormatInt(j.SizeBytes, 10), timeCell(j.CreatedAt)}
	},
	fields: func(j client.ReportJob) [][2]string {
		opt := func(s *string) string {
			if s == nil {
				return "-"
			}
			return *s
		}
		tm := func(t *time.Time) string {
			if t == nil {
				return "-"
			}
			return timeCell(*t)
		}
		f := [][2]string{
			{"ID", j.ID}, {"Status", j.Status}, {"Format", j.Format}, {"Level", j.Level}, {"Granularity", j.Granularity},
			{"From", j.From}, {"To", j.To}, {"Campaign", opt(j.CampaignID)}, {"Ad group", opt(j.AdGroupID)},
			{"Status filter", opt(j.StatusFilter)}, {"Sort", opt(j.Sort)},
			{"Rows", strconv.FormatInt(j.RowCount, 10)}, {"Bytes", strconv.FormatInt(j.SizeBytes, 10)},
		}
		if j.Error != nil {
			f = append(f, [2]string{"Error", oneLine.Replace(*j.Error)})
		}
		return append(f, [2]string{"Created", timeCell(j.CreatedAt)}, [2]string{"Started", tm(j.StartedAt)},
			[2]string{"Finished", tm(j.FinishedAt)}, [2]string{"Expires", tm(j.ExpiresAt)})
	},
}

// reportsJob runs "reports job create|get|download".
func (c *cli) reportsJob(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError("reports job needs a subcommand: create, get or download")
	}
	switch args[0] {
	case "create":
		return c.reportsJobCreate(ctx, args[1:])
	case "get":
		return c.reportsJobGet(ctx, args[1:])
	case "download":
		return c.reportsJobDownload(ctx, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(c.stdout, "Usage of adcamp reports job:\n  adcamp reports job create [the filters of reports performance] [--format csv.gz|jsonl.gz] [--out FILE] [--force] [--wait=false]\n"+
			"  adcamp reports job get ID\n  adcamp reports job download ID [--out FILE] [--force]\n\nRun \"adcamp reports job SUBCOMMAND -h\" for the flags of one.\n")
		return flag.ErrHelp
	}
	return usageError("unknown command %q; reports job takes create, get or download", "reports job "+args[0])
}

// reportsJobCreate runs "reports job create": the job, then (unless
// --wait=false) the wait and its file.
func (c *cli) reportsJobCreate(ctx context.Context, args []string) error {
	a := c.apiCommand("reports job create")
	query := reportFlags(a)
	format := a.fs.String("format", "csv.gz", "the file's `FORMAT`: csv.gz or jsonl.gz")
	out := outFlags(a)
	wait := a.fs.Bool("wait", true, "wait for the job and write its file; --wait=false prints the job at once")
	if err := a.parse(args); err != nil {
		return err
	}
	o, err := query()
	if err != nil {
		return err
	}
	if *format != "csv.gz" && *format != "jsonl.gz" {
		return usageError("--format must be csv.gz or jsonl.gz, got %q", *format)
	}
	if !*wait && a.anyGiven("out", "force") {
		return usageError("--out and --force write the file, which --wait=false does not wait for; use reports job download ID --out FILE")
	}
	if *wait {
		if err := out.check(""); err != nil {
			return err
		}
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	in := client.ReportJobCreate{Level: o.Level, Granularity: o.Granularity, CampaignID: o.CampaignID, AdGroupID: o.AdGroupID,
		Status: o.Status, Sort: o.Sort, Format: *format}
	if !o.From.IsZero() {
		in.From = o.From.String()
	}
	if !o.To.IsZero() {
		in.To = o.To.String()
	}
	defer c.settle(ctx)
	j, err := cl.CreateReportJob(ctx, in)
	if err != nil {
		return apiError(err)
	}
	if !*wait {
		if err := showOne(a, reportJobView, *j, false); err != nil {
			return err
		}
		return a.printf("\nWait for it and write its file: adcamp reports job download %s --out FILE (once done)\n", j.ID)
	}
	id := j.ID
	p := newProgress(c.stderr, id, time.Now)
	j, err = cl.WaitReportJob(ctx, id, &client.WaitOptions{Interval: 500 * time.Millisecond, MaxInterval: 5 * time.Second, Progress: p.show})
	p.end()
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("stopped waiting; the report job goes on: once done, adcamp reports job download %s --out FILE", id)
	}
	if err != nil {
		return apiError(err)
	}
	return c.finishDownload(ctx, a, cl, j, out)
}

// reportsJobGet runs "reports job get ID".
func (c *cli) reportsJobGet(ctx context.Context, args []string) error {
	a := c.apiCommand("reports job get")
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	j, err := cl.GetReportJob(ctx, a.args[0])
	if err != nil {
		return apiError(err)
	}
	return showOne(a, reportJobView, *j, false)
}

// reportsJobDownload runs "reports job download ID": the file of a done
// job.
func (c *cli) reportsJobDownload(ctx context.Context, args []string) error {
	a := c.apiCommand("reports job download")
	out := outFlags(a)
	if err := a.parse(args, "ID"); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	j, err := cl.GetReportJob(ctx, a.args[0])
	if err != nil {
		return apiError(err)
	}
	if j.Status == "pending" || j.Status == "running" {
		return fmt.Errorf("report job %s is %s: its file is not written yet; wait for it and try again", j.ID, j.Status)
	}
	return c.finishDownload(ctx, a, cl, j, out)
}

// reportsJobs runs "reports jobs": the environment's jobs, newest first.
func (c *cli) reportsJobs(ctx context.Context, args []string) error {
	a := c.apiCommand("reports jobs")
	if err := a.parse(args); err != nil {
		return err
	}
	cl, err := a.client()
	if err != nil {
		return err
	}
	list, err := cl.ListReportJobs(ctx)
	if err != nil {
		return apiError(err)
	}
	if a.json {
		return a.printJSON(struct {
			Items []client.ReportJob `json:"items"`
		}{list})
	}
	if len(list) == 0 {
		return a.printf("No report jobs.\n")
	}
	return showList(a, reportJobView, list, reportJobView.count(int64(len(list)))+", newest first.")
}

// finishDownload writes the file of the finished job j (a failed job is
// an error) and says where.
func (c *cli) finishDownload(ctx context.Context, a *apiCommand, cl *client.Client, j *client.ReportJob, out *outFile) error {
	if j.Status == "failed" {
		msg := "no reason given"
		if j.Error != nil {
			msg = oneLine.Replace(*j.Error)
		}
		return fmt.Errorf("report job %s failed: %s", j.ID, msg)
	}
	path, err := out.write(ctx, cl, j)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(j)
	}
	return a.printf("Wrote %s: %s, %s (%s).\n", path, plural(j.RowCount, "row", "rows"),
		plural(j.SizeBytes, "byte", "bytes"), j.Format)
}

// outFile is where a job's file goes: --out and --force.
type outFile struct {
	path  string
	force bool
}

func outFlags(a *apiCommand) *outFile {
	var o outFile
	a.fs.StringVar(&o.path, "out", "", "write the file to `FILE` (default: report-ID.FORMAT, the name the server gives, here)")
	a.fs.BoolVar(&o.force, "force", false, "replace FILE if it exists")
	return &o
}

// check refuses a file that exists (unless --force), or in no directory,
// before any wait.
func (o *outFile) check(path string) error {
	if path == "" {
		path = o.path
	}
	if path == "" {
		return nil
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return usageError("--out %s: no directory %s to write it in", path, filepath.Dir(path))
	}
	if o.force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return usageError("%s exists; choose another --out, or replace it with --force", path)
	}
	return nil
}

// write downloads j's file to a temporary file beside the destination,
// mode 0600, and renames it there once whole: an interrupted download
// leaves no partial file under the name. Without --force an existing
// file is never replaced, even one that appeared during the download.
func (o *outFile) write(ctx context.Context, cl *client.Client, j *client.ReportJob) (string, error) {
	path := o.path
	if path == "" {
		path = "report-" + j.ID + "." + j.Format
	}
	if err := o.check(path); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".adcamp-report-*.part")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	n, err := cl.DownloadReportJob(ctx, j.ID, tmp)
	if err == nil && n != j.SizeBytes {
		err = fmt.Errorf("report job %s: got %d bytes, the job has %d", j.ID, n, j.SizeBytes)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", apiError(err)
	}
	if o.force {
		return path, os.Rename(tmp.Name(), path)
	}
	// A link fails if path exists, where a rename would replace it.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s appeared during the download; not replaced (use --force); the file was not kept", path)
		}
		// No hard links here (some file systems): a rename, after a
		// last look.
		if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
			return "", err
		}
		return path, os.Rename(tmp.Name(), path)
	}
	return path, nil
}

// progress shows a job's wait on one line of stderr: rewritten in place
// on a terminal, a line per change of status otherwise (a log, a pipe).
type progress struct {
	w     io.Writer
	tty   bool
	id    string
	now   func() time.Time
	began time.Time
	last  string // the last status shown
	shown bool   // a line is on the terminal, unfinished
}

func newProgress(w io.Writer, id string, now func() time.Time) *progress {
	return &progress{w: w, tty: isTerminal(w), id: id, now: now, began: now()}
}

// show is the WaitReportJob callback.
func (p *progress) show(j *client.ReportJob) {
	line := fmt.Sprintf("report job %s: %s", p.id, j.Status)
	if j.RowCount > 0 {
		line += ", " + plural(j.RowCount, "row", "rows")
	}
	line += fmt.Sprintf(", %ds", int(p.now().Sub(p.began).Seconds()))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
		return
	}
	if j.Status != p.last {
		fmt.Fprintln(p.w, line)
	}
	p.last = j.Status
}

// end ends the terminal's line.
func (p *progress) end() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
