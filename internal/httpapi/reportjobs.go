package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/service"
)

// Report jobs (docs/report-jobs.md): a report of any size written to a
// file in the background, then downloaded through a signed request.

// reportJobFields are the body's fields of POST /report-jobs: the
// report's parameters and the file's format.
var reportJobFields = []string{"level", "granularity", "from", "to", "campaign_id", "ad_group_id", "status", "sort", "format"}

// downloadWriteTimeout is how long a download may take to send: the
// server's usual 30 s is for answers that fit in memory.
const downloadWriteTimeout = 30 * time.Minute

func (s *Server) createReportJob(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	obj, err := decodeBody(r, c.body)
	if err != nil {
		return err
	}
	vals := map[string]string{}
	for _, m := range obj.members {
		if !contains(reportJobFields, m.name) {
			obj.unknown(m.name)
			continue
		}
		var v adcamp.Optional[string]
		obj.str(m.name, m.value, &v)
		vals[m.name] = v.Value
	}
	if err := obj.err(); err != nil {
		return err
	}
	issues := obj.fields
	q := service.ReportQuery{Level: vals["level"], Granularity: vals["granularity"], CampaignID: vals["campaign_id"],
		AdGroupID: vals["ad_group_id"], Status: vals["status"], Sort: vals["sort"]}
	if vals["level"] == "" {
		issues.AddKind("level", adcamp.IssueRequired, "", "is required: campaign, ad_group or keyword")
	}
	if vals["format"] == "" {
		issues.AddKind("format", adcamp.IssueRequired, "", "is required: jsonl.gz or csv.gz")
	}
	for _, d := range []struct {
		name string
		dst  *adcamp.Date
	}{{"from", &q.From}, {"to", &q.To}} {
		if vals[d.name] == "" {
			continue // the service says it is required
		}
		v, err := adcamp.ParseDate(vals[d.name])
		if err != nil {
			issues.AddKind(d.name, adcamp.IssueNotDate, "", "must be a date written YYYY-MM-DD")
			continue
		}
		*d.dst = v
	}
	if err := issues.Err(); err != nil {
		return err
	}
	j, err := s.svc.CreateReportJob(r.Context(), c.tenant, q, vals["format"])
	if err != nil {
		return err
	}
	w.Header().Set("Location", signing.PrefixCanonical+"/report-jobs/"+j.ID)
	writeData(w, http.StatusAccepted, service.ReportJobJSON(j))
	return nil
}

func (s *Server) listReportJobs(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	list, err := s.svc.ReportJobs(r.Context(), c.tenant)
	if err != nil {
		return err
	}
	items := make([]service.ReportJobView, len(list))
	for i, j := range list {
		items[i] = service.ReportJobJSON(j)
	}
	writeData(w, http.StatusOK, struct {
		Items []service.ReportJobView `json:"items"`
	}{items})
	return nil
}

func (s *Server) getReportJob(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	j, err := s.svc.GetReportJob(r.Context(), c.tenant, r.PathValue("job_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, service.ReportJobJSON(j))
	return nil
}

// downloadReportJob streams a done job's file as it is stored: gzip, as
// application/gzip (not Content-Encoding: the file is the resource).
func (s *Server) downloadReportJob(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := parseQuery(r).issues.Err(); err != nil {
		return err
	}
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(downloadWriteTimeout))
	started := false
	err := s.svc.DownloadReportJob(r.Context(), c.tenant, r.PathValue("job_id"), func(j *service.ReportJob) error {
		h := w.Header()
		h.Set("Content-Type", "application/gzip")
		h.Set("Content-Length", strconv.FormatInt(j.Size, 10))
		h.Set("Content-Disposition", `attachment; filename="report-`+j.ID+"."+j.Format+`"`)
		h.Set("Cache-Control", "no-store")
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return errHeadDone
		}
		w.WriteHeader(http.StatusOK)
		started = true
		return nil
	}, w)
	if err == errHeadDone {
		return nil
	}
	if err != nil && started {
		// The status is sent: cut the connection so that the client sees
		// a short body, not a whole file.
		panic(http.ErrAbortHandler)
	}
	return err
}

// errHeadDone ends a HEAD's download after its headers.
var errHeadDone = adcamp.Errorf(adcamp.CodeInternal, "head done")
