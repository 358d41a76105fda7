// Command catalog answers "which GPU can I get, where, and for how much":
// it lists the data centers, finds the GPU types with enough memory that
// are in stock for pods in the ones you name, cheapest first, and lists the
// public templates. With RUNPOD_API_KEY set it reads the platform's
// catalog; without it, the built-in fake platform's. It only reads.
//
//	go run ./examples/catalog                                   # 48 GB or more, anywhere
//	go run ./examples/catalog -memory 80 -dc US-TX-3,US-KS-2 -cloud community
//	go run ./examples/catalog -memory 24 -count 2 -max-price 0.5 -templates verified
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/option"
)

func main() { demo.Main(run) }

// run parses args, then reads the data centers, the matching GPU types and
// the public templates.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	memory := fs.Int("memory", 48, "least memory per GPU, in GB")
	dcs := fs.String("dc", "", "data centers the GPUs must be in stock in, comma-separated (default: any)")
	cloud := fs.String("cloud", "secure", "secure or community: the stock counted and the price compared")
	count := fs.Int("count", 1, "GPUs per pod")
	maxPrice := fs.Float64("max-price", 0, "most to pay per GPU and hour, in USD (default: any)")
	templates := fs.String("templates", "official", "public templates to list: official, verified or community")
	if err := demo.Parse(fs, args, w); err != nil {
		return err
	}
	q := catalog.GPUQuery{
		MinMemoryGB: *memory,
		Cloud:       catalog.GPUCloudFilter(strings.ToUpper(*cloud)),
		Count:       *count,
		MaxPrice:    *maxPrice,
	}
	for id := range strings.SplitSeq(*dcs, ",") {
		if id = strings.TrimSpace(id); id != "" {
			q.DataCenters = append(q.DataCenters, id)
		}
	}
	source := catalog.ListPublicTemplatesParamsSource(*templates)
	switch {
	case *count < 1:
		return demo.Usagef("-count: want at least 1, got %d", *count)
	case !q.Cloud.Valid():
		return demo.Usagef("-cloud: want secure or community, got %q", *cloud)
	case !source.Valid():
		return demo.Usagef("-templates: want official, verified or community, got %q", *templates)
	}
	if err := q.Validate(); err != nil {
		return demo.Usage(fmt.Errorf("-memory, -max-price: %w", err))
	}

	s, err := demo.Connect(w, option.WithUserAgent("runpod-catalog-example"))
	if err != nil {
		return err
	}
	defer s.Close()
	rp := s.Client

	// 1. The data centers, the asked ones marked; an unknown one is an
	// error here rather than an empty answer below.
	all, err := rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
	if err != nil {
		return fmt.Errorf("data centers: %w", err)
	}
	for _, id := range q.DataCenters {
		if !slices.ContainsFunc(all, func(d catalog.DataCenter) bool { return d.ID == id }) {
			return fmt.Errorf("-dc: the catalog has no data center %q", id)
		}
	}
	fmt.Fprintf(w, "1. %d data centers (* asked for):\n", len(all))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    ID\tNAME\tREGION\tGLOBAL NETWORKING")
	for _, d := range all {
		mark, global := " ", "no"
		if slices.Contains(q.DataCenters, d.ID) {
			mark = "*"
		}
		if d.GlobalNetwork {
			global = "yes"
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\t%s\n", mark, d.ID, d.Name, d.Region, global)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	// 2. The GPU types that fit, cheapest first.
	offers, err := rp.Catalog.FindGPUs(ctx, q)
	if err != nil {
		return fmt.Errorf("GPU types: %w", err)
	}
	where := "any data center"
	if len(q.DataCenters) > 0 {
		where = strings.Join(q.DataCenters, ", ")
	}
	fmt.Fprintf(w, "2. GPU types with at least %d GB, %d per pod, in stock in %s on %s cloud, cheapest first:\n",
		*memory, *count, where, strings.ToLower(string(q.Cloud)))
	if len(offers) == 0 {
		fmt.Fprintln(w, "   none; try less memory, more data centers, the other cloud or a higher -max-price")
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range offers {
		var stock []string
		for _, d := range o.DataCenters {
			stock = append(stock, fmt.Sprintf("%s (%s)", d.ID, d.Availability))
		}
		fmt.Fprintf(tw, "   %s\t%d GB\t$%.2f/h per GPU\t%s\n", o.GPU.Name, o.GPU.Memory, o.Price, strings.Join(stock, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(offers) > 0 {
		best := offers[0]
		fmt.Fprintf(w, "   a pod of the cheapest: GPU.ID %q, DataCenterIDs %q, $%.2f/h for %d\n",
			best.GPU.ID, best.DataCenterIDs(), best.Price*float64(*count), *count)
	}

	// 3. The public templates of the chosen source.
	list, err := rp.Catalog.PublicTemplates(ctx, catalog.ListPublicTemplatesParams{Source: &source})
	if err != nil {
		return fmt.Errorf("public templates: %w", err)
	}
	fmt.Fprintf(w, "3. %d %s public templates:\n", len(list), source)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range list {
		kind := "pod"
		if t.Serverless {
			kind = "serverless"
		}
		fmt.Fprintf(tw, "   %s\t%s\t%s\t%s\n", t.ID, kind, t.Name, t.Image)
	}
	return tw.Flush()
}
