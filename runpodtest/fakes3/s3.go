package fakes3

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// The S3-compatible API of network volumes, served in-process with
// gofakes3 over the fake's own Backend (s3store.go). What it follows comes
// from the platform's S3 API documentation and what its users reported:
//
//   - One endpoint per data center (https://s3api-<dc>.runpod.io/), the
//     region being the data center id; only some data centers have one
//     (volstore.DataCenters). The fake gives each its own host too: a name on
//     one loopback server (S3URL, "http://s3api-{dc}.localhost:<port>")
//     for the fake's own clients, and an address of its own
//     (Endpoint) for tools that resolve names themselves; see
//     s3hosts.go. Buckets are path-style (/<volume id>/<key>) or
//     virtual-hosted (<volume id>.s3api-<dc>.localhost).
//   - The bucket is the network volume's id, the key the file's path on
//     the volume. A volume is reached only through its data center's
//     endpoint.
//   - Requests are SigV4-signed with the account's S3 API key, separate
//     from the API key (s3auth.go).
//   - The operations the documentation lists as supported; the others
//     (DeleteObjects, CreateBucket, DeleteBucket, versioning, ACLs,
//     tagging, …) answer 501 NotImplemented.
//   - PutObject takes bodies under 500 MB, UploadPart parts up to 500 MB
//     (400 EntityTooLarge beyond); the 5 MB minimum part size of S3 is not
//     enforced.
//   - The faults users met (Fault): 502 Bad Gateway during transfers,
//     bodies cut short under a 200 OK ("EOF errors with 200 OK"),
//     intermittent AccessDenied, and ListObjectsV2 answering with the
//     continuation token it was given.

// Size limits the documentation gives: a PutObject body must be under
// 500 MB, a part at most 500 MB.
const (
	s3PutLimit  = 500_000_000 // PutObject bodies of this many bytes or more are refused
	s3PartLimit = 500_000_000 // UploadPart bodies of more bytes than this are refused
)

// s3Supported are the operations the platform's documentation lists as
// supported.
var s3Supported = map[string]bool{
	"CopyObject": true, "DeleteObject": true, "GetObject": true, "HeadBucket": true, "HeadObject": true,
	"ListBuckets": true, "ListObjects": true, "ListObjectsV2": true, "PutObject": true,
	"CreateMultipartUpload": true, "UploadPart": true, "CompleteMultipartUpload": true,
	"AbortMultipartUpload": true, "ListMultipartUploads": true, "ListParts": true,
}

// Fault is a failure of the S3 API that Fail queues: the kinds the
// platform's users have met. A request takes the first queued fault that
// matches it (Op, Key, and for RepeatToken a listing that sends a
// token), after authentication and before anything is done; a fault
// still letting requests through (After) counts every request it
// matches, even one a later fault then hits.
type Fault struct {
	// Op is the S3 operation it hits, named as in Count ("GetObject",
	// "UploadPart", …); "" hits every operation.
	Op string
	// Key, if set, limits it to requests for this object key (the
	// destination's, for CopyObject).
	Key string
	// After is how many matching requests go through untouched before it
	// hits.
	After int
	// Times is how many matching requests it hits; 0 means 1.
	Times int
	// Status is the status to answer with, with an S3 XML error whose code
	// matches it (502 BadGateway, 503 SlowDown, 500 InternalError, 403
	// AccessDenied, …); nothing is done. 0 with neither Cut nor
	// RepeatToken means 502, the fault the platform's users see most
	// during transfers.
	Status int
	// Cut, when positive, closes the connection part-way ("EOF errors with
	// 200 OK responses"): a GetObject answers 200 (or 206) with its
	// headers, sends Cut bytes of the body, then closes the connection (a
	// body of at most Cut bytes goes out whole); a PutObject or UploadPart
	// reads Cut bytes of the request body, then closes the connection
	// without answering, and stores nothing. Any other operation closes
	// the connection without answering or acting.
	Cut int64
	// RepeatToken makes a ListObjectsV2 that sends a continuation token
	// answer with the page that token asks for, truncated, with the same
	// token as NextContinuationToken, as the platform does while it
	// computes checksums of a large directory (clients report "The same
	// next token was received twice"). A ListObjects (v1) that sends a
	// marker gets the marker back as NextMarker (which S3 returns with a
	// Delimiter only). Requests without a token or marker do not match.
	RepeatToken bool
}

