package podssh

import (
	"bytes"
	"crypto/ed25519"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// FuzzReadKnownHosts: any file is read or refused without panic, and a
// line AddHostKey writes is found again for its pod and address only.
func FuzzReadKnownHosts(f *testing.F) {
	pub, _, _ := ed25519.GenerateKey(bytes.NewReader(make([]byte, 64)))
	key, _ := ssh.NewPublicKey(pub)
	line := "[203.0.113.7]:10022 " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))) + " " + podComment + "pod1\n"
	f.Add([]byte(line), "pod1", "203.0.113.7:10022")
	f.Add([]byte("# comment\n\n@revoked "+line), "pod1", "203.0.113.7:10022")
	f.Add([]byte("|1|c2FsdA==|aGFzaA== "+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))+"\n"), "p", "1.2.3.4:22")
	f.Add([]byte("@cert-authority * ssh-ed25519 AAAA\n"), "p", "1.2.3.4:22")
	f.Add([]byte("not a line"), "", "")
	f.Fuzz(func(t *testing.T, data []byte, pod, addr string) {
		found, err := readKnownHosts(bytes.NewReader(data), pod, addr)
		if err != nil {
			return
		}
		for _, k := range found.keys {
			_ = ssh.FingerprintSHA256(k)
		}
		// Dial's addresses are netip.AddrPort's; pod ids are one word.
		if _, err := netip.ParseAddrPort(addr); err != nil || pod == "" || strings.IndexFunc(pod, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			return
		}
		// Add a line for pod at addr: it is found, along with what was.
		var buf bytes.Buffer
		buf.Write(data)
		buf.WriteString("\n" + knownLine(addr, key, pod))
		again, err := readKnownHosts(&buf, pod, addr)
		if err != nil {
			return // the file revokes the key, or addr is not a host
		}
		if !containsKey(again.keys, key) {
			t.Fatalf("the added line is not found for %q at %q", pod, addr)
		}
	})
}
