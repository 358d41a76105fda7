// Command endpoints walks through a serverless endpoint's life: create it,
// list it, change one setting (and see that the others survived the
// platform's full-replace save), scale it to zero and delete it.
//
//	go run ./examples/endpoints                     # on the built-in fake platform
//	RUNPOD_API_KEY=… go run ./examples/endpoints -template <template id>
//
// On your account the endpoint is created with no running workers and is
// deleted at the end, so it costs nothing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/serverless"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("endpoints", flag.ContinueOnError)
	template := fs.String("template", "", "serverless template id (default: the demo template, offline)")
	name := fs.String("name", "runpod-go-example", "endpoint name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := demo.Connect(w, runpod.WithUserAgent("runpod-endpoints-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	if *template == "" {
		if s.Fake == nil {
			return errors.New("-template is required with RUNPOD_API_KEY set")
		}
		*template = demo.DemoTemplate
	}
	eps := s.Client.Serverless.Endpoints

	// 1. Create, scaled to zero, with settings worth keeping.
	ep, err := eps.Create(ctx, serverless.EndpointParams{
		Name:        *name,
		TemplateID:  *template,
		GPUs:        []serverless.GPUPool{serverless.Ada24, serverless.Ampere24},
		Locations:   []serverless.Location{serverless.US, serverless.RO},
		IdleTimeout: runpod.Ptr(30),
		FlashBoot:   serverless.FlashBootOn,
		ScalerType:  serverless.QueueDelay,
		ScalerValue: runpod.Ptr(2),
		WorkersMin:  runpod.Ptr(0),
		WorkersMax:  runpod.Ptr(2),
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(w, "1. created %s %q\n   %s\n", ep.ID, ep.Name, describe(ep))
	deleted := false
	defer func() {
		if !deleted { // clean up on the way out of a failure
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = eps.ScaleDownAndDelete(cleanup, ep.ID, runpod.Poll[int]{})
		}
	}()

	// 2. List.
	list, err := eps.List(ctx)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	fmt.Fprintf(w, "2. the account has %d endpoint(s)", len(list.Endpoints))
	if list.Discount != nil {
		fmt.Fprintf(w, " and a %s discount (factor %.2f)", list.Discount.Type, list.Discount.Factor)
	}
	fmt.Fprintln(w)

	// 3. Change one setting; Update sends back everything else.
	ep, err = eps.Update(ctx, ep.ID, func(spec *serverless.EndpointParams) {
		spec.WorkersMin = runpod.Ptr(1)
	})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	fmt.Fprintf(w, "3. set workersMin to 1; everything else survived:\n   %s\n", describe(ep))

	// 4. Scale to zero, wait for the workers to go, delete.
	err = eps.ScaleDownAndDelete(ctx, ep.ID, runpod.Poll[int]{
		Interval: 100 * time.Millisecond,
		OnCheck:  func(n int) { fmt.Fprintf(w, "4. scaled to zero: %d worker(s) left\n", n) },
	})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	deleted = true
	fmt.Fprintf(w, "5. deleted %s\n", ep.ID)
	return nil
}

func describe(ep *serverless.Endpoint) string {
	return fmt.Sprintf("gpus=%s locations=%s idleTimeout=%ds flashBoot=%s scaler=%s/%d workers=%d..%d",
		join(ep.GPUs), join(ep.Locations), deref(ep.IdleTimeout), ep.FlashBoot, ep.ScalerType, deref(ep.ScalerValue),
		deref(ep.WorkersMin), deref(ep.WorkersMax))
}

func join[T ~string](ids []T) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = string(id)
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, ",")
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
