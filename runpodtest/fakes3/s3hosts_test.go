package fakes3_test

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
	"github.com/runpodkit/runpod-go/volumes/files"
)

// plainClient is a client of the user's own: it resolves names itself
// and ignores the fake's dialer (and any proxy of the environment).
func plainClient(t *testing.T) *http.Client {
	tr := &http.Transport{Proxy: nil}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestS3Endpoint: Endpoint gives each data center with the S3 API an
// address of its own and its region, the same on every call; a data
// center without the S3 API has neither; a data center's address serves
// its own volumes only, to clients of the user's own, path-style; a host
// naming another data center, or none, is refused; Close closes the
// addresses.
func TestS3Endpoint(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	ro := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	ks := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-KS-2"})

	roURL, region := fakes3.Endpoint(srv, "eu-ro-1")
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, roURL)
	assert.Equal(t, "EU-RO-1", region, "the region is the data center id as the platform writes it")
	again, _ := fakes3.Endpoint(srv, "EU-RO-1")
	assert.Equal(t, roURL, again)
	ksURL, ksRegion := fakes3.Endpoint(srv, "US-KS-2")
	assert.NotEqual(t, roURL, ksURL)
	assert.Equal(t, "US-KS-2", ksRegion)
	none, noRegion := fakes3.Endpoint(srv, "US-TX-3")
	assert.Empty(t, none+noRegion, "US-TX-3 has no S3 API")

	hc := plainClient(t)
	c := s3Client(srv, "EU-RO-1", 1, func(o *s3.Options) { o.BaseEndpoint, o.HTTPClient = aws.String(roURL), hc })
	s3Put(t, c, ro, "a/b.txt", []byte("ro"))
	assert.Equal(t, []byte("ro"), s3Get(t, c, ro, "a/b.txt"))
	buckets, err := c.ListBuckets(t.Context(), &s3.ListBucketsInput{})
	require.NoError(t, err)
	require.Len(t, buckets.Buckets, 1)
	assert.Equal(t, ro, aws.ToString(buckets.Buckets[0].Name))
	_, err = c.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(ks)})
	requireS3Error(t, err, http.StatusNotFound, "NoSuchBucket")
	// Signed for another region than the address's data center.
	wrong := s3Client(srv, "US-KS-2", 1, func(o *s3.Options) { o.BaseEndpoint, o.HTTPClient = aws.String(roURL), hc })
	_, err = wrong.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(ro)})
	requireS3Error(t, err, http.StatusBadRequest, "AuthorizationHeaderMalformed")

	// The host of every data center needs a data center in its Host; a
	// data center's address refuses a Host naming another.
	shared := regexp.MustCompile(`:[0-9]+$`).FindString(srv.S3URL)
	for _, target := range []struct{ url, host, want string }{
		{"http://127.0.0.1" + shared + "/" + ro, "", "names no data center"},
		{"http://127.0.0.1" + shared + "/" + ro, "s3api-us-tx-3.localhost" + shared, "no S3 API endpoint"},
		{roURL + "/" + ro, "s3api-us-ks-2.localhost", "but this address serves EU-RO-1"},
	} {
		resp := s3cmdDo(t, hc, srv, http.MethodGet, target.url, target.host, "EU-RO-1", nil)
		assert.Equal(t, http.StatusNotFound, resp.status, target)
		assert.Contains(t, resp.body, "<Code>NoSuchBucket</Code>", target)
		assert.Contains(t, resp.body, target.want, target)
	}

	srv.Close()
	after, _ := fakes3.Endpoint(srv, "EU-RO-1")
	assert.Empty(t, after)
	for _, u := range []string{roURL, ksURL} {
		requireRefused(t, strings.TrimPrefix(u, "http://"), "Close closes the data centers' addresses")
	}
}

