package account_test

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/internal/apispec"
)

// keyPattern is the REST v2 document's pattern for a key of
// UpdateSshKeysRequest, read from the document itself.
func keyPattern(t testing.TB) *regexp.Regexp {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas struct {
				UpdateSSHKeysRequest struct {
					Properties struct {
						Keys struct {
							Items struct {
								Pattern string `json:"pattern"`
							} `json:"items"`
						} `json:"keys"`
					} `json:"properties"`
				} `json:"UpdateSshKeysRequest"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(apispec.RESTv2, &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Components.Schemas.UpdateSSHKeysRequest.Properties.Keys.Items.Pattern
	if p == "" {
		t.Fatal("the document gives no pattern for a key")
	}
	return regexp.MustCompile(p)
}

// FuzzSSHKeyLine: every key line Validate accepts matches the document's
// pattern and has a base64 key; every line that matches the pattern, has a
// base64 key and is not a private key is accepted; a refusal never quotes
// the line.
func FuzzSSHKeyLine(f *testing.F) {
	for _, s := range []string{ed25519Key, ecdsaKey, securityKey, ed25519Key + "\n", "ssh-ed25519", "rsa AAAA", "ssh-ed25519  AAAA",
		"ssh-ed25519 AAAA\tc", "sk-x AAAA c\x0b", "ecdsa-\u00a0 AAAA", "ssh-ed25519 AAAA\u2028x", "ssh-a AAAA==\x0c"} {
		f.Add(s)
	}
	pattern := keyPattern(f)
	f.Fuzz(func(t *testing.T, line string) {
		err := (&account.UpdateSSHKeysRequest{Keys: []string{line}}).Validate()
		_, rest, _ := strings.Cut(line, " ")
		body, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " ")
		b, decodeErr := base64.StdEncoding.DecodeString(body)
		base64Body := decodeErr == nil && len(b) > 0
		if err == nil {
			if !pattern.MatchString(line) || !base64Body {
				t.Fatalf("accepted %q: matches the pattern %v, base64 key %v", line, pattern.MatchString(line), base64Body)
			}
			return
		}
		if len(line) >= 8 && strings.Contains(err.Error(), line) {
			t.Fatalf("the error quotes the line: %v", err)
		}
		typ, _, _ := strings.Cut(line, " ")
		if pattern.MatchString(line) && base64Body && !strings.Contains(line, "PRIVATE KEY") && !strings.ContainsFunc(typ, unicode.IsSpace) {
			t.Fatalf("refused %q, which the document allows: %v", line, err)
		}
	})
}
