package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/hosts"
)

// Token is what a genuine URL token says about the URL it rides in. It
// holds nothing secret.
type Token struct {
	// Nonce is the random id URL gave the URL: every URL has its own, so
	// one per submission. Deliveries are told apart by it and the job.
	Nonce string
	// EndpointID is the endpoint the URL was minted for, with
	// ForEndpoint; empty when it was not bound to one.
	EndpointID string
	// Expires is when the token stops being accepted, to the second.
	Expires time.Time
}

// URLOption configures one URL that Signer.URL mints.
type URLOption func(*minting) error

// minting is what the URLOptions of one URL set.
type minting struct {
	endpoint string
	expiry   time.Duration
}

// ForEndpoint binds the URL to the endpoint its job is submitted to: the
// id is signed into the token, and a verified delivery reports it as
// Token.EndpointID, so the receiver knows which endpoint to ask for the
// job's status (see the package doc). An id is 1 to 128 ASCII letters,
// digits, '_' or '-'.
func ForEndpoint(id string) URLOption {
	return setting(invalidUnless(validEndpoint(id), "ForEndpoint", "want an endpoint id of 1 to 128 letters, digits, '_' or '-', got %q", id),
		func(m *minting) { m.endpoint = id })
}

// ValidFor sets how long this URL's token is valid, instead of the
// Signer's expiry: for a job submitted with a Policy.TTL longer than
// 24 h, give it the TTL and an hour. More than zero, at most MaxExpiry.
func ValidFor(d time.Duration) URLOption {
	return setting(validExpiry("ValidFor", d), func(m *minting) { m.expiry = d })
}

// URL mints the webhook URL of one submission: base (your receiver's
// https URL) with one query parameter (DefaultParam, or WithParam's name)
// holding a token
//
//	v1.<expiry>.<nonce>.<endpoint>.<mac>
//
// where expiry is the time the token stops being valid in Unix seconds
// (now plus the Signer's expiry, or ValidFor's), nonce is 128 random
// bits in base32, endpoint is ForEndpoint's id (empty when not bound),
// and mac is the HMAC-SHA256, under the Signer's secret, of
//
//	"runpod-go webhook v1" NUL expiry NUL nonce NUL endpoint NUL path
//
// in base64url without padding. path is base's path, decoded ("/" when
// base has none). The host and the scheme are not signed, since a
// receiver behind a proxy often cannot know the ones the platform called,
// nor is the body, which the token is minted before. So a token is good
// for one path until it expires: Verify recomputes the MAC
// over the path the request was sent to, which a reverse proxy must not
// rewrite (http.StripPrefix does no harm: Verify reads the path as the
// client sent it).
//
// base must be an https URL, or http to a loopback host (localhost,
// 127.0.0.1, ::1) for tests; with a host, and no user info, query or
// fragment (what tells your receivers apart belongs in the path, which
// the token signs). Anything else is a *errs.ValidationError, and plain
// http to another host also matches errs.ErrInsecureURL: the token would
// cross the network in clear. Mint a new URL for every job: each has its
// own nonce.
func (s *Signer) URL(base string, opts ...URLOption) (string, error) {
	return s.mint([]byte(s.key.Reveal()), base, opts)
}

// ForgedURL returns a URL shaped like those URL mints for base, but
// signed with a random key instead of the Signer's secret: what someone
// who knows the URL's format but not the secret can make. It is for
// tests, to check that a receiver refuses forgeries (Verify reports
// ErrForged; Handler answers 403).
func (s *Signer) ForgedURL(base string, opts ...URLOption) (string, error) {
	return s.mint([]byte(rand.Text()+rand.Text()), base, opts)
}

// mint builds a URL for base whose token is signed with key.
func (s *Signer) mint(key []byte, base string, opts []URLOption) (string, error) {
	u, err := parseBase(base)
	if err != nil {
		return "", err
	}
	m := minting{expiry: s.expiry}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&m); err != nil {
			return "", err
		}
	}
	expires := s.now().Add(m.expiry).Unix()
	nonce := rand.Text()
	u.RawQuery = s.param + "=" + formatToken(expires, nonce, m.endpoint, tokenMAC(key, expires, nonce, m.endpoint, u.Path))
	return u.String(), nil
}

// parseBase checks a receiver's base URL.
func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil: // url's error repeats the URL, user info and all
		return nil, fail.Invalid("base", "not a URL")
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fail.Invalid("base", "scheme must be https (or http for a loopback host), got %q", u.Scheme)
	case u.Hostname() == "":
		return nil, fail.Invalid("base", "has no host")
	case u.User != nil:
		return nil, fail.Invalid("base", "must not carry user info")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fail.Invalid("base", "must not have a query or fragment: the token is the URL's query, and the token signs the path, where what tells receivers apart belongs")
	case u.Scheme == "http" && !hosts.IsLoopback(u.Hostname()):
		return nil, &errs.ValidationError{Field: "base", Message: "plain http is allowed only for a loopback host; use https", Err: errs.ErrInsecureURL}
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u, nil
}

