package console_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestAccountSettingsPage: an owner sees and changes the account's time
// zone; a bad name is the field's error.
func TestAccountSettingsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	settings := "/accounts/" + acc + "/settings"
	c.get(settings).wantStatus(200).wantText("h1", "Account settings").wantText(".facts", "UTC")
	c.post(settings, url.Values{"time_zone": {"Mars/Olympus"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("time_zone", "IANA")
	c.post(settings, url.Values{"time_zone": {"Asia/Seoul"}}).wantStatus(200).wantText(".facts", "Asia/Seoul")
}