// roundTrip is a function as an http.RoundTripper.
type roundTrip func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestS3EndpointTLS: with WithTLS, a data center's address is https, with
// the certificate CertPool trusts, and so is its named host, which the
// SDK's files reach through NewClient's client.
func TestS3EndpointTLS(t *testing.T) {
	srv := runpodtest.NewServer(fakes3.Serve(), runpodtest.WithTLS())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "US-KS-2"})
	ep, _ := fakes3.Endpoint(srv, "US-KS-2")
	assert.Regexp(t, `^https://127\.0\.0\.1:[0-9]+$`, ep)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CertPool(), MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	c := s3Client(srv, "US-KS-2", 1, func(o *s3.Options) { o.BaseEndpoint, o.HTTPClient = aws.String(ep), &http.Client{Transport: tr} })
	s3Put(t, c, vol, "k", []byte("tls"))

	rp, err := srv.NewClient()
	require.NoError(t, err)
	v, err := files.NewFromConfig(rp.Config()).Volume(t.Context(), vol)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(srv.S3URL, "{dc}", "us-ks-2", 1), v.Endpoint())
	var keys []string
	for e, err := range v.List(t.Context(), "") {
		require.NoError(t, err)
		keys = append(keys, e.Key)
	}
	assert.Equal(t, []string{"k"}, keys)

	// Virtual-hosted, <volume id>.s3api-us-ks-2.localhost, which the
	// certificate names too.
	var hosts []string
	record := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		hosts = append(hosts, cmp.Or(r.Host, r.URL.Host))
		return srv.Client().Transport.RoundTrip(r)
	})}
	vhost := s3Client(srv, "US-KS-2", 1, func(o *s3.Options) { o.UsePathStyle, o.HTTPClient = false, record })
	assert.Equal(t, []byte("tls"), s3Get(t, vhost, vol, "k"))
	require.Len(t, hosts, 1)
	assert.True(t, strings.HasPrefix(hosts[0], vol+".s3api-us-ks-2.localhost:"), hosts[0])
}

// s3cmdAnswer is the status and body of an answer.
type s3cmdAnswer struct {
	status int
	body   string
	header http.Header
}

// s3cmdDo sends a request signed as s3cmd 2.x signs one (its
// sign_request_v4): over the Host it sends (host, or rawURL's host), the
// path as it sends it (no prefix of the endpoint's), the query with an
// "=" after every name, host, x-amz-content-sha256 (the body's SHA-256
// in hex) and x-amz-date plus every header it sets, with the fake's S3
// API key (or secret, when given) for region.
func s3cmdDo(t *testing.T, hc *http.Client, srv *runpodtest.Server, method, rawURL, host, region string, body []byte, secret ...string) s3cmdAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, bytes.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	headers := map[string]string{}
	if method == http.MethodPut {
		headers["content-type"] = "application/octet-stream"
		headers["x-amz-meta-s3cmd-attrs"] = "gid:0/mode:33188/uid:0"
	}
	key := srv.S3SecretKey
	if len(secret) > 0 {
		key = secret[0]
	}
	now := time.Now().UTC()
	amzDate, day := now.Format("20060102T150405Z"), now.Format("20060102")
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	canon := map[string]string{"host": req.Host, "x-amz-content-sha256": payload, "x-amz-date": amzDate}
	for k, v := range headers {
		canon[k] = v
		req.Header.Set(k, v)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range canon {
			if !yield(k) {
				return
			}
		}
	})
	var ch strings.Builder
	for _, k := range names {
		ch.WriteString(k + ":" + canon[k] + "\n")
	}
	signed := strings.Join(names, ";")
	// s3cmd's format_param_str: the parameters sorted, each name=value.
	q := req.URL.Query()
	var params []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	}) {
		params = append(params, k+"="+strings.ReplaceAll(url.QueryEscape(q.Get(k)), "+", "%20"))
	}
	canonical := method + "\n" + req.URL.EscapedPath() + "\n" + strings.Join(params, "&") + "\n" + ch.String() + "\n" + signed + "\n" + payload
	scope := day + "/" + region + "/s3/aws4_request"
	crSum := sha256.Sum256([]byte(canonical))
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(crSum[:])
	mac := func(k []byte, s string) []byte {
		h := hmac.New(sha256.New, k)
		h.Write([]byte(s))
		return h.Sum(nil)
	}
	k := mac(mac(mac(mac([]byte("AWS4"+key), day), region), "s3"), "aws4_request")
	req.Header.Set("x-amz-date", amzDate)
	req.Header.Set("x-amz-content-sha256", payload)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+srv.S3AccessKey+"/"+scope+",SignedHeaders="+signed+
		",Signature="+hex.EncodeToString(mac(k, sts)))
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	testkit.NoSecret(t, string(b))
	return s3cmdAnswer{status: resp.StatusCode, body: string(b), header: resp.Header}
}

