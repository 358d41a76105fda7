package account_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Keys in the shapes the platform takes: the document's example, an ECDSA
// key with a tab before its comment, and a security key without comment.
const (
	ed25519Key  = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com"
	ecdsaKey    = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV0U2w0WZ2YB/++Tpockg=\twork laptop"
	securityKey = "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIFpQ9+A3NqoQeXWC0R0mZJ0jXq8Dn1Ucj5tS2vXm7QvAAAAABHNzaDo="
)

func fake(t *testing.T) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(option.WithLogger(log))
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

func last(srv *runpodtest.Server) runpodtest.Request {
	r := srv.Requests()
	return r[len(r)-1]
}

func TestSSHKeys(t *testing.T) {
	srv, rp := fake(t)
	keys, err := rp.Account.SSHKeys(t.Context())
	require.NoError(t, err)
	assert.NotNil(t, keys, "no keys is an empty slice")
	assert.Empty(t, keys)

	srv.SetSSHKeys(ed25519Key, ecdsaKey)
	keys, err = rp.Account.SSHKeys(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{ed25519Key, ecdsaKey}, keys)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteSSHKeys, r.Route)
	assert.Equal(t, "/v2/account/ssh-keys", r.Path)
}

// TestSetSSHKeysReplaces: the keys sent are the whole new set, the answer
// is the set kept, and an empty list removes every key.
func TestSetSSHKeysReplaces(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	srv.SetSSHKeys(ed25519Key)

	keys, err := rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{ecdsaKey, securityKey}})
	require.NoError(t, err)
	assert.Equal(t, []string{ecdsaKey, securityKey}, keys)
	r := last(srv)
	assert.Equal(t, runpodtest.RouteSetSSHKeys, r.Route)
	assert.Equal(t, http.StatusOK, r.Status)
	var sent map[string][]string
	require.NoError(t, json.Unmarshal(r.Body, &sent))
	assert.Equal(t, map[string][]string{"keys": {ecdsaKey, securityKey}}, sent)

	keys, err = rp.Account.SSHKeys(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{ecdsaKey, securityKey}, keys, "the key left out is gone")

	keys, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{}})
	require.NoError(t, err)
	assert.Empty(t, keys)
	assert.JSONEq(t, `{"keys":[]}`, string(last(srv).Body))
	keys, err = rp.Account.SSHKeys(ctx)
	require.NoError(t, err)
	assert.Empty(t, keys)
}

// TestSetSSHKeysRefusesBadKeys: a malformed key, or a nil list, is refused
// before anything is sent, naming the entry and never quoting the key.
func TestSetSSHKeysRefusesBadKeys(t *testing.T) {
	srv, rp := fake(t)
	const private = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
	cases := []struct {
		name, key, says string
	}{
		{"a private key", private, "private key"},
		{"a trailing newline", ed25519Key + "\n", "line break"},
		{"two lines", ed25519Key + "\n" + ecdsaKey, "more than one line"},
		{"no key", "ssh-ed25519", "<type> <base64 key> [comment]"},
		{"an empty entry", "", "<type> <base64 key> [comment]"},
		{"a leading space", " " + ed25519Key, "<type> <base64 key> [comment]"},
		{"two spaces after the type", "ssh-ed25519  AAAAC3NzaC1lZDI1NTE5", "<type> <base64 key> [comment]"},
		{"a tab after the type", "ssh-ed25519\tAAAAC3NzaC1lZDI1NTE5", "<type> <base64 key> [comment]"},
		{"an unknown type", "rsa AAAAB3NzaC1yc2E= me", "key type"},
		{"a bare prefix", "ssh- AAAAB3NzaC1yc2E= me", "key type"},
		{"a body that is not base64", "ssh-ed25519 not*base64 me", "not base64"},
		{"a truncated body", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/Scl me", "not base64"},
	}
	before := srv.Count("*")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rp.Account.SetSSHKeys(t.Context(), account.UpdateSSHKeysRequest{Keys: []string{ed25519Key, tc.key}})
			var ve *errs.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.ErrorIs(t, err, errs.ErrValidation)
			assert.Equal(t, "UpdateSSHKeysRequest.Keys[1]", ve.Field)
			assert.Contains(t, ve.Message, tc.says)
			if len(tc.key) > 12 {
				assert.NotContains(t, err.Error(), tc.key[12:], "the key is not quoted")
			}
		})
	}
	_, err := rp.Account.SetSSHKeys(t.Context(), account.UpdateSSHKeysRequest{})
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "UpdateSSHKeysRequest.Keys", ve.Field, "nil is not taken for \"remove every key\"")
	assert.Equal(t, before, srv.Count("*"), "nothing was sent")
}

