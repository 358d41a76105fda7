package runpodtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"github.com/runpodkit/runpod-go/runpodtest/internal/volstore"
	"math/big"
	"net"
	"time"
)

// WithTLS serves the fake's hosts (the API host, the inference host and
// the S3 API) over TLS, as the platform serves them, offering HTTP/2 and
// HTTP/1.1: URL, InferenceURL, S3URL and fakes3.Endpoint's addresses are https
// URLs, and the client of Client (and so of NewClient) trusts the fake's
// certificate and speaks HTTP/2 to it. The certificate, made by NewServer,
// names localhost, *.localhost, *.s3api-<dc>.localhost (virtual-hosted S3
// requests), 127.0.0.1 and ::1; CertPool returns it for a client of your
// own (one that leaves HTTP/2 off speaks HTTP/1.1 over TLS).
func WithTLS() Option {
	return func(s *Server) { s.tlsID = newTLSIdentity() }
}

// CertPool returns a pool holding the certificate the fake serves under
// WithTLS, for a client of your own; nil without WithTLS.
func (s *Server) CertPool() *x509.CertPool {
	if s.tlsID == nil {
		return nil
	}
	return s.tlsID.pool
}

// tlsIdentity is the fake's certificate and a pool that trusts it.
type tlsIdentity struct {
	cert tls.Certificate
	pool *x509.CertPool
}

// newTLSIdentity makes a self-signed certificate for the fake's names,
// valid from 1970 to 2100, so that it holds on any clock a test sets
// (a synctest bubble starts in 2000).
func newTLSIdentity() *tlsIdentity {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("runpodtest: WithTLS: " + err.Error())
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"runpodtest"}},
		NotBefore:             time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              append([]string{"localhost", "*.localhost"}, volstore.BucketHosts()...),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("runpodtest: WithTLS: " + err.Error())
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic("runpodtest: WithTLS: " + err.Error())
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &tlsIdentity{cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool: pool}
}

// serverConfig is the TLS configuration of the fake's hosts: HTTP/2 and
// HTTP/1.1 offered.
func (t *tlsIdentity) serverConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{t.cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
}
