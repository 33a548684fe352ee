package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// lookupOf is an environment of exactly vars.
func lookupOf(vars map[string]string) env {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// TestSystemdUnit: the unit's settings are ones serve accepts, and it
// keeps the hardening it promises.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../deploy/adcamp.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	settings := map[string]bool{}
	var stop time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		settings[key+"="+value] = true
		switch key {
		case "Environment":
			name, v, _ := strings.Cut(value, "=")
			vars[name] = v
		case "TimeoutStopSec":
			stop, _ = time.ParseDuration(value)
		}
	}
	cfg, err := (&cli{lookup: lookupOf(vars)}).serveFlags(nil)
	if err != nil {
		t.Fatalf("serve with the unit's environment: %v", err)
	}
	if cfg.ops.backupDir == "" || cfg.store.dataDir != "/var/lib/adcamp" || stop <= cfg.ops.shutdownTimeout {
		t.Errorf("the unit: backups in %q, data in %q, stop timeout %v for a shutdown timeout of %v; "+
			"want backups, /var/lib/adcamp, and time to drain", cfg.ops.backupDir, cfg.store.dataDir, stop, cfg.ops.shutdownTimeout)
	}
	for _, want := range []string{"NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "User=adcamp",
		"ProtectHome=yes", "CapabilityBoundingSet=", "StateDirectory=adcamp adcamp-backups", "MemoryDenyWriteExecute=yes"} {
		if !settings[want] {
			t.Errorf("the unit lacks %s", want)
		}
	}
}

// TestComposeFile: deploy/compose.yaml runs two serve processes on one
// PostgreSQL, with settings serve accepts, on host ports of their own,
// the metrics only on loopback, and time to drain before they are killed.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Command     []string
			Environment map[string]string
			Ports       []string
			StopGrace   string                                `json:"stop_grace_period"`
			DependsOn   map[string]struct{ Condition string } `json:"depends_on"`
		}
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatal(err)
	}
	if _, ok := compose.Services["postgres"]; !ok {
		t.Fatal("no postgres service")
	}
	hostPorts := map[string]string{}
	var url string
	for _, name := range []string{"adcamp-1", "adcamp-2"} {
		s, ok := compose.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		vars := map[string]string{}
		for k, v := range s.Environment {
			vars[k] = os.Expand(v, func(string) string { return "x" })
		}
		cfg, err := (&cli{lookup: lookupOf(vars)}).serveFlags(s.Command[1:])
		if err != nil || s.Command[0] != "serve" {
			t.Fatalf("%s: %v %v: %v", name, s.Command, s.Environment, err)
		}
		if url != "" && cfg.store.databaseURL != url || cfg.store.databaseURL == "" {
			t.Errorf("%s: database %q, want the one of both (%q)", name, cfg.store.databaseURL, url)
		}
		url = cfg.store.databaseURL
		if grace, _ := time.ParseDuration(s.StopGrace); grace <= cfg.ops.shutdownTimeout {
			t.Errorf("%s: stop_grace_period %q is not longer than --shutdown-timeout %v", name, s.StopGrace, cfg.ops.shutdownTimeout)
		}
		if s.DependsOn["postgres"].Condition != "service_healthy" {
			t.Errorf("%s does not wait for PostgreSQL to be healthy", name)
		}
		for _, p := range s.Ports {
			host, container, _ := strings.Cut(strings.TrimPrefix(p, "127.0.0.1:"), ":")
			if other, taken := hostPorts[host]; taken {
				t.Errorf("%s and %s both publish host port %s", other, name, host)
			}
			hostPorts[host] = name
			if container == "9090" && !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes the metrics listener beyond loopback: %s", name, p)
			}
		}
	}
}
