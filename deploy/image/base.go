package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: not root, and the same number as the
// "nonroot" user of the distroless images, which operators know.
const (
	uid, gid = 65532, 65532
	userName = "nonroot"
	dataDir  = "/var/lib/adcamp"
)

// baseRepository names the base image for ko; nothing is ever pulled
// from it: ko finds the image by its digest in its cache (see baseCmd).
const baseRepository = "adcamp.invalid/base"

// baseCmd writes the base image into an OCI layout and prints its
// reference by digest. ko needs a base image and has no way to start
// from nothing, but it looks a base referenced by digest up in
// $KOCACHE/img before it goes to a registry: written there, the base
// never has to be pulled, and ko builds with no registry at all.
func baseCmd(args []string) error {
	fs := flag.NewFlagSet("base", flag.ContinueOnError)
	dir := fs.String("layout", "", "the OCI layout to write the base into ($KOCACHE/img)")
	arch := fs.String("arch", "amd64", "the architecture of the images to build (GOARCH)")
	caCerts := fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificates bundle to include; empty for none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("base needs -layout DIR")
	}
	img, err := baseImage(*arch, *caCerts)
	if err != nil {
		return err
	}
	p, err := layout.FromPath(*dir)
	if err != nil {
		if p, err = layout.Write(*dir, empty.Index); err != nil {
			return err
		}
	}
	if err := p.AppendImage(img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Println(baseRepository + "@" + digest.String())
	return nil
}

// baseImage is the image adcamp is built on: one layer with a user and
// group for it, a data directory it owns, /tmp, and the CA certificates
// (for outgoing TLS); nothing else, no shell. Its configuration runs as
// that user, with the data directory as a volume and the listeners on
// every interface of the container.
func baseImage(arch, caCerts string) (v1.Image, error) {
	files, err := baseFiles(caCerts)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		CreatedBy: "deploy/image: imagetool base", Comment: "a user, its data directory, /tmp and CA certificates",
	}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Config.User = fmt.Sprintf("%d:%d", uid, gid)
	cfg.Config.WorkingDir = dataDir
	cfg.Config.Volumes = map[string]struct{}{dataDir: {}}
	cfg.Config.ExposedPorts = map[string]struct{}{"8080/tcp": {}, "8081/tcp": {}, "8082/tcp": {}, "8083/tcp": {}, "9090/tcp": {}}
	cfg.Config.Env = []string{
		"ADCAMP_DATA_DIR=" + dataDir,
		// In a container, loopback is the container's own: listen on
		// every interface, and let the port mapping decide who reaches it.
		"ADCAMP_PRODUCTION_ADDR=:8080", "ADCAMP_SANDBOX_ADDR=:8081",
		"ADCAMP_CONSOLE_ADDR=:8082", "ADCAMP_OPERATOR_ADDR=:8083", "ADCAMP_METRICS_ADDR=:9090",
	}
	return mutate.ConfigFile(img, cfg)
}

// baseFiles is the base layer's tar: fixed times and owners, so that the
// same inputs always make the same image.
func baseFiles(caCerts string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner, ModTime: epoch})
	}
	file := func(name string, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: epoch}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:adcamp:%s:/sbin/nologin\n", userName, uid, gid, dataDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, gid)
	steps := []func() error{
		func() error { return dir("etc/", 0o755, 0) },
		func() error { return file("etc/passwd", []byte(passwd)) },
		func() error { return file("etc/group", []byte(group)) },
		func() error { return dir("tmp/", 0o1777, 0) },
		func() error { return dir("var/", 0o755, 0) },
		func() error { return dir("var/lib/", 0o755, 0) },
		func() error { return dir("var/lib/adcamp/", 0o700, uid) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if caCerts != "" {
		pem, err := os.ReadFile(caCerts)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no CA certificates to include (install ca-certificates, or pass -ca-certs \"\")", caCerts)
		}
		if err != nil {
			return nil, err
		}
		for _, d := range []string{"etc/ssl/", "etc/ssl/certs/"} {
			if err := dir(d, 0o755, 0); err != nil {
				return nil, err
			}
		}
		if err := file("etc/ssl/certs/ca-certificates.crt", pem); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
