// Command templates lists the account's templates, then creates a pod
// template, changes it, reads it back and deletes it. Its environment holds
// a generated Jupyter password, which is never printed: the SDK shows the
// names of a template's environment variables, never their values.
//
//	go run ./examples/templates                     # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/templates
//
// On your account it costs nothing: a template is a saved configuration,
// not a machine. The one it creates is deleted at the end, even after a
// failure.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/templates"
)

func main() { demo.Main(run) }

// run parses args and takes a template from creation to deletion.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("templates", flag.ContinueOnError)
	name := fs.String("name", "runpod-go-example", "name of the template to create")
	image := fs.String("image", "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04", "container image of the template")
	disk := fs.Int("disk", 20, "container disk in GB, at least 1 (step 3 doubles it)")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	req := templates.CreateTemplateRequest{
		Name:  *name,
		Image: *image,
		Disk:  disk,
		Ports: []string{"8888/http", "22/tcp"},
		Env:   map[string]string{"JUPYTER_PASSWORD": rand.Text()},
	}
	if err := req.Validate(); err != nil {
		return demo.Usage(err) // a bad -name, -image or -disk: nothing is sent
	}
	s, err := demo.Connect(w, option.WithUserAgent("runpod-templates-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	list, err := rp.Templates.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "1. the account has %d template(s)\n", len(list))
	for _, t := range list {
		kind := "pod"
		if t.Serverless {
			kind = "serverless"
		}
		fmt.Fprintf(w, "   %-18s %-20s %-10s %s  env: %s\n", t.ID, t.Name, kind, t.Image, strings.Join(t.Env.Names(), ", "))
	}

	fmt.Fprintf(w, "2. creating %v\n", req) // Env's value shows as [REDACTED]
	tmpl, err := rp.Templates.Create(ctx, req)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "   created template %s (startSsh %t, startJupyter %t by default)\n", tmpl.ID, tmpl.StartSSH, tmpl.StartJupyter)
	id := tmpl.ID
	defer func() { // delete it whatever happens
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := rp.Templates.Delete(cleanup, id); err != nil && !errors.Is(err, errs.ErrNotFound) {
			fmt.Fprintf(w, "   could not delete template %s: %v\n", id, err)
		}
	}()

	tmpl, err = rp.Templates.Update(ctx, id, templates.UpdateTemplateRequest{Disk: runpod.Ptr(2 * *disk)})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	fmt.Fprintf(w, "3. updated: disk %d GB; the ports stayed %s\n", tmpl.Disk, strings.Join(tmpl.Ports, ", "))

	tmpl, err = rp.Templates.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	fmt.Fprintf(w, "4. read back: %v\n", tmpl)

	if err := rp.Templates.Delete(ctx, id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	fmt.Fprintf(w, "5. deleted %s\n", id)
	return nil
}
