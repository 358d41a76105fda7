package fakes3

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// Authentication of the S3 API. The platform's S3 API documentation says
// requests are signed with AWS Signature Version 4 using the account's S3
// API key (access key user_…, secret rps_…), with the data center id as
// the region; it names no anonymous access and no presigned URLs. The
// checks below follow the published SigV4 algorithm (canonical request,
// string to sign, HMAC-SHA256 key derivation), so a request the fake
// accepts is one a SigV4 server holding the same key accepts; the error
// codes are the ones S3 answers with for each fault.

const (
	// sigV4Algorithm is the only signing algorithm accepted.
	sigV4Algorithm = "AWS4-HMAC-SHA256"
	// amzDateFormat is the layout of X-Amz-Date.
	amzDateFormat = "20060102T150405Z"
	// s3SkewLimit is how far a request's X-Amz-Date may be from the
	// server's clock: the platform refuses requests more than an hour out
	// of sync (RequestTimeTooSkewed).
	s3SkewLimit = time.Hour
)

// sigV4Auth is a parsed SigV4 Authorization header.
type sigV4Auth struct {
	AccessKey     string   // the credential's access key id
	Date          string   // the credential scope's date, yyyymmdd
	Region        string   // the credential scope's region
	Service       string   // the credential scope's service ("s3")
	SignedHeaders []string // lower-case header names, as listed
	Signature     string   // 64 lower-case hex digits
}

// scope returns the credential scope the signature was made for.
func (a sigV4Auth) scope() string {
	return a.Date + "/" + a.Region + "/" + a.Service + "/aws4_request"
}

// String formats a as an Authorization header value, the inverse of
// parseSigV4.
func (a sigV4Auth) String() string {
	return sigV4Algorithm + " Credential=" + a.AccessKey + "/" + a.scope() +
		", SignedHeaders=" + strings.Join(a.SignedHeaders, ";") + ", Signature=" + a.Signature
}

