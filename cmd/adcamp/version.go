package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit name the build when the linker sets them
// (go build -ldflags "-X main.version=v1.2.3 -X main.commit=$(git rev-parse HEAD)"),
// as the image's build does. Otherwise they come from what the Go
// toolchain stamped into the binary: the module's version for a
// go install of a tagged release, the commit for a build in a checkout.
var version, commit string

// buildInfo is what adcamp version prints and adcamp_build_info carries.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// readBuildInfo gathers the build's version, commit and toolchain.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if ok && b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	if ok && b.Commit == "" {
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if b.Commit != "" && modified {
			b.Commit += "-modified"
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// versionCmd runs adcamp version.
func (c *cli) versionCmd(args []string) error {
	fs := c.newFlags("version")
	asJSON := fs.Bool("json", false, "print the build's version, commit, Go version and platform as JSON")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("version takes no arguments")
	}
	b := readBuildInfo()
	if *asJSON {
		return json.NewEncoder(c.stdout).Encode(b)
	}
	_, err = fmt.Fprintf(c.stdout, "adcamp %s (commit %s, %s, %s)\n", b.Version, b.Commit, b.GoVersion, b.Platform)
	return err
}