// s3FaultState is a queued fault and how far it has got.
type s3FaultState struct {
	f    Fault
	seen int // matching requests let through (up to f.After)
	hits int
}

// matches reports whether fault f applies to a request of op for key.
func (f *Fault) matches(op, key string, hasToken bool) bool {
	if f.Op != "" && f.Op != op || f.Key != "" && f.Key != key {
		return false
	}
	if f.RepeatToken {
		return (op == "ListObjectsV2" || op == "ListObjects") && hasToken
	}
	return true
}

// Count returns how many requests of S3 operation op srv's S3 API
// received, signed or not, faulted or not: "PutObject", "UploadPart",
// "GetObject", "HeadObject", "HeadBucket", "ListObjects",
// "ListObjectsV2", "ListBuckets", "CreateMultipartUpload",
// "CompleteMultipartUpload", "AbortMultipartUpload",
// "ListMultipartUploads", "ListParts", "CopyObject", "DeleteObject",
// "DeleteObjects", and for what the platform does not support
// "CreateBucket", "DeleteBucket", "UploadPartCopy", "PostObject",
// "Get"/"Put"/"Delete" + a subresource's S3 name ("GetBucketAcl",
// "PutObjectTagging", …) or "Unknown". S3 requests are not in Requests.
func Count(srv *runpodtest.Server, op string) int {
	s := of(srv)
	s.s3.mu.Lock()
	defer s.s3.mu.Unlock()
	return s.s3.counts[op]
}

// Fail queues a fault of srv's S3 API; see Fault.
func Fail(srv *runpodtest.Server, f Fault) {
	s := of(srv)
	s.s3.mu.Lock()
	defer s.s3.mu.Unlock()
	s.s3.faults = append(s.s3.faults, &s3FaultState{f: f})
}

// ClearFaults drops every fault Fail queued on srv that has not run out.
func ClearFaults(srv *runpodtest.Server) {
	s := of(srv)
	s.s3.mu.Lock()
	defer s.s3.mu.Unlock()
	s.s3.faults = nil
}

// takeFault returns the fault a request of op for key takes, if any.
func (u *s3Unit) takeFault(op, key string, hasToken bool) (Fault, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, st := range u.faults {
		if !st.f.matches(op, key, hasToken) {
			continue
		}
		if st.seen < st.f.After {
			st.seen++
			continue
		}
		st.hits++
		if st.hits >= max(st.f.Times, 1) {
			u.faults = slices.Delete(u.faults, i, i+1)
		}
		return st.f, true
	}
	return Fault{}, false
}

// s3BucketSubresources names the bucket operations of S3's subresources
// (after Get, Put or Delete), none of which the platform supports.
var s3BucketSubresources = map[string]string{
	"accelerate": "BucketAccelerateConfiguration", "acl": "BucketAcl", "analytics": "BucketAnalyticsConfiguration",
	"cors": "BucketCors", "encryption": "BucketEncryption", "intelligent-tiering": "BucketIntelligentTieringConfiguration",
	"inventory": "BucketInventoryConfiguration", "lifecycle": "BucketLifecycleConfiguration", "location": "BucketLocation",
	"logging": "BucketLogging", "metrics": "BucketMetricsConfiguration", "notification": "BucketNotificationConfiguration",
	"object-lock": "ObjectLockConfiguration", "ownershipControls": "BucketOwnershipControls", "policy": "BucketPolicy",
	"policyStatus": "BucketPolicyStatus", "publicAccessBlock": "PublicAccessBlock", "replication": "BucketReplication",
	"requestPayment": "BucketRequestPayment", "tagging": "BucketTagging", "versioning": "BucketVersioning", "website": "BucketWebsite",
}

// s3ObjectSubresources names the object operations of S3's subresources,
// none of which the platform supports.
var s3ObjectSubresources = map[string]string{
	"acl": "ObjectAcl", "tagging": "ObjectTagging", "retention": "ObjectRetention", "legal-hold": "ObjectLegalHold",
	"torrent": "ObjectTorrent", "attributes": "ObjectAttributes",
}

// s3Verb is the prefix S3 operation names take from a method.
func s3Verb(method string) string {
	switch method {
	case http.MethodGet:
		return "Get"
	case http.MethodPut:
		return "Put"
	case http.MethodDelete:
		return "Delete"
	}
	return ""
}