// TestS3CmdShapedRequests: requests signed as s3cmd signs them, over the
// host they are sent to and with no path prefix, are served path-style
// at a data center's address (what s3cmd sends with --host and
// --host-bucket set to it) and virtual-hosted (what it sends with
// --host-bucket=%(bucket)s.<host>) at the data center's named host and
// at its address; a bad signature gets 403, and the region s3cmd signs
// for by default (us-east-1) a 400 naming the right one, which s3cmd
// reads and signs for again.
func TestS3CmdShapedRequests(t *testing.T) {
	srv, vol, _ := s3Volume(t, "EU-RO-1") // its client registers the secret with testkit
	ep, region := fakes3.Endpoint(srv, "EU-RO-1")
	hc := plainClient(t)
	ok := func(a s3cmdAnswer, what string) {
		t.Helper()
		require.Equal(t, http.StatusOK, a.status, "%s: %s", what, a.body)
	}

	// Path-style at the data center's address.
	ok(s3cmdDo(t, hc, srv, http.MethodPut, ep+"/"+vol+"/dir/a%20b.txt", "", region, []byte("path")), "put")
	a := s3cmdDo(t, hc, srv, http.MethodGet, ep+"/"+vol+"/dir/a%20b.txt", "", region, nil)
	ok(a, "get")
	assert.Equal(t, "path", a.body)
	a = s3cmdDo(t, hc, srv, http.MethodGet, ep+"/"+vol+"/?delimiter=%2F&prefix=dir%2F", "", region, nil)
	ok(a, "list")
	assert.Contains(t, a.body, "<Key>dir/a b.txt</Key>")
	a = s3cmdDo(t, hc, srv, http.MethodGet, ep+"/", "", region, nil)
	ok(a, "list buckets")
	assert.Contains(t, a.body, "<Name>"+vol+"</Name>")
	ok(s3cmdDo(t, hc, srv, http.MethodHead, ep+"/"+vol+"/dir/a%20b.txt", "", region, nil), "head")

	// Virtual-hosted at the data center's named host, through the fake's
	// dialer, and at its address with a *.localhost name.
	named := strings.Replace(srv.S3URL, "{dc}", "eu-ro-1", 1)
	vhost := strings.Replace(named, "://", "://"+vol+".", 1)
	ok(s3cmdDo(t, srv.Client(), srv, http.MethodPut, vhost+"/dir/v.txt", "", region, []byte("vhost")), "virtual-hosted put")
	a = s3cmdDo(t, srv.Client(), srv, http.MethodGet, vhost+"/dir/v.txt", "", region, nil)
	ok(a, "virtual-hosted get")
	assert.Equal(t, "vhost", a.body)
	a = s3cmdDo(t, srv.Client(), srv, http.MethodGet, vhost+"/?prefix=dir%2F", "", region, nil)
	ok(a, "virtual-hosted list")
	assert.Contains(t, a.body, "<Key>dir/v.txt</Key>")
	port := ep[strings.LastIndexByte(ep, ':'):]
	for _, host := range []string{vol + ".localhost" + port, vol + ".s3api-eu-ro-1.localhost" + port} {
		a = s3cmdDo(t, hc, srv, http.MethodGet, ep+"/dir/v.txt", host, region, nil)
		ok(a, "virtual-hosted get at "+host)
		assert.Equal(t, "vhost", a.body)
	}
	b, err := srv.VolumeFile(vol, "dir/v.txt")
	require.NoError(t, err)
	assert.Equal(t, "vhost", string(b))

	// A bad signature is refused, and a refused put writes nothing.
	a = s3cmdDo(t, hc, srv, http.MethodGet, ep+"/"+vol+"/dir/v.txt", "", region, nil, "rps_WRONG")
	assert.Equal(t, http.StatusForbidden, a.status)
	assert.Contains(t, a.body, "<Code>SignatureDoesNotMatch</Code>")
	a = s3cmdDo(t, hc, srv, http.MethodPut, ep+"/"+vol+"/dir/w.txt", "", region, []byte("x"), srv.S3SecretKey+"x")
	assert.Equal(t, http.StatusForbidden, a.status)
	_, err = srv.VolumeFile(vol, "dir/w.txt")
	require.Error(t, err, "a refused put writes nothing")
	a = s3cmdDo(t, hc, srv, http.MethodGet, ep+"/"+vol+"/dir/v.txt", "", "us-east-1", nil)
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Contains(t, a.body, "<Region>EU-RO-1</Region>")
}

// requireRefused checks that nothing listens at addr (host:port) any
// more.
func requireRefused(t *testing.T, addr, msg string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err == nil {
		_ = c.Close()
	}
	require.True(t, errors.Is(err, syscall.ECONNREFUSED), "%s: %v", msg, err)
}
