package webhook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/serverless/webhook"
)

// invalid checks that err is a *errs.ValidationError naming field, and
// shows no secret.
func invalid(t *testing.T, err error, field string) *errs.ValidationError {
	t.Helper()
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, field, ve.Field)
	assert.ErrorIs(t, err, errs.ErrValidation)
	testkit.NoSecret(t, err)
	return ve
}

func TestNewSignerRefusesAShortSecret(t *testing.T) {
	short := []byte("only-31-bytes-of-secret-0123456")
	require.Len(t, short, 31)
	testkit.RegisterSecret(string(short))
	_, err := webhook.NewSigner(short)
	invalid(t, err, "secret")
	_, err = webhook.NewSigner(nil)
	invalid(t, err, "secret")
	_, err = webhook.NewSigner(append(short, '!'))
	require.NoError(t, err, "32 bytes is enough")
}

func TestNewSignerRefusesBadOptions(t *testing.T) {
	cases := map[string]webhook.Option{
		"WithExpiry":    webhook.WithExpiry(0),
		"WithClock":     webhook.WithClock(nil),
		"WithParam":     webhook.WithParam("a b"),
		"WithMaxBody":   webhook.WithMaxBody(0),
		"WithSeenStore": webhook.WithSeenStore(nil),
	}
	for field, opt := range cases {
		_, err := webhook.NewSigner(testSecret, opt)
		invalid(t, err, field)
	}
	for _, opt := range []webhook.Option{webhook.WithExpiry(-time.Second), webhook.WithExpiry(webhook.MaxExpiry + time.Second),
		webhook.WithParam(""), webhook.WithParam(strings.Repeat("p", 65)), webhook.WithParam("to&ken"), webhook.WithMaxBody(-1)} {
		_, err := webhook.NewSigner(testSecret, opt)
		require.Error(t, err)
	}
	_, err := webhook.NewSigner(testSecret, nil, webhook.WithExpiry(webhook.MaxExpiry), webhook.WithParam("sig.v1-x_"))
	require.NoError(t, err, "a nil option is skipped; the bounds are allowed")
}

func TestURLRefusesBadBases(t *testing.T) {
	signer, _ := newSigner(t)
	for _, b := range []string{
		"ftp://example.com/hook", "example.com/hook", "/hook", "", "https://", "https:///hook",
		"https://example.com/hook?tenant=1", "https://example.com/hook?", "https://example.com/hook#frag",
		"https://user:pa55word@example.com/hook", "https://example.com/%zz", "http://example.com/hook",
	} {
		_, err := signer.URL(b)
		ve := invalid(t, err, "base")
		assert.NotContains(t, ve.Error(), "pa55word")
	}
	_, err := signer.URL("http://example.com/hook")
	assert.ErrorIs(t, err, errs.ErrInsecureURL)
	_, err = signer.URL("http://10.0.0.1/hook")
	assert.ErrorIs(t, err, errs.ErrInsecureURL)
	for _, loopback := range []string{"http://localhost:8080/hook", "http://127.0.0.1/hook", "http://[::1]:9/hook", "http://app.localhost/hook"} {
		_, err := signer.URL(loopback)
		require.NoError(t, err, loopback)
	}

	_, err = signer.URL(base, webhook.ForEndpoint("a.b"))
	invalid(t, err, "ForEndpoint")
	_, err = signer.URL(base, webhook.ForEndpoint(""))
	invalid(t, err, "ForEndpoint")
	_, err = signer.URL(base, webhook.ValidFor(0))
	invalid(t, err, "ValidFor")
	_, err = signer.ForgedURL("http://example.com/hook")
	assert.ErrorIs(t, err, errs.ErrInsecureURL)
}

// A minted URL is the base with one query parameter, a token of five
// parts; every URL has its own nonce.
func TestURLShape(t *testing.T) {
	signer, _ := newSigner(t)
	a := mustURL(t, signer, "https://hooks.example.com/a%2Fb/done", webhook.ForEndpoint("ep_1-x"))
	u, err := url.Parse(a)
	require.NoError(t, err)
	assert.Equal(t, "https", u.Scheme)
	assert.Equal(t, "hooks.example.com", u.Host)
	assert.Equal(t, "/a%2Fb/done", u.EscapedPath(), "the base's path is kept as written")
	assert.Equal(t, []string{webhook.DefaultParam}, keys(u.Query()))
	parts := strings.Split(u.Query().Get(webhook.DefaultParam), ".")
	require.Len(t, parts, 5)
	assert.Equal(t, "v1", parts[0])
	assert.Equal(t, fmt.Sprint(start.Add(webhook.DefaultExpiry).Unix()), parts[1])
	assert.Len(t, parts[2], 26)
	assert.Equal(t, "ep_1-x", parts[3])
	assert.Len(t, parts[4], 43, "a whole HMAC-SHA256 in base64url")
	assert.NotContains(t, a, string(testSecret))

	b := mustURL(t, signer, "https://hooks.example.com/a%2Fb/done", webhook.ForEndpoint("ep_1-x"))
	assert.NotEqual(t, a, b, "every URL has its own nonce")

	bare := mustURL(t, signer, " https://hooks.example.com ")
	assert.True(t, strings.HasPrefix(bare, "https://hooks.example.com/?"+webhook.DefaultParam+"="), bare)
	_, err = signer.Verify(delivery(t, bare, completed("job-1")))
	require.NoError(t, err, "a bare host is the path /")
}