// subresource returns the operation of the first subresource of subs in
// q, if any.
func subresource(method string, q url.Values, subs map[string]string) (string, bool) {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if op, ok := subs[name]; ok {
			if v := s3Verb(method); v != "" {
				return v + op, true
			}
			return "Unknown", true
		}
	}
	return "", false
}

// classifyS3 names the S3 operation of a request, from its method, its
// path under the endpoint (/<bucket>/<key>), its query and headers, as
// S3's REST API defines them; it also returns the bucket and key.
func classifyS3(method, p string, q url.Values, h http.Header) (op, bucket, key string) {
	bucket, key, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
	switch {
	case bucket == "":
		if method == http.MethodGet {
			return "ListBuckets", "", ""
		}
		return "Unknown", "", ""
	case key == "":
		return classifyBucketOp(method, q), bucket, ""
	}
	return classifyObjectOp(method, q, h), bucket, key
}

func classifyBucketOp(method string, q url.Values) string {
	switch {
	case q.Has("uploads") && method == http.MethodGet:
		return "ListMultipartUploads"
	case q.Has("versions") && method == http.MethodGet:
		return "ListObjectVersions"
	case q.Has("delete") && method == http.MethodPost:
		return "DeleteObjects"
	}
	if op, ok := subresource(method, q, s3BucketSubresources); ok {
		return op
	}
	switch method {
	case http.MethodGet:
		if q.Get("list-type") == "2" {
			return "ListObjectsV2"
		}
		return "ListObjects"
	case http.MethodHead:
		return "HeadBucket"
	case http.MethodPut:
		return "CreateBucket"
	case http.MethodDelete:
		return "DeleteBucket"
	case http.MethodPost:
		return "PostObject"
	}
	return "Unknown"
}

func classifyObjectOp(method string, q url.Values, h http.Header) string {
	copySource := h.Get("X-Amz-Copy-Source") != ""
	if q.Has("uploadId") {
		switch method {
		case http.MethodGet:
			return "ListParts"
		case http.MethodPut:
			if copySource {
				return "UploadPartCopy"
			}
			if q.Has("partNumber") {
				return "UploadPart"
			}
		case http.MethodPost:
			return "CompleteMultipartUpload"
		case http.MethodDelete:
			return "AbortMultipartUpload"
		}
		return "Unknown"
	}
	if q.Has("uploads") {
		switch method {
		case http.MethodPost:
			return "CreateMultipartUpload"
		case http.MethodGet:
			return "ListMultipartUploads"
		}
		return "Unknown"
	}
	if op, ok := subresource(method, q, s3ObjectSubresources); ok {
		return op
	}
	switch method {
	case http.MethodGet:
		return "GetObject"
	case http.MethodHead:
		return "HeadObject"
	case http.MethodPut:
		if copySource {
			return "CopyObject"
		}
		return "PutObject"
	case http.MethodDelete:
		return "DeleteObject"
	case http.MethodPost:
		switch {
		case q.Has("restore"):
			return "RestoreObject"
		case q.Has("select"):
			return "SelectObjectContent"
		}
	}
	return "Unknown"
}

// s3Error is an S3 XML error the fake answers with itself (gofakes3
// answers the rest).
type s3Error struct {
	Status   int
	Code     string
	Message  string
	Resource string
	Fields   []s3ErrorField // more elements, as S3 adds to some errors
}

// s3ErrorField is an element of an S3 error beyond Code and Message.
type s3ErrorField struct{ Name, Value string }

// write sends e (headers only for HEAD).
func (e *s3Error) write(w http.ResponseWriter, r *http.Request, requestID string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(e.Status)
	if r.Method == http.MethodHead {
		return
	}
	type elem struct {
		XMLName xml.Name
		Value   string `xml:",chardata"`
	}
	body := struct {
		XMLName   xml.Name `xml:"Error"`
		Code      string
		Message   string
		Resource  string `xml:",omitempty"`
		RequestID string `xml:"RequestId"`
		Extra     []elem
	}{Code: e.Code, Message: e.Message, Resource: e.Resource, RequestID: requestID}
	for _, f := range e.Fields {
		body.Extra = append(body.Extra, elem{XMLName: xml.Name{Local: f.Name}, Value: f.Value})
	}
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(body)
}

