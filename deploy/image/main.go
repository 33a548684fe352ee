// Command imagetool makes, packs and checks adcamp's container image,
// without a Docker daemon or a registry (build.sh runs it around ko):
//
//	imagetool base -layout DIR [-arch amd64] [-ca-certs FILE]
//	    writes the base image into the OCI layout DIR (ko's cache,
//	    $KOCACHE/img) and prints its reference by digest, for
//	    KO_DEFAULTBASEIMAGE
//	imagetool pack -layout DIR -tag NAME:TAG -o FILE
//	    packs the image ko wrote into the OCI layout DIR into one tarball
//	    that docker load and podman load both read
//	imagetool check [-version V] [-max-bytes N] FILE
//	    reads the tarball's configuration and fails unless the image is
//	    small, runs as a user other than root, starts adcamp, carries
//	    version V in its labels, and holds a static binary
//
// This is a module of its own, so that the server's go.mod carries none
// of the image's tooling (ko is pinned here as a tool).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: imagetool base|pack|check [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "base":
		err = baseCmd(os.Args[2:])
	case "pack":
		err = packCmd(os.Args[2:])
	case "check":
		err = checkCmd(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "imagetool: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "imagetool:", err)
		os.Exit(1)
	}
}
