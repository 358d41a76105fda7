// Package account reads and replaces the account's registered SSH public
// keys over the platform's REST v2 API. These are the keys the platform
// puts into pods created with StartSSH, and that authenticate both ways of
// reaching a pod with SSH (through the proxy and directly).
//
//	keys, err := rp.Account.SSHKeys(ctx) // ["ssh-ed25519 AAAA… me@example.com"]
//
//	pub, err := os.ReadFile(os.ExpandEnv("$HOME/.ssh/id_ed25519.pub"))
//	keys, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{
//		Keys: append(keys, strings.TrimSpace(string(pub))),
//	})
//
// Service (runpod.Client.Account) has two calls. SSHKeys lists the
// registered keys. SetSSHKeys replaces the whole set with the one given
// and returns the set the platform kept: a key left out is removed, so to
// add one, read the keys, append, and set them all. Keys given to the
// platform reach only pods created afterwards; running pods keep the keys
// they started with.
//
// The request and response types are generated from the platform's REST
// v2 document and keep its names: UpdateSSHKeysRequest and SSHKeys.
// SetSSHKeys checks each key before anything is sent: one public key line,
// "<type> <base64 key> [comment]" (the type such as ssh-ed25519,
// ecdsa-sha2-nistp256 or sk-ssh-ed25519@openssh.com), without a line
// ending. A key that is not, or a nil Keys, is a *errs.ValidationError
// naming the entry, such as "UpdateSSHKeysRequest.Keys[1]"; the message
// never repeats the key, so a private key pasted by mistake does not end
// up in a log.
//
// Both calls are retried after a failure that may have reached the
// platform: reading changes nothing, and setting the same keys twice
// leaves the same keys.
package account

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/internal/rest"
	"github.com/runpodkit/runpod-go/option"
)

// sshKeysRoute is the route of both operations (getSshKeys,
// updateSshKeys).
const sshKeysRoute = "/v2/account/ssh-keys"

// SSHKeys returns the account's registered SSH public keys, one public key
// line each; none is an empty slice.
func (s *Service) SSHKeys(ctx context.Context, opts ...option.RequestOption) ([]string, error) {
	r, err := rest.Call[sshKeys](ctx, s.t, http.MethodGet, rest.At(sshKeysRoute), nil, opts)
	if err != nil {
		return nil, err
	}
	if r.Keys == nil {
		return []string{}, nil
	}
	return r.Keys, nil
}

// SetSSHKeys replaces the account's registered SSH public keys with
// req.Keys and returns the keys registered now. It is a replacement, not
// an addition: keys not in req.Keys are removed, and an empty, non-nil
// req.Keys removes them all. The keys are checked first (see Validate);
// nothing is sent when one is malformed. The platform's own refusal of a
// key is a *errs.APIError with status 422.
func (s *Service) SetSSHKeys(ctx context.Context, req UpdateSSHKeysRequest, opts ...option.RequestOption) ([]string, error) {
	out, err := rest.Call[sshKeys](ctx, s.t, http.MethodPut, rest.At(sshKeysRoute), &req, opts)
	if err != nil {
		return nil, err
	}
	if out.Keys == nil {
		return []string{}, nil
	}
	return out.Keys, nil
}

// Validate checks the request before anything is sent: Keys is not nil
// (an empty slice removes every key; nil is taken for a mistake), and
// each key is one public key line, "<type> <base64 key> [comment]", as a
// .pub file holds it without its line ending. The type starts with ssh-,
// ecdsa- or sk-, one space separates it from the key, and the key is
// standard base64. The error names the entry and never quotes the key.
func (r *UpdateSSHKeysRequest) Validate() error {
	if r.Keys == nil {
		return fail.Invalid("UpdateSSHKeysRequest.Keys", "is nil; give the complete set of keys (an empty, non-nil slice removes them all)")
	}
	for i, k := range r.Keys {
		if msg := checkKeyLine(k); msg != "" {
			return fail.Invalid(fmt.Sprintf("UpdateSSHKeysRequest.Keys[%d]", i), "%s", msg)
		}
	}
	return nil
}

// keyShape is how a key line should look, for the messages.
const keyShape = `want one public key line, "<type> <base64 key> [comment]" (the content of a .pub file)`

// checkKeyLine says what is wrong with an SSH public key line, or "" when
// it has the shape the REST v2 document gives: a type (ssh-…, ecdsa-… or
// sk-…), one space, the key in base64, and optionally a space or a tab and
// a comment, all on one line. The message does not quote the line.
func checkKeyLine(line string) string {
	if strings.Contains(line, "PRIVATE KEY") {
		return "this is a private key, which must never leave your machine; give the public key (the .pub file) instead"
	}
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		if strings.TrimRight(line, "\r\n") != line[:i] {
			return "holds more than one line; give one key per entry"
		}
		return "ends with a line break; trim it (strings.TrimSpace)"
	}
	typ, rest, ok := strings.Cut(line, " ")
	if !ok || typ == "" || strings.IndexFunc(typ, unicode.IsSpace) >= 0 {
		return keyShape
	}
	if !validKeyType(typ) {
		return "the key type (the first word) must start with ssh-, ecdsa- or sk-, such as ssh-ed25519; " + keyShape
	}
	body := rest
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		body = rest[:i]
	}
	if body == "" {
		return keyShape
	}
	if b, err := base64.StdEncoding.DecodeString(body); err != nil || len(b) == 0 {
		return "the key (the second word) is not base64; " + keyShape
	}
	return ""
}

// validKeyType reports whether typ is a key type as the document allows
// it: ssh-, ecdsa- or sk-, then at least one more character.
func validKeyType(typ string) bool {
	for _, p := range []string{"ssh-", "ecdsa-", "sk-"} {
		if rest, ok := strings.CutPrefix(typ, p); ok && rest != "" {
			return true
		}
	}
	return false
}