// s3FaultError is the answer of an injected Status fault.
func s3FaultError(status int) *s3Error {
	code := map[int]string{
		http.StatusBadRequest: "BadRequest", http.StatusForbidden: "AccessDenied", http.StatusNotFound: "NotFound",
		http.StatusConflict: "Conflict", http.StatusTooManyRequests: "SlowDown", http.StatusInternalServerError: "InternalError",
		http.StatusNotImplemented: "NotImplemented", http.StatusBadGateway: "BadGateway",
		http.StatusServiceUnavailable: "SlowDown", http.StatusGatewayTimeout: "GatewayTimeout",
	}[status]
	code = cmp.Or(code, strings.ReplaceAll(http.StatusText(status), " ", ""), "Error")
	msg := "injected fault: " + http.StatusText(status)
	switch status {
	case http.StatusBadGateway:
		msg = "Bad Gateway: the S3 gateway did not get an answer from the volume (injected fault)"
	case http.StatusForbidden:
		msg = "Access Denied (injected fault)"
	}
	return &s3Error{Status: status, Code: code, Message: msg}
}

// s3SizeLimit refuses, from its declared length, a body over the
// platform's limits.
func s3SizeLimit(op string, r *http.Request) *s3Error {
	n := r.ContentLength
	if d, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64); err == nil {
		n = d
	}
	limit := int64(-1)
	switch {
	case op == "PutObject" && n >= s3PutLimit:
		limit = s3PutLimit - 1
	case op == "UploadPart" && n > s3PartLimit:
		limit = s3PartLimit
	default:
		return nil
	}
	return &s3Error{Status: http.StatusBadRequest, Code: "EntityTooLarge", Message: "Your proposed upload exceeds the maximum allowed size",
		Fields: []s3ErrorField{{"ProposedSize", strconv.FormatInt(n, 10)}, {"MaxSizeAllowed", strconv.FormatInt(limit, 10)}}}
}

// conditionalHeaders are the If-* headers of GetObject and HeadObject,
// which the fake's Backend applies to the file it serves (gofakes3 knows
// only some of them, and not multipart ETags).
var conditionalHeaders = []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}

// serveS3At serves the S3 API of the data center a request's host names
// (fixed: of the listener's own data center; see s3Route), path-style
// (/<bucket>/<key>) or virtual-hosted (<bucket>.<host>, /<key>). Each
// request is counted, checked (data center, signature, clock), may take a
// queued fault, and is then served by gofakes3 over the data center's
// view of the volumes.
func (s *server) serveS3At(fixed string, w http.ResponseWriter, r *http.Request) {
	n := s.s3.reqID.Add(1)
	requestID := fmt.Sprintf("%016X", n)
	w.Header().Set("x-amz-request-id", requestID)
	// Every answer carries the server's time, as an origin server's does;
	// S3 clients take their clock skew from it (RequestTimeTooSkewed).
	w.Header().Set("Date", s.c.Now().UTC().Format(http.TimeFormat))
	dc, hostBucket, ok := s3Route(r.Host, fixed)
	rest := r.URL.Path
	if hostBucket != "" { // virtual-hosted: the path is the key's
		rest = "/" + hostBucket + "/" + strings.TrimPrefix(r.URL.Path, "/")
	}
	q := r.URL.Query()
	op, _, key := classifyS3(r.Method, rest, q, r.Header)
	s.s3.mu.Lock()
	s.s3.counts[op]++
	s.s3.mu.Unlock()

	if !ok {
		msg := fmt.Sprintf("the host %q names no data center: the S3 API of data center <dc> is at %s<dc>.localhost (S3URL), or at fakes3.Endpoint(srv, <dc>)", r.Host, volstore.HostPrefix)
		if dc != "" {
			// On the platform the host s3api-<dc>.runpod.io does not exist.
			msg = fmt.Sprintf("data center %q has no S3 API endpoint (s3api-%s.runpod.io does not exist); the S3 API serves %s",
				dc, strings.ToLower(dc), strings.Join(volstore.DataCenters, ", "))
			if fixed != "" && dc != fixed {
				msg = fmt.Sprintf("the host %q names data center %s, but this address serves %s", r.Host, dc, fixed)
			}
		}
		(&s3Error{Status: http.StatusNotFound, Code: "NoSuchBucket", Resource: r.URL.Path, Message: msg}).write(w, r, requestID)
		return
	}
	if e := s.s3Authenticate(r, dc); e != nil {
		e.Resource = rest
		e.write(w, r, requestID)
		return
	}
	hasToken := q.Has("continuation-token") || (op == "ListObjects" && q.Has("marker"))
	f, faulted := s.s3.takeFault(op, key, hasToken)
	var cut int64
	if faulted && !f.RepeatToken {
		switch {
		case f.Cut > 0 && op == "GetObject":
			cut = f.Cut
		case f.Cut > 0:
			if op == "PutObject" || op == "UploadPart" {
				_, _ = io.CopyN(io.Discard, r.Body, f.Cut)
			}
			hangUp(w)
			return
		default:
			e := s3FaultError(cmp.Or(f.Status, http.StatusBadGateway))
			e.Resource = rest
			e.write(w, r, requestID)
			return
		}
	}
	if !s3Supported[op] {
		(&s3Error{Status: http.StatusNotImplemented, Code: "NotImplemented", Resource: rest,
			Message: op + " is not supported by the S3 API of network volumes; it supports " + strings.Join(slices.Sorted(maps.Keys(s3Supported)), ", ")}).write(w, r, requestID)
		return
	}
	if e := s3SizeLimit(op, r); e != nil {
		e.Resource = rest
		e.write(w, r, requestID)
		return
	}
	if op == "PutObject" || op == "UploadPart" {
		if e := decodeAWSChunked(r); e != nil {
			e.Resource = rest
			e.write(w, r, requestID)
			return
		}
	}
	view := &s3View{s: s, dc: dc, op: op, repeat: faulted && f.RepeatToken, cond: http.Header{}}
	if op == "GetObject" || op == "HeadObject" {
		for _, h := range conditionalHeaders {
			if v := r.Header.Values(h); len(v) > 0 {
				view.cond[h] = v
				r.Header.Del(h)
			}
		}
	}
	r.URL.Path, r.URL.RawPath = rest, ""
	g := gofakes3.New(view,
		// The clock is the server's. The skew limit is checked above, with
		// the signature, before any request reaches gofakes3, so its own
		// check (which would repeat ours on the same clock) is off.
		gofakes3.WithTimeSource(s3Clock{s.c.Now}),
		gofakes3.WithTimeSkewLimit(0),
		gofakes3.WithRequestID(n-1),
		gofakes3.WithoutVersioning(),
	)
	sw := &s3Writer{ResponseWriter: w, view: view, cut: cut}
	g.Server().ServeHTTP(sw, r)
	sw.finish()
}