// parseSigV4 parses an Authorization header of the form
//
//	AWS4-HMAC-SHA256 Credential=<key>/<yyyymmdd>/<region>/<service>/aws4_request, SignedHeaders=<h1;h2>, Signature=<hex>
//
// Components are separated by commas, with optional spaces, in any order;
// each must appear exactly once. The error says what is wrong, for an
// AuthorizationHeaderMalformed answer.
func parseSigV4(header string) (sigV4Auth, error) {
	var a sigV4Auth
	alg, rest, ok := strings.Cut(header, " ")
	if !ok || alg != sigV4Algorithm {
		return a, fmt.Errorf("the authorization header must start with %q", sigV4Algorithm+" ")
	}
	seen := map[string]bool{}
	for part := range strings.SplitSeq(rest, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return a, fmt.Errorf("the authorization header component %q is not name=value", strings.TrimSpace(part))
		}
		if seen[name] {
			return a, fmt.Errorf("the authorization header has %s twice", name)
		}
		seen[name] = true
		switch name {
		case "Credential":
			// The access key is everything before the four scope fields.
			f := strings.Split(value, "/")
			if len(f) < 5 {
				return a, fmt.Errorf("the Credential %q is not <access key>/<date>/<region>/<service>/aws4_request", value)
			}
			n := len(f)
			a.AccessKey, a.Date, a.Region, a.Service = strings.Join(f[:n-4], "/"), f[n-4], f[n-3], f[n-2]
			switch {
			case a.AccessKey == "":
				return a, fmt.Errorf("the Credential has an empty access key")
			case !isDigits(a.Date, 8):
				return a, fmt.Errorf("the Credential's date %q is not yyyymmdd", a.Date)
			case a.Region == "":
				return a, fmt.Errorf("the Credential has an empty region")
			case a.Service == "":
				return a, fmt.Errorf("the Credential has an empty service")
			case f[n-1] != "aws4_request":
				return a, fmt.Errorf("the Credential must end with aws4_request, not %q", f[n-1])
			}
		case "SignedHeaders":
			if value == "" {
				return a, fmt.Errorf("SignedHeaders is empty")
			}
			a.SignedHeaders = strings.Split(value, ";")
			for _, h := range a.SignedHeaders {
				if h == "" || h != strings.ToLower(h) || strings.ContainsAny(h, " \t:") {
					return a, fmt.Errorf("SignedHeaders %q must list lower-case header names separated by ';'", value)
				}
			}
		case "Signature":
			if len(value) != 64 || !isLowerHex(value) {
				return a, fmt.Errorf("the Signature must be 64 lower-case hex digits")
			}
			a.Signature = value
		default:
			return a, fmt.Errorf("the authorization header has an unknown component %q", name)
		}
	}
	for _, name := range []string{"Credential", "SignedHeaders", "Signature"} {
		if !seen[name] {
			return a, fmt.Errorf("the authorization header lacks %s", name)
		}
	}
	return a, nil
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// canonicalRequest builds the SigV4 canonical request of r over the headers
// the client signed. The URI is the path as sent (S3 signs the path
// without encoding it a second time), the query is every parameter
// URI-encoded then sorted, each signed header is its values trimmed, inner
// runs of spaces collapsed, joined with commas. Host and Content-Length
// come from where net/http keeps them (r.Host, r.ContentLength).
func canonicalRequest(r *http.Request, signed []string, payloadHash string) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	// The path exactly as it came on the wire: what the client signed.
	uri, _, _ := strings.Cut(r.RequestURI, "?")
	if !strings.HasPrefix(uri, "/") {
		uri = r.URL.EscapedPath()
	}
	if uri == "" {
		uri = "/"
	}
	b.WriteString(uri)
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.RawQuery))
	b.WriteByte('\n')
	for _, name := range signed {
		var values []string
		switch name {
		case "host":
			values = []string{r.Host}
		case "content-length":
			values = r.Header.Values("Content-Length")
			if len(values) == 0 && r.ContentLength >= 0 {
				values = []string{strconv.FormatInt(r.ContentLength, 10)}
			}
		case "transfer-encoding":
			values = r.TransferEncoding
		default:
			values = r.Header.Values(name)
		}
		b.WriteString(name)
		b.WriteByte(':')
		for i, v := range values {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(collapseSpaces(v))
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}

// canonicalQuery encodes a raw query for signing: each name and value
// decoded, then URI-encoded (RFC 3986 unreserved characters kept, space as
// %20), the pairs sorted by name then value after encoding.
func canonicalQuery(raw string) string {
	type pair struct{ k, v string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		pairs = append(pairs, pair{sigV4Escape(k), sigV4Escape(v)})
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.k, b.k); c != 0 {
			return c
		}
		return strings.Compare(a.v, b.v)
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

// sigV4Escape URI-encodes s as SigV4 requires: every byte outside
// A-Z a-z 0-9 - _ . ~ as %XX with upper-case hex.
func sigV4Escape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// collapseSpaces trims v and turns each run of spaces into one.
func collapseSpaces(v string) string {
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "  ") {
		return v
	}
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' }), " ")
}

// stringToSign is the SigV4 string to sign of a canonical request.
func stringToSign(amzDate, scope, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return sigV4Algorithm + "\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
}

// sigV4Signature derives the signing key from secret and the scope, and
// signs sts with it.
func sigV4Signature(secret string, a sigV4Auth, sts string) string {
	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	k := mac([]byte("AWS4"+secret), a.Date)
	k = mac(k, a.Region)
	k = mac(k, a.Service)
	k = mac(k, "aws4_request")
	return hex.EncodeToString(mac(k, sts))
}

// s3Authenticate checks r's signature for data center dc (its S3 region).
// It returns nil when r is signed with the server's S3 API key, for the
// region dc, within the skew limit of the server's clock; otherwise the
// refusal. Nothing it returns contains the secret. When the client sent
// the SHA-256 of its body (X-Amz-Content-Sha256), r.Body is wrapped so
// that a body that does not match fails as it is read.
func (s *server) s3Authenticate(r *http.Request, dc string) *s3Error {
	q := r.URL.Query()
	if q.Has("X-Amz-Signature") || q.Has("X-Amz-Credential") || q.Has("Signature") {
		// The platform's documentation lists presigned URLs among what
		// its S3 API does not support.
		return &s3Error{Status: http.StatusForbidden, Code: "AccessDenied", Message: "presigned URLs are not supported by the S3 API of network volumes"}
	}
	header := r.Header.Get("Authorization")
	if header == "" {
		return &s3Error{Status: http.StatusForbidden, Code: "AccessDenied", Message: "anonymous access is not allowed: sign requests (SigV4) with the account's S3 API key"}
	}
	if alg, _, _ := strings.Cut(header, " "); alg != sigV4Algorithm {
		return &s3Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."}
	}
	a, err := parseSigV4(header)
	if err != nil {
		return &s3Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed", Message: "The authorization header is malformed: " + err.Error()}
	}
	accessKey, secretKey := s.c.Credentials()
	if a.AccessKey != accessKey {
		return &s3Error{Status: http.StatusForbidden, Code: "InvalidAccessKeyId", Message: "The AWS Access Key Id you provided does not exist in our records.",
			Fields: []s3ErrorField{{"AWSAccessKeyId", a.AccessKey}}}
	}
	if a.Region != dc {
		// The documentation gives the region as the data center id, as
		// written (EU-RO-1), and each data center has its own endpoint.
		return &s3Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed",
			Message: fmt.Sprintf("The authorization header is malformed; the region '%s' is wrong; expecting '%s' (the data center of this endpoint)", a.Region, dc),
			Fields:  []s3ErrorField{{"Region", dc}}}
	}
	if a.Service != "s3" {
		return &s3Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed", Message: fmt.Sprintf("The authorization header is malformed; the service '%s' is wrong; expecting 's3'", a.Service)}
	}
	if !slices.Contains(a.SignedHeaders, "host") {
		return &s3Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed", Message: "The authorization header is malformed; SignedHeaders must include host"}
	}
	amzDate := r.Header.Get("X-Amz-Date")
	at, err := time.Parse(amzDateFormat, amzDate)
	if err != nil {
		return &s3Error{Status: http.StatusForbidden, Code: "AccessDenied", Message: "AWS authentication requires a valid x-amz-date header (yyyymmddThhmmssZ)"}
	}
	if a.Date != amzDate[:8] {
		return &s3Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed", Message: "Invalid credential date. Date is not the same as X-Amz-Date."}
	}
	if now := s.c.Now(); now.Sub(at) > s3SkewLimit || at.Sub(now) > s3SkewLimit {
		return &s3Error{Status: http.StatusForbidden, Code: "RequestTimeTooSkewed", Message: "The difference between the request time and the current time is too large.",
			Fields: []s3ErrorField{{"RequestTime", amzDate}, {"ServerTime", now.UTC().Format(time.RFC3339)}, {"MaxAllowedSkewMilliseconds", strconv.FormatInt(s3SkewLimit.Milliseconds(), 10)}}}
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	switch {
	case payload == "":
		return &s3Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "Missing required header for this request: x-amz-content-sha256"}
	case payload == "UNSIGNED-PAYLOAD", strings.HasPrefix(payload, "STREAMING-"):
	case len(payload) == 64 && isLowerHex(payload):
	default:
		return &s3Error{Status: http.StatusBadRequest, Code: "InvalidArgument", Message: "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-…, or the hex SHA-256 of the body"}
	}
	canonical := canonicalRequest(r, a.SignedHeaders, payload)
	sts := stringToSign(amzDate, a.scope(), canonical)
	if want := sigV4Signature(secretKey, a, sts); !hmac.Equal([]byte(want), []byte(a.Signature)) {
		return &s3Error{Status: http.StatusForbidden, Code: "SignatureDoesNotMatch",
			Message: "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
			Fields: []s3ErrorField{{"AWSAccessKeyId", a.AccessKey}, {"StringToSign", sts}, {"SignatureProvided", a.Signature},
				{"CanonicalRequest", canonical}}}
	}
	if len(payload) == 64 && r.Body != nil && r.Body != http.NoBody {
		want, _ := hex.DecodeString(payload)
		r.Body = &sha256Body{ReadCloser: r.Body, want: want, h: sha256.New()}
	}
	return nil
}

// errContentSHA256Mismatch is what reading a body whose SHA-256 is not the
// signed one fails with; gofakes3 answers it 400 (BadDigest, the code S3
// documents for a body that does not match its declared checksum).
var errContentSHA256Mismatch = &gofakes3.ErrorResponse{Code: gofakes3.ErrBadDigest, Message: "The provided 'x-amz-content-sha256' header does not match what was computed."}

// sha256Body checks, as its last byte is read, that a request body has the
// SHA-256 the client signed.
type sha256Body struct {
	io.ReadCloser
	want []byte
	h    hash.Hash
}

// Read reads the body, failing at its end if the hash is not the signed one.
func (b *sha256Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF && !bytes.Equal(b.h.Sum(nil), b.want) {
		return n, errContentSHA256Mismatch
	}
	return n, err
}