// tokenMAC is the HMAC-SHA256, under key, of what a token signs.
func tokenMAC(key []byte, expires int64, nonce, endpoint, path string) []byte {
	h := hmac.New(sha256.New, key)
	_, _ = h.Write([]byte("runpod-go webhook v1\x00" + strconv.FormatInt(expires, 10) + "\x00" + nonce + "\x00" + endpoint + "\x00" + path))
	return h.Sum(nil)
}

// macEncoding writes and reads a token's MAC; Strict refuses the
// spellings of a MAC with stray trailing bits.
var macEncoding = base64.RawURLEncoding.Strict()

// formatToken writes a token: v1.<expiry>.<nonce>.<endpoint>.<mac>.
func formatToken(expires int64, nonce, endpoint string, mac []byte) string {
	return "v1." + strconv.FormatInt(expires, 10) + "." + nonce + "." + endpoint + "." + macEncoding.EncodeToString(mac)
}

// parsedToken is a token's parts, not yet checked against the secret.
type parsedToken struct {
	expires         int64
	nonce, endpoint string
	mac             []byte
}

// maxTokenLen bounds a token: 3 + 19 + 1 + 64 + 1 + 128 + 1 + 43 bytes,
// rounded up.
const maxTokenLen = 320

// parseToken reads a token's parts; ok is false when v is not shaped as
// URL writes them.
func parseToken(v string) (t parsedToken, ok bool) {
	if len(v) > maxTokenLen {
		return t, false
	}
	parts := strings.Split(v, ".")
	if len(parts) != 5 || parts[0] != "v1" {
		return t, false
	}
	exp, nonce, endpoint, mac := parts[1], parts[2], parts[3], parts[4]
	if len(exp) == 0 || len(exp) > 19 || strings.Trim(exp, "0123456789") != "" {
		return t, false
	}
	expires, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || expires <= 0 {
		return t, false
	}
	if len(nonce) < 16 || len(nonce) > 64 || !urlSafe(nonce, "") {
		return t, false
	}
	if endpoint != "" && !validEndpoint(endpoint) {
		return t, false
	}
	sum, err := macEncoding.DecodeString(mac)
	if err != nil || len(sum) != sha256.Size {
		return t, false
	}
	return parsedToken{expires: expires, nonce: nonce, endpoint: endpoint, mac: sum}, true
}

// validEndpoint reports whether id can be bound into a token.
func validEndpoint(id string) bool {
	return len(id) >= 1 && len(id) <= 128 && urlSafe(id, "")
}

// Token checks the token in r's URL, and only that: it reads neither the
// method nor the body, and records nothing. It returns the token's
// content when the token is genuine (minted with this Signer's secret,
// for the path r was sent to) and not expired; otherwise an *Error whose
// Reason is ReasonUnsigned, ReasonForged or ReasonExpired. The MAC is compared in constant
// time, and a token is judged ReasonExpired only once it is known genuine.
// Verify calls it once the method is checked; call it yourself to learn a
// URL's Token outside Handler.
func (s *Signer) Token(r *http.Request) (Token, error) {
	if r == nil || r.URL == nil {
		return Token{}, &Error{Reason: ReasonUnsigned}
	}
	values := r.URL.Query()[s.param]
	switch {
	case len(values) == 0:
		return Token{}, &Error{Reason: ReasonUnsigned}
	case len(values) > 1:
		return Token{}, &Error{Reason: ReasonForged, detail: "the token is given more than once"}
	}
	t, ok := parseToken(values[0])
	if !ok {
		return Token{}, &Error{Reason: ReasonForged, detail: "the token is not shaped as a minted one"}
	}
	want := tokenMAC([]byte(s.key.Reveal()), t.expires, t.nonce, t.endpoint, requestPath(r))
	if !hmac.Equal(t.mac, want) {
		return Token{}, &Error{Reason: ReasonForged}
	}
	tok := Token{Nonce: t.nonce, EndpointID: t.endpoint, Expires: time.Unix(t.expires, 0).UTC()}
	if s.now().After(tok.Expires) {
		return Token{}, &Error{Reason: ReasonExpired, detail: "it expired at " + tok.Expires.UTC().Format(time.RFC3339)}
	}
	return tok, nil
}

// requestPath is the decoded path r was sent to, as its client wrote it
// (RequestURI, which http.StripPrefix leaves alone), or r.URL's path for
// a request made in the program; "/" when empty.
func requestPath(r *http.Request) string {
	path := r.URL.Path
	if r.RequestURI != "" {
		u, err := url.ParseRequestURI(r.RequestURI)
		if err != nil {
			return ""
		}
		path = u.Path
	}
	if path == "" {
		return "/"
	}
	return path
}
