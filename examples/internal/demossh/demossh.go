// Package demossh gives the examples that reach pods over SSH their key:
// on the real platform, one of the account's keys from a file; offline, a
// new one that the fake account is given. It is a package of its own so
// that examples without SSH do not link it.
package demossh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/pods/podssh"
)

// Key returns the key to log in to pods with. Online it loads the private
// key at path (~/.ssh/id_ed25519 when path is empty; a problem is a
// usage error naming -key); offline it makes a new Ed25519 key and adds
// its public half to the fake account's keys, which the fake's pods
// accept.
func Key(ctx context.Context, rp *runpod.Client, offline bool, path string) (podssh.Key, error) {
	if !offline {
		if path == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return podssh.Key{}, demo.Usagef("-key: %v", err)
			}
			path = filepath.Join(home, ".ssh", "id_ed25519")
		}
		key, err := podssh.LoadKey(path, nil)
		if err != nil {
			return podssh.Key{}, demo.Usage(fmt.Errorf("-key: %w", err))
		}
		return key, nil
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return podssh.Key{}, err
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return podssh.Key{}, err
	}
	key, err := podssh.NewKey(signer)
	if err != nil {
		return podssh.Key{}, err
	}
	keys, err := rp.Account.SSHKeys(ctx)
	if err == nil {
		keys = append(keys, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key.PublicKey()))))
		_, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: keys})
	}
	return key, err
}
