package fakes3

import (
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
)

// Where the S3 API of each data center is. The platform gives each data
// center that has the S3 API a host of its own,
// https://s3api-<dc>.runpod.io, whose region is the data center id. An S3
// client names the bucket (the volume id) in the path (path-style,
// /<volume id>/<key>) or in the host (virtual-hosted style,
// <volume id>.<host>/<key>); the platform's guide gives the endpoint and
// region only, not which of the two its API takes, so the fake takes
// both, and a tool's choice is not what fails a test. It serves the hosts
// twice:
//
//   - One loopback server for every data center, reached by name:
//     s3api-<dc>.localhost:<port> (S3URL, "http://s3api-{dc}.localhost:<port>"),
//     and <volume id>.s3api-<dc>.localhost:<port> for virtual-hosted
//     requests. The Host header picks the data center, as DNS does on the
//     platform. The clients of Client and NewClient reach these names
//     (their dialer sends every *.localhost name to the fake, as for
//     load-balancing endpoints), which is what the SDK uses; few
//     resolvers do.
//   - One loopback listener per data center, reached by address, for
//     programs that resolve names themselves (aws, s3cmd, rclone, a client
//     of your own): Endpoint(dc) opens it on first use and returns
//     "http://127.0.0.1:<port>" and the region. An address is not a name
//     a bucket can prefix, so the tools address it path-style; a request
//     that names s3api-<dc>.localhost, <volume id>.s3api-<dc>.localhost or
//     <volume id>.localhost in its Host (where a resolver knows *.localhost)
//     is served as on the first server.
//
// Either way a request is signed (SigV4) over the Host it sends and the
// path it sends, with no prefix of the fake's own, so a client that signs
// as it addresses is accepted: path-style /<volume id>/<key>, or
// virtual-hosted /<key> with the volume id in the Host.

// s3Route finds, from a request's Host, the data center it is for and, for
// a virtual-hosted request, its bucket. fixed is the data center of the
// listener the request came to (Endpoint's), "" on the server of every
// data center. named is the data center the host names, upper case, even
// one without the S3 API ("" when it names none); ok reports whether the
// request has an S3 endpoint to go to.
func s3Route(host, fixed string) (named, bucket string, ok bool) {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	rest, local := strings.CutSuffix(name, ".localhost")
	if local {
		label := rest
		if i := strings.LastIndexByte(rest, '.'); i >= 0 {
			bucket, label = rest[:i], rest[i+1:]
		}
		if seg, ok := strings.CutPrefix(label, volstore.HostPrefix); ok && seg != "" {
			named = strings.ToUpper(seg)
			return named, bucket, slices.Contains(volstore.DataCenters, named) && (fixed == "" || named == fixed)
		}
		if fixed != "" { // <bucket>.localhost on a data center's own address
			return fixed, rest, true
		}
		return "", "", false
	}
	// An address, localhost or any other name: a data center's own
	// listener serves it path-style; the server of every data center
	// cannot tell which data center is meant.
	return fixed, "", fixed != ""
}

// Endpoint returns what an S3 tool is given to reach the S3 API of data
// center dc ("EU-RO-1" or "eu-ro-1"), as the platform's S3 guide gives
// https://s3api-<dc>.runpod.io/ and the data center id: endpointURL, a
// loopback listener of that data center alone ("http://127.0.0.1:<port>",
// https with WithTLS: trust CertPool), opened on the first call and
// closed by Close; and region, the data center id in upper case, which
// requests must be signed for. The tools resolve names themselves, so
// they are given an address, which they address path-style. Both are ""
// for a data center without the platform's S3 API, and after Close.
// With WithMemoryNetwork the address is on the in-memory network, which
// only the fake's own clients reach.
//
// The credentials are S3AccessKey and S3SecretKey, set as the platform's
// guide sets them for the AWS tools: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY. The platform's guide gives the flags of the AWS
// CLI:
//
//	aws s3 ls --region EU-RO-1 --endpoint-url http://127.0.0.1:<port> s3://<volume id>/
//	aws s3 cp --region EU-RO-1 --endpoint-url http://127.0.0.1:<port> ./model.bin s3://<volume id>/models/
//
// The guide gives no flags for s3cmd or rclone; they take the same two
// values through their own. s3cmd reads the AWS_* variables when its
// configuration (here none) has no key, addresses path-style when
// --host-bucket has no %(bucket)s, and speaks http with --no-ssl:
//
//	s3cmd --config=/dev/null --host=127.0.0.1:<port> --host-bucket=127.0.0.1:<port> \
//	    --region=EU-RO-1 --no-ssl put ./model.bin s3://<volume id>/models/model.bin
//
// rclone, with an on-the-fly remote, reads them with --s3-env-auth, and
// needs --s3-no-check-bucket to upload: it otherwise sends CreateBucket,
// which the platform does not support (501 NotImplemented):
//
//	rclone copyto --s3-provider=Other --s3-env-auth --s3-endpoint=http://127.0.0.1:<port> \
//	    --s3-region=EU-RO-1 --s3-no-check-bucket ./model.bin :s3:<volume id>/models/model.bin
func Endpoint(srv *runpodtest.Server, dc string) (endpointURL, region string) {
	s := of(srv)
	region = strings.ToUpper(strings.TrimSpace(dc))
	if !slices.Contains(volstore.DataCenters, region) {
		return "", ""
	}
	u := &s.s3
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return "", ""
	}
	ts := u.hosts[region]
	if ts == nil {
		ts = s.c.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveS3At(region, w, r) }))
		if u.hosts == nil {
			u.hosts = map[string]*httptest.Server{}
		}
		u.hosts[region] = ts
	}
	return ts.URL, region
}

// closeS3Hosts closes the listeners Endpoint opened, and keeps it from
// opening more.
func (s *server) closeS3Hosts() {
	u := &s.s3
	u.mu.Lock()
	u.closed = true
	hosts := u.hosts
	u.hosts = nil
	u.mu.Unlock()
	for _, ts := range hosts {
		ts.Close()
	}
}