// TestPlatformErrors: the platform's refusals are typed errors: a key
// without account:write gets 403, a 422 carries the failed checks.
func TestPlatformErrors(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	reader, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionAccountRead)))
	require.NoError(t, err)
	t.Cleanup(reader.CloseIdleConnections)
	_, err = reader.Account.SSHKeys(ctx)
	require.NoError(t, err)
	_, err = reader.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{ed25519Key}})
	require.ErrorIs(t, err, errs.ErrForbidden)
	var apiErr *errs.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusForbidden, apiErr.StatusCode)

	srv.FailNext(runpodtest.RouteSetSSHKeys, 1, runpodtest.Fault{Status: http.StatusUnprocessableEntity})
	before := srv.Count(runpodtest.RouteSetSSHKeys)
	_, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{ed25519Key}})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode)
	assert.Equal(t, before+1, srv.Count(runpodtest.RouteSetSSHKeys), "a 422 is not retried")
}

// TestRetries: both calls are retried after a connection dropped once the
// platform acted: reading twice, or setting the same keys twice, changes
// nothing.
func TestRetries(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	srv.SetSSHKeys(ed25519Key)
	srv.FailNext(runpodtest.RouteSSHKeys, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	keys, err := rp.Account.SSHKeys(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{ed25519Key}, keys)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteSSHKeys))

	srv.FailNext(runpodtest.RouteSetSSHKeys, 1, runpodtest.Fault{Drop: runpodtest.DropAfter})
	keys, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{ecdsaKey}})
	require.NoError(t, err)
	assert.Equal(t, []string{ecdsaKey}, keys)
	assert.Equal(t, 2, srv.Acted(runpodtest.RouteSetSSHKeys), "the PUT was sent again")
}

// TestEveryOperationKeepsTheDocument sends both account operations
// (getSshKeys, updateSshKeys) through the fake, which checks each request
// and response against the REST v2 document: none is refused or a 500.
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	srv, rp := fake(t)
	ctx := t.Context()
	_, err := rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{ed25519Key, ecdsaKey, securityKey}})
	require.NoError(t, err)
	_, err = rp.Account.SSHKeys(ctx)
	require.NoError(t, err)
	_, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{}})
	require.NoError(t, err)
	_, err = rp.Account.SSHKeys(ctx)
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		assert.Equal(t, http.StatusOK, r.Status, "%s %s %s", r.Method, r.Path, r.Body)
	}
}

// TestFakeRefusesWhatTheDocumentRefuses: bodies the SDK's checks stop,
// sent raw with rp.Do, are refused by the fake with 422 naming the entry,
// and the keys stay as they were.
func TestFakeRefusesWhatTheDocumentRefuses(t *testing.T) {
	srv, rp := fake(t)
	srv.SetSSHKeys(ed25519Key)
	cases := []struct{ name, body, field string }{
		{"no keys", `{}`, "keys"},
		{"null keys", `{"keys":null}`, "$.keys"},
		{"an unknown property", `{"keys":[],"bogus":1}`, "bogus"},
		{"an unknown type", `{"keys":["rsa AAAA me"]}`, "$.keys.0"},
		{"a trailing newline", `{"keys":["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n"]}`, "$.keys.0"},
		{"a body that is not base64", `{"keys":["` + ed25519Key + `","ssh-ed25519 not*base64"]}`, "$.keys[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := rp.Do(t.Context(), http.MethodPut, "/v2/account/ssh-keys", json.RawMessage(tc.body), nil)
			var apiErr *errs.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode)
			assert.True(t, slices.ContainsFunc(apiErr.Errors, func(e string) bool { return strings.Contains(e, tc.field) }),
				"%q names %s", apiErr.Errors, tc.field)
		})
	}
	keys, err := rp.Account.SSHKeys(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{ed25519Key}, keys)
}
