package option

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/runpodkit/runpod-go/errs"
)

// What a client is configured to talk to is judged here, by one rule
// wherever the Config comes from (NewConfig, Config.Validate): the base
// URLs of the platform's APIs, the pod proxy host and the keys.

// invalid returns a *errs.ValidationError for field with a formatted
// message.
func invalid(field, format string, args ...any) *errs.ValidationError {
	return &errs.ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// parseBase validates a base URL: http or https, a host, no user info,
// query or fragment. Plain http is allowed only for loopback hosts. A path
// is kept as a prefix of every request path (a gateway such as
// https://gw.example.com/runpod), except a final "/v2", which the SDK adds
// itself: other RunPod tools document the base URL as
// https://api.runpod.io/v2 and https://api.runpod.ai/v2. field names the
// option or variable the URL came from.
func parseBase(field, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, invalid(field, "not a URL: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, invalid(field, "scheme must be https (or http for a loopback host), got %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, invalid(field, "no host in %q", u.Redacted())
	case u.User != nil:
		return nil, invalid(field, "must not carry user info")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, invalid(field, "must not have a query or fragment")
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return nil, &errs.ValidationError{Field: field, Message: "plain http is allowed only for a loopback host; use https", Err: errs.ErrInsecureURL}
	}
	trim := func(p string) string { return strings.TrimSuffix(strings.TrimSuffix(p, "/"), "/v2") }
	u.Path = trim(u.Path)
	if u.RawPath != "" { // an escaped prefix ("a%2Fb") stays as written
		u.RawPath = trim(u.RawPath)
	}
	return u, nil
}

// checkHost checks a bare host name, with an optional port; example is a
// valid one for the message.
func checkHost(field, host, example string) (string, error) {
	host = strings.TrimSpace(host)
	if host == "" || strings.ContainsAny(host, "/?#@ ") {
		return "", invalid(field, "want a host name such as %q, got %q", example, host)
	}
	u, err := url.Parse("https://x." + host)
	if err != nil || u.Host != "x."+host {
		return "", invalid(field, "want a host name such as %q, got %q", example, host)
	}
	return host, nil
}

// checkKey refuses an API key that cannot travel in an HTTP header: one with
// white space, control characters or non-ASCII bytes would fail every
// call, each retried to no end. The message never repeats the key.
func checkKey(field, key string) error {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c <= ' ' || c >= 0x7f {
			return invalid(field, "the API key has a character an HTTP header cannot carry (byte %d of %d: %s)", i+1, len(key), describeByte(c))
		}
	}
	return nil
}

func describeByte(c byte) string {
	switch {
	case c == ' ':
		return "a space"
	case c < ' ' || c == 0x7f:
		return fmt.Sprintf("control character 0x%02x", c)
	default:
		return "a non-ASCII byte"
	}
}

// isLoopback reports whether host is "localhost" or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
