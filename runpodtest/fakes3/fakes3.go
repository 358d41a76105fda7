// Package fakes3 serves the S3-compatible API of the network volumes of a
// runpodtest server, built on gofakes3, with the platform's documented
// rules (see the notes in s3.go): one host per data center that has one,
// by name for the fake's clients (the server's S3URL) and by address for
// aws, s3cmd, rclone and clients of your own (Endpoint), path-style or
// virtual-hosted, the volume id as bucket and the file's path as key,
// SigV4 with the server's S3 API key (S3AccessKey, S3SecretKey) and the
// data center as region, the supported operations (501 for the rest),
// and the platform's known faults (Fail). A server started without Serve
// answers every S3 request 501, so a test that does not use the S3 API
// does not link an S3 server.
//
//	srv := runpodtest.NewServer(fakes3.Serve())
//	defer srv.Close()
//	rp, err := srv.NewClient() // volumes/files reaches srv's S3 API
//
// The files are the volumes' files the server keeps on disk
// (runpodtest.WithS3Storage): what WriteVolumeFile seeds, S3 lists, and
// what S3 uploads, VolumeFile reads.
package fakes3

import (
	"net/http"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/seam"
)

// server is the S3 side of one runpodtest server.
type server struct {
	c  *seam.S3
	s3 s3Unit
}

// Serve returns the runpodtest option that serves the S3 API of the
// server's network volumes at its S3URL, and at the addresses Endpoint
// opens.
func Serve() runpodtest.Option {
	return func(srv *runpodtest.Server) {
		c := seam.Of(srv)
		if c == nil {
			panic("fakes3: the server was not made by runpodtest.NewServer")
		}
		if c.S3.State != nil {
			return
		}
		s := &server{c: &c.S3, s3: newS3Unit()}
		s.s3.dir = c.S3.Dir
		c.S3.State = s
		c.S3.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveS3At("", w, r) })
		c.S3.Wrote = func(vol, key string) { s.s3.forget(objectKey{vol, key}) }
		c.S3.VolumeGone = s.removeVolumeFiles
		c.S3.Close = s.closeS3Hosts
	}
}

// of returns srv's S3 side; it panics when srv was started without Serve.
func of(srv *runpodtest.Server) *server {
	c := seam.Of(srv)
	if c == nil {
		panic("fakes3: the server was not made by runpodtest.NewServer")
	}
	s, ok := c.S3.State.(*server)
	if !ok {
		panic("fakes3: the server serves no S3 API: start it with runpodtest.NewServer(fakes3.Serve())")
	}
	return s
}