// s3Clock is the server's clock as gofakes3 takes one.
type s3Clock struct{ now func() time.Time }

// Now returns the server's time.
func (c s3Clock) Now() time.Time { return c.now() }

// Since returns the time elapsed since t on the server's clock.
func (c s3Clock) Since(t time.Time) time.Duration { return c.now().Sub(t) }

// errS3Cut is what writes fail with once a Cut fault closed the
// connection.
var errS3Cut = errors.New("runpodtest: connection closed by an injected S3 fault")

// s3Writer is the response writer gofakes3 writes to. It puts back the
// whole ETag of the object a GET or HEAD served (gofakes3 can only write
// an MD5 there, not a multipart ETag), and carries out a Cut fault: once
// a 2xx body has sent cut bytes, the connection is closed.
type s3Writer struct {
	http.ResponseWriter
	view   *s3View
	cut    int64 // > 0: the 2xx body is cut after this many bytes
	sent   int64
	status int
	hung   bool
}

// prepare sets the headers the fake owns, before a response of status
// goes out: the whole ETag, and the XML type of an error (gofakes3 writes
// the status before it sets the type, which net/http would then guess).
func (w *s3Writer) prepare(status int) {
	if w.view.etag != "" && (w.view.op == "GetObject" || w.view.op == "HeadObject") {
		w.Header().Set("ETag", w.view.etag)
	}
	if status >= 400 && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/xml")
	}
}

// WriteHeader sends the status once.
func (w *s3Writer) WriteHeader(code int) {
	if w.hung || w.status != 0 {
		return
	}
	w.status = code
	w.prepare(code)
	w.ResponseWriter.WriteHeader(code)
}

