package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/adcamp/adcamp"
)

// ReadyCheck says whether the process should be sent requests: nil if so,
// else why not (the metrics listener's /readyz answers 503 with it).
type ReadyCheck func(ctx context.Context) error

// readyTimeout bounds the checks of one /readyz: an orchestrator waits a
// few seconds at most, and a check that hangs is a no.
const readyTimeout = 3 * time.Second

// livez answers 200 while the process serves: it checks nothing else, so
// that an orchestrator restarts a process only when it has stopped
// answering, never because its database is away (a restart would not
// bring that back).
func livez(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, map[string]string{"status": "live"})
}

// readyz answers 200 when every check passes, else 503
// SERVICE_UNAVAILABLE with the first failure's message.
func readyz(checks []ReadyCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		for _, check := range checks {
			if err := check(ctx); err != nil {
				msg := "not ready"
				if e := (*adcamp.Error)(nil); errors.As(err, &e) {
					msg = e.Message
				}
				writeJSON(w, http.StatusServiceUnavailable, struct {
					Success bool      `json:"success"`
					Error   errorBody `json:"error"`
				}{false, errorBody{Code: adcamp.CodeUnavailable, Message: msg, RequestID: requestID(w)}})
				return
			}
		}
		writeData(w, http.StatusOK, map[string]string{"status": "ready"})
	})
}
