package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// What the image must be.
const (
	defaultMaxBytes = 30_000_000 // 30 MB, the tarball whole
	entrypoint      = "/ko-app/adcamp"
	versionLabel    = "org.opencontainers.image.version"
)

// checkCmd checks an image tarball and prints what it found.
func checkCmd(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	version := fs.String("version", "", "the version the image's labels must carry (empty: any)")
	maxBytes := fs.Int64("max-bytes", defaultMaxBytes, "the most bytes the tarball may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("check needs the tarball: check [flags] FILE")
	}
	r, err := check(fs.Arg(0), *version, *maxBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	fmt.Printf("%s: %.1f MB (at most %.1f)\n  user        %s (not root)\n  entrypoint  %s\n  version     %s (%s)\n  binary      %s, statically linked, %.1f MB\n",
		fs.Arg(0), mb(r.size), mb(*maxBytes), r.config.Config.User, strings.Join(r.config.Config.Entrypoint, " "),
		r.config.Config.Labels[versionLabel], versionLabel, entrypoint, mb(r.binary))
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// report is what check found.
type report struct {
	size, binary int64
	config       *v1.ConfigFile
}

// check reads the tarball at path and fails unless the image it holds is
// what an adcamp image must be.
func check(path, version string, maxBytes int64) (*report, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxBytes {
		return nil, fmt.Errorf("the image takes %d bytes, more than %d", info.Size(), maxBytes)
	}
	files, err := readTar(path)
	if err != nil {
		return nil, err
	}
	cfg, layers, err := configOf(files)
	if err != nil {
		return nil, err
	}
	r := &report{size: info.Size(), config: cfg}
	if err := checkConfig(cfg, version); err != nil {
		return nil, err
	}
	if r.binary, err = checkBinary(files, layers); err != nil {
		return nil, err
	}
	return r, nil
}

// readTar reads every member of the tarball (it is small).
func readTar(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not a readable tarball: %w", err)
		}
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, err
			}
		}
	}
}

// configOf reads the image's configuration the way docker load does
// (manifest.json) and the way OCI tools do (index.json, then the
// manifest), and fails unless both find the same one.
func configOf(files map[string][]byte) (*v1.ConfigFile, []string, error) {
	var legacy []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &legacy); err != nil || len(legacy) != 1 {
		return nil, nil, fmt.Errorf("manifest.json does not name one image (%v)", err)
	}
	index, err := v1.ParseIndexManifest(bytes.NewReader(files["index.json"]))
	if err != nil || len(index.Manifests) != 1 {
		return nil, nil, fmt.Errorf("index.json does not name one image (%v)", err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(files[blobName(index.Manifests[0].Digest)]))
	if err != nil {
		return nil, nil, fmt.Errorf("the image's manifest: %w", err)
	}
	if blobName(m.Config.Digest) != legacy[0].Config {
		return nil, nil, fmt.Errorf("index.json leads to config %s, manifest.json to %s", blobName(m.Config.Digest), legacy[0].Config)
	}
	cfg, err := v1.ParseConfigFile(bytes.NewReader(files[legacy[0].Config]))
	if err != nil {
		return nil, nil, fmt.Errorf("the image's config: %w", err)
	}
	return cfg, legacy[0].Layers, nil
}

// checkConfig checks the user, the entrypoint and the version label.
func checkConfig(cfg *v1.ConfigFile, version string) error {
	user, _, _ := strings.Cut(cfg.Config.User, ":")
	if n, err := strconv.Atoi(user); user == "" || user == "root" || err == nil && n == 0 {
		return fmt.Errorf("the image runs as %q: root", cfg.Config.User)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{entrypoint}) {
		return fmt.Errorf("the image's entrypoint is %q, want [%s]", cfg.Config.Entrypoint, entrypoint)
	}
	got := cfg.Config.Labels[versionLabel]
	if got == "" || version != "" && got != version {
		return fmt.Errorf("the image's label %s is %q, want %q", versionLabel, got, version)
	}
	return nil
}

// checkBinary finds the entrypoint in the layers and checks that it is a
// static executable: no interpreter, no shared library to load (the
// image has none to give it). It returns its size.
func checkBinary(files map[string][]byte, layers []string) (int64, error) {
	var binary []byte
	for _, name := range layers {
		zr, err := gzip.NewReader(bytes.NewReader(files[name]))
		if err != nil {
			return 0, fmt.Errorf("layer %s: %w", name, err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, fmt.Errorf("layer %s: %w", name, err)
			}
			if "/"+strings.TrimPrefix(h.Name, "/") == entrypoint {
				if binary, err = io.ReadAll(tr); err != nil {
					return 0, err
				}
			}
		}
	}
	if binary == nil {
		return 0, fmt.Errorf("no %s in the image's layers", entrypoint)
	}
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		return 0, fmt.Errorf("%s is not an ELF executable: %w", entrypoint, err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return 0, fmt.Errorf("%s is linked dynamically (it names an interpreter)", entrypoint)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return 0, fmt.Errorf("%s needs shared libraries %v", entrypoint, libs)
	}
	return int64(len(binary)), nil
}