// Write sends body bytes, up to the cut.
func (w *s3Writer) Write(p []byte) (int, error) {
	if w.hung {
		return 0, errS3Cut
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.cut > 0 && w.status/100 == 2 {
		if left := w.cut - w.sent; int64(len(p)) > left {
			n, _ := w.ResponseWriter.Write(p[:left])
			w.sent += int64(n)
			w.hung = true
			_ = http.NewResponseController(w.ResponseWriter).Flush()
			hangUp(w.ResponseWriter)
			return n, errS3Cut
		}
	}
	n, err := w.ResponseWriter.Write(p)
	w.sent += int64(n)
	return n, err
}

// finish sets the fake's headers on a response net/http completes itself
// (nothing was written: an implicit 200).
func (w *s3Writer) finish() {
	if w.status == 0 && !w.hung {
		w.prepare(http.StatusOK)
	}
}

// Unwrap exposes the connection's writer to http.ResponseController.
func (w *s3Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// decodeAWSChunked turns an aws-chunked body (a STREAMING-* payload, which
// SigV4 clients send with Content-Encoding aws-chunked, chunk signatures
// or trailing checksums) into the bytes it carries, of length
// X-Amz-Decoded-Content-Length, so that the file gets the data and not
// the framing. Chunk signatures and trailing checksums are not checked.
func decodeAWSChunked(r *http.Request) *s3Error {
	sha := r.Header.Get("X-Amz-Content-Sha256")
	enc := r.Header.Values("Content-Encoding")
	chunked := strings.HasPrefix(sha, "STREAMING-")
	var rest []string
	for _, v := range enc {
		for e := range strings.SplitSeq(v, ",") {
			if e = strings.TrimSpace(e); strings.EqualFold(e, "aws-chunked") {
				chunked = true
			} else if e != "" {
				rest = append(rest, e)
			}
		}
	}
	if !chunked {
		return nil
	}
	n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return &s3Error{Status: http.StatusLengthRequired, Code: "MissingContentLength", Message: "an aws-chunked body needs X-Amz-Decoded-Content-Length"}
	}
	r.Body = &awsChunkedBody{src: bufio.NewReader(r.Body), closer: r.Body}
	r.ContentLength = n
	r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
	r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD") // decoded: gofakes3 must not decode again
	r.Header.Del("Content-Encoding")
	if len(rest) > 0 {
		r.Header.Set("Content-Encoding", strings.Join(rest, ","))
	}
	return nil
}

// errBadChunk is what reading a malformed aws-chunked body fails with.
var errBadChunk = &gofakes3.ErrorResponse{Code: gofakes3.ErrIncompleteBody, Message: "malformed aws-chunked body"}

// awsChunkedBody reads the data of an aws-chunked body:
// <hex size>[;chunk-signature=…]\r\n<data>\r\n … 0[;…]\r\n[trailers]\r\n.
type awsChunkedBody struct {
	src    *bufio.Reader
	closer io.Closer
	left   int64 // data left in the current chunk
	done   bool
}

// Read reads the data of the chunks.
func (c *awsChunkedBody) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		if err := c.nextChunk(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.src.Read(p)
	c.left -= int64(n)
	if c.left == 0 && (err == nil || err == io.EOF) {
		if !c.expectCRLF() {
			return n, errBadChunk
		}
		err = nil
	}
	if err == io.EOF {
		err = errBadChunk
	}
	return n, err
}

// nextChunk reads a chunk's header line, and the trailers after the last
// chunk.
func (c *awsChunkedBody) nextChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	size, _, _ := strings.Cut(line, ";")
	n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
	if err != nil || n < 0 {
		return errBadChunk
	}
	if n > 0 {
		c.left = n
		return nil
	}
	c.done = true
	for { // trailers, up to an empty line (or the end)
		line, err := c.line()
		if err == io.EOF || err == nil && line == "" {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// line reads a CRLF-terminated line of at most 4 KiB.
func (c *awsChunkedBody) line() (string, error) {
	var b []byte
	for {
		part, isPrefix, err := c.src.ReadLine()
		if err != nil {
			if err == io.EOF && len(b) == 0 {
				return "", io.EOF
			}
			return "", errBadChunk
		}
		if b = append(b, part...); len(b) > 4096 {
			return "", errBadChunk
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

// expectCRLF consumes the CRLF after a chunk's data.
func (c *awsChunkedBody) expectCRLF() bool {
	var crlf [2]byte
	_, err := io.ReadFull(c.src, crlf[:])
	return err == nil && crlf == [2]byte{'\r', '\n'}
}

// Close closes the request body.
func (c *awsChunkedBody) Close() error { return c.closer.Close() }

// hangUp closes the connection without writing a response.
func hangUp(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = buf.Flush()
	_ = conn.Close()
}