func keys(v url.Values) []string {
	var out []string
	for k := range v {
		out = append(out, k)
	}
	return out
}

// WithParam renames the parameter; minting and verifying agree on it.
func TestWithParam(t *testing.T) {
	signer, _ := newSigner(t, webhook.WithParam("sig"))
	hook := mustURL(t, signer, base)
	u, err := url.Parse(hook)
	require.NoError(t, err)
	assert.Equal(t, []string{"sig"}, keys(u.Query()))
	_, err = signer.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err)

	other, _ := newSigner(t)
	_, err = other.Verify(delivery(t, hook, completed("job-2")))
	assert.ErrorIs(t, err, webhook.ErrUnsigned, "a signer looking for the default parameter finds none")
}

// Two signers made with one secret verify each other's URLs: a service
// that submits and one that receives share the secret, not the Signer.
func TestSignersWithOneSecretAgree(t *testing.T) {
	minter, _ := newSigner(t, webhook.WithExpiry(time.Minute))
	receiver, clk := newSigner(t)
	hook := mustURL(t, minter, base)
	_, err := receiver.Verify(delivery(t, hook, completed("job-1")))
	require.NoError(t, err)
	clk.Add(2 * time.Minute)
	_, err = receiver.Verify(delivery(t, hook, completed("job-2")))
	assert.ErrorIs(t, err, webhook.ErrExpired, "the expiry is the one minted into the token")
}

// The secret never shows: not with fmt's verbs (on the Signer, a pointer
// to it, or a struct holding either, exported or not), nor in log/slog's
// handlers, nor in JSON, nor in any error this package returns.
func TestSecretIsNeverShown(t *testing.T) {
	signer, _ := newSigner(t)
	type holder struct {
		Exported *webhook.Signer
		value    webhook.Signer
		pointer  *webhook.Signer
	}
	h := holder{Exported: signer, value: *signer, pointer: signer}
	testkit.NoSecret(t, signer, *signer, h, &h, []any{signer, map[string]any{"s": signer}})
	assert.Equal(t, "webhook.Signer{secret:[REDACTED] expiry:25h0m0s param:runpod_token maxBody:22020096}", fmt.Sprintf("%v", signer))
	assert.Equal(t, fmt.Sprint(signer), fmt.Sprintf("%#v", signer))
	assert.Equal(t, fmt.Sprint(signer), fmt.Sprintf("%x", signer))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q", "%d"} {
		v := fmt.Sprintf(verb, h) // every verb, even those that do not fit
		assert.Empty(t, testkit.Leak(v), v)
		assert.NotContains(t, v, fmt.Sprintf("%x", testSecret))
	}

	logger, lines := testkit.Logger()
	logger.Info("signer", "signer", signer, "value", *signer, "holder", h)
	var jsonLog bytes.Buffer
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Info("signer", "signer", signer, "nested", []any{signer})
	for _, out := range []string{lines.String(), jsonLog.String()} {
		assert.Empty(t, testkit.Leak(out), out)
		assert.Contains(t, out, "[REDACTED]")
	}

	b, err := json.Marshal(map[string]any{"signer": signer, "value": *signer})
	require.NoError(t, err)
	assert.Empty(t, testkit.Leak(string(b)))
	assert.Contains(t, string(b), `"secret":"[REDACTED]"`)

	// Every error the package makes, from each refusal and each
	// validation.
	var all []error
	hook := mustURL(t, signer, base)
	forged, _ := signer.ForgedURL(base)
	for _, r := range []struct{ url, body string }{
		{hook, `{"id":"j","status":"COMPLETED"}`}, {hook, `{"id":"j","status":"COMPLETED"}`}, {hook, `{`},
		{hook, `{"id":"j","status":"IN_QUEUE"}`}, {forged, `{}`}, {base, `{}`}, {base + "?runpod_token=v1.1.2.3.4", `{}`},
	} {
		if _, err := signer.Verify(rawDelivery(r.url, r.body)); err != nil { // the first is accepted
			all = append(all, err)
		}
	}
	_, err = signer.URL("https://u:p@x/")
	all = append(all, err)
	_, err = webhook.NewSigner(testSecret[:20])
	all = append(all, err)
	require.Len(t, all, 8)
	for _, err := range all {
		require.Error(t, err)
		testkit.NoSecret(t, err)
		var e *webhook.Error
		if errors.As(err, &e) {
			assert.NotContains(t, err.Error(), tokenOf(t, hook))
		}
	}
}
