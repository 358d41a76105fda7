package webhook

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/secret"
)

// Defaults and limits of a Signer.
const (
	// MinSecretLen is the shortest secret NewSigner takes, in bytes: the
	// size of an HMAC-SHA256 output, so the key is no weaker than the MAC.
	MinSecretLen = 32

	// DefaultExpiry is how long a URL's token is valid after URL mints it:
	// 25 hours. A job's webhook comes when the job ends, and a job may
	// wait in the queue and run for up to its TTL after submission, 24 h
	// unless RunParams.Policy.TTL says otherwise; the hour on top covers
	// the platform's two retries (10 s apart) and clocks that drift apart
	// between the machine that mints and the one that verifies. That the
	// platform keeps a result for 30 minutes does not matter: the webhook
	// is sent when the job ends, not when its result is read. A shorter
	// expiry shortens how long a leaked URL can be used, at the price of
	// refusing the webhook of a job that waited longer; a job submitted
	// with a longer Policy.TTL needs ValidFor(ttl + time.Hour).
	DefaultExpiry = 25 * time.Hour

	// MaxExpiry is the longest expiry WithExpiry and ValidFor take: the
	// platform's longest job TTL (7 days) and a day.
	MaxExpiry = 8 * 24 * time.Hour

	// DefaultParam is the query parameter that carries the token.
	DefaultParam = "runpod_token"

	// DefaultMaxBody is the largest body Verify reads, in bytes: 21 MiB.
	// The body is the job's status JSON with its output, and the largest
	// result the platform documents answering with is 20 MB (/runsync;
	// /run takes inputs up to 10 MB, but an output is not bounded by its
	// input), so a smaller limit could refuse a genuine result, which the
	// platform would then retry and drop. The extra MiB covers the status
	// fields and an error text. Only a request with a valid token is read
	// at all: the token is checked first.
	DefaultMaxBody = 21 << 20
)

// Signer mints webhook URLs for jobs (URL) and verifies the deliveries
// that come back to them (Verify, Handler). It holds a secret that never
// leaves it: fmt (every verb), log/slog and encoding/json show it as
// "[REDACTED]". A Signer is safe for concurrent use; one Signer, or two
// made with the same secret and options, mints and verifies.
type Signer struct {
	key     secret.String
	expiry  time.Duration
	now     func() time.Time
	param   string
	maxBody int64
	seen    SeenStore
}

// Option configures a Signer.
type Option func(*Signer) error

// WithExpiry sets how long a minted URL's token is valid (DefaultExpiry
// when not given): more than zero, at most MaxExpiry. It is fixed in the
// token when URL mints it, so a verifier with another expiry still
// honours it.
func WithExpiry(d time.Duration) Option {
	return setting(validExpiry("WithExpiry", d), func(s *Signer) { s.expiry = d })
}

// WithClock sets the clock that stamps and checks expiries, and the
// default SeenStore's (time.Now when not given). For tests.
func WithClock(now func() time.Time) Option {
	return setting(invalidUnless(now != nil, "WithClock", "clock is nil"), func(s *Signer) { s.now = now })
}

// WithParam sets the query parameter that carries the token
// (DefaultParam when not given): 1 to 64 ASCII letters, digits, '_', '-'
// or '.'.
func WithParam(name string) Option {
	ok := len(name) >= 1 && len(name) <= 64 && urlSafe(name, ".")
	return setting(invalidUnless(ok, "WithParam", "want 1 to 64 letters, digits, '_', '-' or '.', got %q", name), func(s *Signer) { s.param = name })
}

// WithMaxBody sets the largest body Verify reads, in bytes
// (DefaultMaxBody when not given); a longer one is refused as ReasonOversized.
func WithMaxBody(n int64) Option {
	return setting(invalidUnless(n >= 1, "WithMaxBody", "must be at least 1 byte, got %d", n), func(s *Signer) { s.maxBody = n })
}

// WithSeenStore sets where Verify records the deliveries it accepted, to
// tell one being handled and a duplicate. The default is a MemoryStore
// of DefaultMaxSeen handled deliveries on the Signer's clock, which is
// enough for one receiving process whose handler may, rarely, run again
// for a replay after a restart (see MemoryStore for the bound); receivers
// behind a load balancer, or that must never act twice, give one shared,
// persistent store (see SeenStore).
func WithSeenStore(store SeenStore) Option {
	return setting(invalidUnless(store != nil, "WithSeenStore", "store is nil"), func(s *Signer) { s.seen = store })
}

// NewSigner returns a Signer keyed with key, a secret of at least
// MinSecretLen bytes that only you know: 32 random bytes or more, such as
// the output of `openssl rand -base64 32`, kept where your API key is
// kept. The Signer keeps a copy. The same secret must verify what it minted: rotating it
// refuses every URL minted before, so keep the old Signer verifying until
// its URLs expire. A short secret or a bad option is a
// *errs.ValidationError that never repeats the secret.
func NewSigner(key []byte, opts ...Option) (*Signer, error) {
	if len(key) < MinSecretLen {
		return nil, fail.Invalid("secret", "must be at least %d bytes, got %d", MinSecretLen, len(key))
	}
	s := &Signer{key: secret.NewString(string(key)), expiry: DefaultExpiry, now: time.Now, param: DefaultParam, maxBody: DefaultMaxBody}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	if s.seen == nil {
		s.seen = NewMemoryStore(DefaultMaxSeen, s.now)
	}
	return s, nil
}

// setting returns an option (an Option or a URLOption) that fails with
// err, the verdict on the value it sets, or else sets it with set.
func setting[T any](err error, set func(T)) func(T) error {
	return func(t T) error {
		if err != nil {
			return err
		}
		set(t)
		return nil
	}
}

// invalidUnless returns nil when ok, else a *errs.ValidationError naming
// field.
func invalidUnless(ok bool, field, format string, args ...any) error {
	if ok {
		return nil
	}
	return fail.Invalid(field, format, args...)
}

// validExpiry checks an expiry given to field.
func validExpiry(field string, d time.Duration) error {
	if d <= 0 || d > MaxExpiry {
		return fail.Invalid(field, "must be more than 0 and at most %s, got %s", MaxExpiry, d)
	}
	return nil
}

// String describes the Signer without its secret.
func (s Signer) String() string {
	return fmt.Sprintf("webhook.Signer{secret:%s expiry:%s param:%s maxBody:%d}", secret.Redacted, s.expiry, s.param, s.maxBody)
}

// GoString is String.
func (s Signer) GoString() string { return s.String() }

// Format prints String for every verb.
func (s Signer) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.String())) }

// LogValue logs the Signer's settings, its secret as "[REDACTED]".
func (s Signer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("secret", secret.Redacted), slog.Duration("expiry", s.expiry),
		slog.String("param", s.param), slog.Int64("maxBody", s.maxBody))
}

// MarshalJSON writes the Signer's settings, its secret as "[REDACTED]".
func (s Signer) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Secret  string `json:"secret"`
		Expiry  string `json:"expiry"`
		Param   string `json:"param"`
		MaxBody int64  `json:"maxBody"`
	}{secret.Redacted, s.expiry.String(), s.param, s.maxBody})
}

// urlSafe reports whether s is ASCII letters, digits, '_', '-' and the
// bytes of extra, which travel in a URL unescaped.
func urlSafe(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}
