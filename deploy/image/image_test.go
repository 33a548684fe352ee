package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// staticBinary builds a small static Go program.
func staticBinary(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// image is the base with binary at the entrypoint, configured as ko
// configures it and then changed by edit.
func image(t *testing.T, binary []byte, edit func(*v1.Config)) v1.Image {
	t.Helper()
	base, err := baseImage("amd64", "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(entrypoint, "/"), Mode: 0o555, Size: int64(len(binary)), ModTime: time.Unix(0, 0)})
	tw.Write(binary)
	tw.Close()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigFile()
	cfg = cfg.DeepCopy()
	cfg.Config.Entrypoint = []string{entrypoint}
	cfg.Config.Labels = map[string]string{versionLabel: "v1.2.3"}
	if edit != nil {
		edit(&cfg.Config)
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func packed(t *testing.T, img v1.Image) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "image.tar")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pack(f, img, "adcamp:v1.2.3"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// TestPackAndCheck: a packed image that runs adcamp as a user other than
// root, from a static binary, with its version, passes the check; each
// way of falling short of that fails it with a message that says which.
func TestPackAndCheck(t *testing.T) {
	static := staticBinary(t)
	good := packed(t, image(t, static, nil))
	r, err := check(good, "v1.2.3", defaultMaxBytes)
	if err != nil {
		t.Fatalf("check(a good image) = %v", err)
	}
	if r.config.Config.User != "65532:65532" || r.config.Config.Env[0] != "ADCAMP_DATA_DIR=/var/lib/adcamp" {
		t.Errorf("the image's config = %+v; want user 65532 and the data directory", r.config.Config)
	}
	dynamic, err := os.ReadFile("/bin/true") // linked dynamically on the hosts this runs on
	if err != nil {
		t.Skip("no /bin/true to stand for a dynamic binary")
	}
	for _, tc := range []struct {
		name, path, version string
		max                 int64
		want                string
	}{
		{"run as root", packed(t, image(t, static, func(c *v1.Config) { c.User = "0" })), "", defaultMaxBytes, "root"},
		{"run as no one in particular", packed(t, image(t, static, func(c *v1.Config) { c.User = "" })), "", defaultMaxBytes, "root"},
		{"another entrypoint", packed(t, image(t, static, func(c *v1.Config) { c.Entrypoint = []string{"/bin/sh"} })), "", defaultMaxBytes, "entrypoint"},
		{"another version", good, "v9", defaultMaxBytes, "v9"},
		{"too big", good, "", 1000, "more than 1000"},
		{"a dynamic binary", packed(t, image(t, dynamic, nil)), "", defaultMaxBytes, "dynamically"},
	} {
		if _, err := check(tc.path, tc.version, tc.max); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check(%s) = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestBaseLayer: the base holds the image's user, owning the data
// directory, and a /tmp anyone may write.
func TestBaseLayer(t *testing.T) {
	files, err := baseFiles("")
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(files))
	seen := map[string]*tar.Header{}
	var passwd []byte
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[h.Name] = h
		if h.Name == "etc/passwd" {
			passwd, _ = io.ReadAll(tr)
		}
	}
	if !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
		t.Errorf("etc/passwd = %q, want the user nonroot, 65532", passwd)
	}
	if h := seen["var/lib/adcamp/"]; h == nil || h.Uid != uid || h.Mode != 0o700 {
		t.Errorf("var/lib/adcamp/ = %+v, want a 0700 directory of uid %d", h, uid)
	}
	if h := seen["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("tmp/ = %+v, want mode 1777", h)
	}
}
