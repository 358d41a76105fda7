// Command account lists the SSH public keys registered on the account
// (the keys pods created with SSH accept), each with its fingerprint, and
// adds or removes one.
//
//	go run ./examples/account                                   # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/account
//	RUNPOD_API_KEY=… go run ./examples/account -add ~/.ssh/id_ed25519.pub
//	RUNPOD_API_KEY=… go run ./examples/account -remove SHA256:…
//
// It costs nothing. Without -add or -remove it only reads; with one of
// them it changes the keys registered on your account (the platform
// replaces the whole set, so the example reads it, changes it and sends
// all of it back). Pods created afterwards get the new keys; running pods
// keep theirs.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
)

func main() { demo.Main(run) }

// run parses args, lists the keys and applies -add or -remove.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("account", flag.ContinueOnError)
	add := fs.String("add", "", "a public key file (such as ~/.ssh/id_ed25519.pub) whose key to register")
	remove := fs.String("remove", "", "the fingerprint (SHA256:…, as listed) of a registered key to remove")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	if *add != "" && *remove != "" {
		return demo.Usagef("-add and -remove do not go together: run once for each")
	}
	if *remove != "" && !strings.HasPrefix(*remove, "SHA256:") {
		return demo.Usagef("-remove: want a fingerprint as listed, SHA256:…, got %q", *remove)
	}
	var newKey string
	if *add != "" {
		b, err := os.ReadFile(*add)
		if err != nil {
			return fmt.Errorf("-add: %w", err)
		}
		newKey = strings.TrimSpace(string(b))
		// The SDK checks the key before it sends it; checking here too
		// makes a bad file a usage error, found before connecting. The
		// message does not quote the file: it may be a private key.
		if err := (&account.UpdateSSHKeysRequest{Keys: []string{newKey}}).Validate(); err != nil {
			var ve *errs.ValidationError
			if errors.As(err, &ve) {
				return demo.Usagef("-add %s: %s", *add, ve.Message)
			}
			return demo.Usage(err)
		}
	}

	s, err := demo.Connect(w, option.WithUserAgent("runpod-account-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	acct := s.Client.Account

	// 1. The keys registered now.
	keys, err := acct.SSHKeys(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "1. the account has %s:\n", count(len(keys)))
	list(w, keys)

	// 2. The change, if one was asked for: the whole new set is sent.
	var next []string
	switch {
	case newKey != "":
		if slices.ContainsFunc(keys, func(k string) bool { return fingerprint(k) == fingerprint(newKey) }) {
			fmt.Fprintf(w, "2. %s is registered already: nothing to change\n", fingerprint(newKey))
			return nil
		}
		next = append(slices.Clip(keys), newKey)
	case *remove != "":
		next = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return fingerprint(k) == *remove })
		if len(next) == len(keys) {
			return fmt.Errorf("-remove: no registered key has the fingerprint %s", *remove)
		}
	default:
		return nil
	}
	if next == nil {
		next = []string{} // an empty set removes every key; nil is refused
	}
	keys, err = acct.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: next})
	if err != nil {
		return fmt.Errorf("set: %w", err)
	}
	fmt.Fprintf(w, "2. the account has %s now (pods created from now on get them):\n", count(len(keys)))
	list(w, keys)
	return nil
}

// list writes one line per key: its type, fingerprint and comment.
func list(w io.Writer, keys []string) {
	for _, k := range keys {
		typ, _, _ := strings.Cut(k, " ")
		fmt.Fprintf(w, "   %s %s %s\n", typ, fingerprint(k), comment(k))
	}
}

// fingerprint is the key's SHA-256 fingerprint as ssh-keygen -l shows
// it: the hash of the decoded key, in unpadded base64.
func fingerprint(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "SHA256:?"
	}
	blob, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil {
		return "SHA256:?"
	}
	sum := sha256.Sum256(blob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// comment is the key's comment, or "(no comment)".
func comment(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return "(no comment)"
	}
	return strings.Join(f[2:], " ")
}

// count says how many keys, in words.
func count(n int) string {
	if n == 1 {
		return "1 SSH key"
	}
	return fmt.Sprintf("%d SSH keys", n)
}
