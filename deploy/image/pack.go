package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// packCmd packs the one image of an OCI layout into a tarball.
func packCmd(args []string) error {
	fs := flag.NewFlagSet("pack", flag.ContinueOnError)
	dir := fs.String("layout", "", "the OCI layout ko wrote (--oci-layout-path)")
	tag := fs.String("tag", "", "the image's name and tag once loaded (adcamp:v1.2.3)")
	out := fs.String("o", "", "the tarball to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *tag == "" || *out == "" {
		return errors.New("pack needs -layout DIR -tag NAME:TAG -o FILE")
	}
	img, err := imageOf(*dir)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := pack(f, img, *tag); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// imageOf finds the image of the layout at dir: the one image of its
// index, or of an index in it (ko writes an index for each build).
func imageOf(dir string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	for {
		m, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		if len(m.Manifests) != 1 {
			return nil, fmt.Errorf("%s holds %d manifests, want the one image ko built", dir, len(m.Manifests))
		}
		d := m.Manifests[0]
		if !d.MediaType.IsIndex() {
			return idx.Image(d.Digest)
		}
		if idx, err = idx.ImageIndex(d.Digest); err != nil {
			return nil, err
		}
	}
}

// pack writes img as one tarball that is at once an OCI image layout
// (oci-layout, index.json, blobs/) and what docker save writes
// (manifest.json naming the same blobs): docker load, podman load and
// the OCI tools all read it, as they read what docker save writes since
// Docker 25.
func pack(w io.Writer, img v1.Image, tag string) error {
	tw := tar.NewWriter(w)
	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	configName, err := img.ConfigName()
	if err != nil {
		return err
	}
	if err := addFile(tw, "oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
	}
	index, err := json.Marshal(v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{{
		MediaType: types.OCIManifestSchema1, Digest: digest, Size: int64(len(manifest)),
		Annotations: map[string]string{
			"org.opencontainers.image.ref.name": tag[strings.LastIndex(tag, ":")+1:],
			"io.containerd.image.name":          tag,
		},
	}}})
	if err != nil {
		return err
	}
	if err := addFile(tw, "index.json", index); err != nil {
		return err
	}
	if err := addFile(tw, blobName(digest), manifest); err != nil {
		return err
	}
	if err := addFile(tw, blobName(configName), config); err != nil {
		return err
	}
	layerNames, err := addLayers(tw, img)
	if err != nil {
		return err
	}
	legacy, err := json.Marshal([]struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{{blobName(configName), []string{tag}, layerNames}})
	if err != nil {
		return err
	}
	if err := addFile(tw, "manifest.json", legacy); err != nil {
		return err
	}
	return tw.Close()
}

// addLayers writes the image's layers as blobs, compressed as they are in
// the registry, and returns their names.
func addLayers(tw *tar.Writer, img v1.Image) ([]string, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, err
		}
		size, err := l.Size()
		if err != nil {
			return nil, err
		}
		rc, err := l.Compressed()
		if err != nil {
			return nil, err
		}
		err = addReader(tw, blobName(d), size, rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		names = append(names, blobName(d))
	}
	return names, nil
}

func blobName(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

func addFile(tw *tar.Writer, name string, body []byte) error {
	return addReader(tw, name, int64(len(body)), strings.NewReader(string(body)))
}

func addReader(tw *tar.Writer, name string, size int64, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, ModTime: time.Unix(0, 0)}); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
}
