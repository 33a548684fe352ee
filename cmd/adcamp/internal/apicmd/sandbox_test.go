package apicmd

import "testing"

func TestAPISandbox(t *testing.T) {
	s := newAPISandbox(t)
	out := s.ok("sandbox", "sample-data")
	wantContains(t, "sandbox sample-data", out, "Created 4 campaigns", "ad groups", "keywords")
	var got struct {
		Deleted struct {
			Campaigns, AdGroups, Keywords int64
		} `json:"deleted"`
	}
	s.okJSON(&got, "sandbox", "reset")
	if got.Deleted.Campaigns != 4 || got.Deleted.Keywords < 200 {
		t.Errorf("sandbox reset --json = %+v, want what sample-data made", got)
	}
	out = s.ok("sandbox", "reset")
	wantContains(t, "sandbox reset of an empty sandbox", out, "Deleted 0 campaigns")
	s.fail(2, "sandbox", "reset", "extra")
}
