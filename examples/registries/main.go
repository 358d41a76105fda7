// Command registries lists the account's private-registry credentials and
// Amazon ECR delegations, then stores a credential, reads it back and
// deletes it. The password is read from REGISTRY_PASSWORD, never from a
// flag, and is write-only: the platform never returns it, and the SDK
// never prints it.
//
//	go run ./examples/registries                    # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/registries   # lists only
//	RUNPOD_API_KEY=… REGISTRY_PASSWORD=… go run ./examples/registries -username me
//
// It costs nothing. On your account it stores a credential only with
// -username, and deletes it at the end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/registries"
)

func main() { demo.Main(run) }

// PasswordEnv names the environment variable the password is read from.
const PasswordEnv = "REGISTRY_PASSWORD"

// run parses args, lists the credentials and delegations, and takes a
// credential from creation to deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("registries", flag.ContinueOnError)
	name := fs.String("name", "runpod-go-example", "name of the credential to store")
	username := fs.String("username", "", "registry user name; on your account, storing a credential needs it (offline: demo)")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	create := registries.CreateRegistryRequest{Name: *name, Username: *username, Password: os.Getenv(PasswordEnv)}
	switch {
	case demo.Online() && create.Username == "" && create.Password != "":
		return demo.Usagef("%s is set: give -username to store a credential with it", PasswordEnv)
	case demo.Online() && create.Username != "" && create.Password == "":
		return demo.Usagef("set %s to the registry's password or access token (it is not taken as a flag)", PasswordEnv)
	case !demo.Online():
		if create.Username == "" {
			create.Username = "demo"
		}
		if create.Password == "" {
			create.Password = "demo-password"
		}
	}
	store := create.Username != ""
	if store {
		if err := create.Validate(); err != nil {
			return demo.Usage(err)
		}
	}

	s, err := demo.Connect(w, option.WithUserAgent("runpod-registries-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	list, err := rp.Registries.List(ctx)
	if err != nil {
		return fmt.Errorf("list credentials: %w", err)
	}
	fmt.Fprintf(w, "1. %d registry credential(s)\n", len(list))
	for _, r := range list {
		fmt.Fprintf(w, "   %-10s %s\n", r.ID, r.Name)
	}

	dels, err := rp.Registries.ListDelegations(ctx)
	if err != nil {
		return fmt.Errorf("list ECR delegations: %w", err)
	}
	fmt.Fprintf(w, "2. %d ECR delegation(s)\n", len(dels))
	for _, d := range dels {
		host := "-"
		if d.DockerRegistryURI != nil {
			host = *d.DockerRegistryURI
		}
		fmt.Fprintf(w, "   %-18s %s:%s in %s (docker login %s)\n", d.ID, d.Repository, d.Tag, d.AWSRegion, host)
	}

	if !store {
		fmt.Fprintf(w, "To store and delete a credential too, run with -username and %s set.\n", PasswordEnv)
		return nil
	}
	fmt.Fprintf(w, "3. storing %v\n", create) // the password prints as [REDACTED]
	reg, err := rp.Registries.Create(ctx, create)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "   stored as %s\n", reg.ID)
	defer func() { // delete it whatever happens
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Registries.Delete(cleanup, reg.ID); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete credential %s: %v\n", reg.ID, err)
		}
	}()

	got, err := rp.Registries.Get(ctx, reg.ID)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	fmt.Fprintf(w, "4. read back: id %s, name %s (the username and password are write-only)\n", got.ID, got.Name)

	if err := rp.Registries.Delete(ctx, reg.ID); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	fmt.Fprintln(w, "5. deleted")
	return nil
}
