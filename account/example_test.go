package account_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/account"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// Read the account's SSH keys, add one, and remove them all. SetSSHKeys
// replaces the whole set, so adding a key is read, append, set.
func Example() {
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	srv.SetSSHKeys("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com")
	rp, _ := srv.NewClient()
	ctx := context.Background()

	keys, err := rp.Account.SSHKeys(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(keys), "key:", comment(keys[0]))

	// The content of ~/.ssh/id_ecdsa.pub, as os.ReadFile returns it.
	pub := "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV0U2w0WZ2YB/++Tpockg= laptop\n"
	keys, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: append(keys, strings.TrimSpace(pub))})
	fmt.Println(len(keys), "keys, the new one:", comment(keys[1]), err)

	keys, err = rp.Account.SetSSHKeys(ctx, account.UpdateSSHKeysRequest{Keys: []string{}})
	fmt.Println(len(keys), "keys", err)
	// Output:
	// 1 key: me@example.com
	// 2 keys, the new one: laptop <nil>
	// 0 keys <nil>
}

// comment returns the comment of a public key line.
func comment(line string) string {
	f := strings.Fields(line)
	return f[len(f)-1]
}

// A key that is not one public key line is refused before anything is
// sent, naming the entry; the error does not quote the key.
func ExampleService_SetSSHKeys() {
	rp, _ := runpod.NewClient(option.WithAPIKey("rpa_example"))
	_, err := rp.Account.SetSSHKeys(context.Background(), account.UpdateSSHKeysRequest{Keys: []string{
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com\n",
	}})
	var ve *errs.ValidationError
	fmt.Println(errors.As(err, &ve), ve.Field)
	fmt.Println(ve.Message)
	// Output:
	// true UpdateSSHKeysRequest.Keys[0]
	// ends with a line break; trim it (strings.TrimSpace)
}
