package apicmd

import (
	"testing"

	"github.com/adcamp/adcamp/internal/service"
)

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

func TestAPISandboxSimulate(t *testing.T) {
	s := newAPISandbox(t)
	out := s.fail(1, "sandbox", "simulate", "--days", "2")
	wantContains(t, "sandbox simulate with the simulator off", out, "CONFLICT")
	s.svc.SetSimulator(service.SimulatorConfig{Enabled: true, Seed: 1, SampleDays: 2})
	s.fail(2, "sandbox", "simulate", "--days", "31")
	out = s.ok("sandbox", "simulate", "--days", "2")
	wantContains(t, "sandbox simulate --days 2", out, "Simulated delivery from", "0 keywords")
	var got struct {
		Simulated struct {
			Days     int
			Keywords int64
		} `json:"simulated"`
	}
	s.okJSON(&got, "sandbox", "simulate", "--days", "1")
	if got.Simulated.Days != 1 {
		t.Errorf("sandbox simulate --json = %+v, want 1 day", got)
	}
}
