package podssh

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/internal/fail"
)

// Key is the private key a connection authenticates with. It never
// prints its secret part: fmt (every verb), log/slog and encoding/json
// show its type and fingerprint only ("ssh-ed25519 SHA256:…"). The
// signer sits behind two pointers, so that fmt, which cannot call the
// methods of a value held in an unexported field, prints an address
// rather than the key even then. The zero Key holds no key.
type Key struct{ p **keyData }

type keyData struct{ signer ssh.Signer }

// NewKey returns a Key for signer (one of ssh.NewSignerFromKey,
// ssh.ParsePrivateKey, an agent's signers). A nil signer is a
// *errs.ValidationError.
func NewKey(signer ssh.Signer) (Key, error) {
	if signer == nil {
		return Key{}, fail.Invalid("signer", "is nil")
	}
	d := &keyData{signer: signer}
	return Key{p: &d}, nil
}

// ParseKey parses a private key in PEM or OpenSSH format, decrypting it
// with passphrase when it is encrypted (nil for an unencrypted key). An
// encrypted key without a passphrase is an error matching
// *ssh.PassphraseMissingError. Errors never quote the key or the
// passphrase.
func ParseKey(pemBytes, passphrase []byte) (Key, error) {
	if len(pemBytes) == 0 {
		return Key{}, fail.Invalid("pemBytes", "is empty")
	}
	var (
		signer ssh.Signer
		err    error
	)
	if passphrase == nil {
		signer, err = ssh.ParsePrivateKey(pemBytes)
	} else {
		signer, err = ssh.ParsePrivateKeyWithPassphrase(pemBytes, passphrase)
	}
	if err != nil {
		return Key{}, keyError(err)
	}
	return NewKey(signer)
}

// keyError keeps what parsing a key says that can be matched, and only
// its message otherwise: x/crypto's messages name the problem (no key
// found, passphrase missing or wrong, unknown type), never the key.
func keyError(err error) error {
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return fmt.Errorf("podssh: the private key is encrypted and no passphrase was given: %w", &ssh.PassphraseMissingError{})
	}
	return fmt.Errorf("podssh: cannot read the private key: %s", err.Error())
}

// LoadKey reads the private key file at path (such as ~/.ssh/id_ed25519)
// and parses it as ParseKey does.
func LoadKey(path string, passphrase []byte) (Key, error) {
	if path == "" {
		return Key{}, fail.Invalid("path", "is empty")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Key{}, fmt.Errorf("podssh: read private key: %w", err)
	}
	k, err := ParseKey(b, passphrase)
	if err != nil {
		return Key{}, fmt.Errorf("%w (file %s)", err, path)
	}
	return k, nil
}

// Signer returns the key's ssh.Signer; nil for the zero Key.
func (k Key) Signer() ssh.Signer {
	if k.p == nil || *k.p == nil {
		return nil
	}
	return (*k.p).signer
}

// PublicKey returns the public half of the key, the line to add to the
// account's SSH keys; nil for the zero Key.
func (k Key) PublicKey() ssh.PublicKey {
	if s := k.Signer(); s != nil {
		return s.PublicKey()
	}
	return nil
}

// IsZero reports whether k holds no key.
func (k Key) IsZero() bool { return k.Signer() == nil }

// String returns the key's type and SHA-256 fingerprint
// ("ssh-ed25519 SHA256:…"), or "[no key]".
func (k Key) String() string {
	pub := k.PublicKey()
	if pub == nil {
		return "[no key]"
	}
	return pub.Type() + " " + ssh.FingerprintSHA256(pub)
}

// GoString is String.
func (k Key) GoString() string { return k.String() }

// Format prints String for every verb.
func (k Key) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }

// LogValue logs String.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalJSON writes String as a JSON string: JSON made from an SDK value
// never holds a private key.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }
