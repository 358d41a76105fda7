// Package hosts says where the SDK may send credentials: https anywhere,
// plain http to a loopback host only. (Package option judges a Config's
// URLs and hosts by the same rule, with its own copy of IsLoopback, so
// that a public package imports no internal one.)
package hosts

import (
	"net"
	"net/url"
	"strings"
)

// IsLoopback reports whether host is "localhost" or a loopback IP.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SecureEnough reports whether credentials may go to u: https anywhere,
// plain http only to loopback.
func SecureEnough(u *url.URL) bool {
	return u.Scheme == "https" || (u.Scheme == "http" && IsLoopback(u.Hostname()))
}
