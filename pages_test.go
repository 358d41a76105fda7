package runpod_test

import (
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/catalog"
	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/templates"
	"github.com/runpodkit/runpod-go/volumes"
)

// walks are the two ways of reading a list: List, and the iterator; each
// returns the ids it read, or the error it ended with.
type walks struct{ list, all func() ([]string, error) }

// walksOf reads a list through list and all, naming each item by id.
func walksOf[T any](list func() ([]T, error), all iter.Seq2[T, error], id func(T) string) walks {
	return walks{
		list: func() ([]string, error) {
			items, err := list()
			if err != nil {
				return nil, err
			}
			out := make([]string, len(items))
			for i, v := range items {
				out[i] = id(v)
			}
			return out, nil
		},
		all: func() ([]string, error) {
			var out []string
			for v, err := range all {
				if err != nil {
					return nil, err
				}
				out = append(out, id(v))
			}
			return out, nil
		},
	}
}

// TestListsFollowPages: 2,500 pods, templates, endpoints, network volumes
// and registry credentials listed 100 a page (25 pages each): List and
// the iterator each give every item exactly once, in 25 requests.
func TestListsFollowPages(t *testing.T) {
	const n, size = 2500, 100
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	t.Cleanup(srv.Close)
	want := map[string][]string{}
	add := func(route, id string) { want[route] = append(want[route], id) }
	shared := srv.StoreTemplate(runpodtest.Template{Name: "shared", Image: "img:1", Serverless: true})
	add(runpodtest.RouteTemplates, shared)
	for i := range n {
		name := fmt.Sprintf("paged-%04d", i)
		add(runpodtest.RoutePods, srv.AddPod(runpodtest.Pod{Name: name, Image: "img:1", GPU: "NVIDIA GeForce RTX 4090"}))
		add(runpodtest.RouteTemplates, srv.StoreTemplate(runpodtest.Template{Name: name, Image: "img:1"}))
		add(runpodtest.RouteEndpoints, srv.AddEndpoint(runpodtest.Endpoint{Name: name, TemplateID: shared}))
		add(runpodtest.RouteNetworkVolumes, srv.AddNetworkVolume(runpodtest.NetworkVolume{Name: name}))
		add(runpodtest.RouteRegistries, srv.AddRegistry(name))
	}
	rp, err := srv.NewClient(option.WithPageSize(size))
	require.NoError(t, err)
	ctx := t.Context()
	for _, c := range []struct {
		route string
		walks
	}{
		{runpodtest.RoutePods, walksOf(func() ([]pods.Pod, error) { return rp.Pods.List(ctx, pods.ListPodsParams{}) },
			rp.Pods.All(ctx, pods.ListPodsParams{}), func(p pods.Pod) string { return p.ID })},
		{runpodtest.RouteTemplates, walksOf(func() ([]templates.Template, error) { return rp.Templates.List(ctx) },
			rp.Templates.All(ctx), func(t templates.Template) string { return t.ID })},
		{runpodtest.RouteEndpoints, walksOf(func() ([]serverless.Endpoint, error) { return rp.Serverless.Endpoints.List(ctx) },
			rp.Serverless.Endpoints.All(ctx), func(e serverless.Endpoint) string { return e.ID })},
		{runpodtest.RouteNetworkVolumes, walksOf(func() ([]volumes.NetworkVolume, error) { return rp.Volumes.List(ctx) },
			rp.Volumes.All(ctx), func(v volumes.NetworkVolume) string { return v.ID })},
		{runpodtest.RouteRegistries, walksOf(func() ([]registries.Registry, error) { return rp.Registries.List(ctx) },
			rp.Registries.All(ctx), func(r registries.Registry) string { return r.ID })},
	} {
		t.Run(c.route, func(t *testing.T) {
			expect := slices.Sorted(slices.Values(want[c.route]))
			pages := (len(expect) + size - 1) / size
			for way, walk := range map[string]func() ([]string, error){"List": c.list, "iterator": c.all} {
				before := srv.Count(c.route)
				got, err := walk()
				require.NoError(t, err, way)
				require.Len(t, got, len(expect), way)
				slices.Sort(got)
				require.Equal(t, expect, got, "%s: every item exactly once", way)
				require.Equal(t, pages, srv.Count(c.route)-before, "%s: one request a page", way)
			}
		})
	}
}

// TestEveryListFollowsPages: the other lists, two items a page on the
// fake's side (runpodtest.WithPageSize), through List and the iterator:
// clusters and a cluster's pods, ECR delegations, and the catalog's GPU
// types, CPU flavors and data centers.
func TestEveryListFollowsPages(t *testing.T) {
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithPageSize(2))
	t.Cleanup(srv.Close)
	rp, err := srv.NewClient()
	require.NoError(t, err)
	ctx := t.Context()
	var clusterIDs, delegationIDs []string
	for i := range 5 {
		clusterIDs = append(clusterIDs, srv.AddCluster(runpodtest.Cluster{Name: fmt.Sprintf("cl-%d", i), GPU: "NVIDIA H100 80GB HBM3", PodCount: 2 + i}))
		delegationIDs = append(delegationIDs, srv.AddDelegation(runpodtest.Delegation{Resource: fmt.Sprintf("arn:aws:ecr:us-east-2:123456789012:repository/team/app%d", i)}))
	}
	both := func(name string, w walks, want []string) {
		t.Helper()
		require.Greater(t, len(want), 2, "%s: more than a page", name)
		for way, walk := range map[string]func() ([]string, error){"List": w.list, "iterator": w.all} {
			got, err := walk()
			require.NoError(t, err, "%s %s", name, way)
			require.ElementsMatch(t, want, got, "%s %s", name, way)
		}
	}
	both("clusters", walksOf(func() ([]clusters.Cluster, error) { return rp.Clusters.List(ctx) },
		rp.Clusters.All(ctx), func(c clusters.Cluster) string { return c.ID }), clusterIDs)
	last := srv.Clusters()[slices.IndexFunc(srv.Clusters(), func(c runpodtest.Cluster) bool { return c.ID == clusterIDs[4] })]
	require.Len(t, last.PodIDs, 6)
	both("cluster pods", walksOf(func() ([]pods.Pod, error) { return rp.Clusters.Pods(ctx, last.ID) },
		rp.Clusters.AllPods(ctx, last.ID), func(p pods.Pod) string { return p.ID }), last.PodIDs)
	both("delegations", walksOf(func() ([]registries.ECRDelegation, error) { return rp.Registries.ListDelegations(ctx) },
		rp.Registries.AllDelegations(ctx), func(d registries.ECRDelegation) string { return d.ID }), delegationIDs)
	var globalIDs []string
	for i := range 5 {
		globalIDs = append(globalIDs, srv.AddGlobalVolume(runpodtest.GlobalVolume{Name: fmt.Sprintf("gv-%d", i)}))
	}
	both("global volumes", walksOf(func() ([]globalvolumes.GlobalVolume, error) { return rp.GlobalVolumes.List(ctx) },
		rp.GlobalVolumes.All(ctx), func(v globalvolumes.GlobalVolume) string { return v.ID }), globalIDs)

	// The catalog: what a walk of an unpaged fake returns.
	whole := runpodtest.NewServer(contract.Check(), runpodtest.WithoutPagination())
	t.Cleanup(whole.Close)
	ref, err := whole.NewClient()
	require.NoError(t, err)
	gpu := func(g catalog.GPUType) string { return g.ID }
	cpu := func(c catalog.CPUType) string { return c.ID }
	dc := func(d catalog.DataCenter) string { return d.ID }
	want := func(w walks) []string {
		ids, err := w.list()
		require.NoError(t, err)
		return ids
	}
	both("GPU types", walksOf(func() ([]catalog.GPUType, error) { return rp.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{}) },
		rp.Catalog.AllGPUTypes(ctx, catalog.ListGPUTypesParams{}), gpu),
		want(walksOf(func() ([]catalog.GPUType, error) { return ref.Catalog.GPUTypes(ctx, catalog.ListGPUTypesParams{}) }, nil, gpu)))
	both("CPU types", walksOf(func() ([]catalog.CPUType, error) { return rp.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{}) },
		rp.Catalog.AllCPUTypes(ctx, catalog.ListCPUTypesParams{}), cpu),
		want(walksOf(func() ([]catalog.CPUType, error) { return ref.Catalog.CPUTypes(ctx, catalog.ListCPUTypesParams{}) }, nil, cpu)))
	both("data centers", walksOf(func() ([]catalog.DataCenter, error) {
		return rp.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
	},
		rp.Catalog.AllDataCenters(ctx, catalog.ListDataCentersParams{}), dc),
		want(walksOf(func() ([]catalog.DataCenter, error) {
			return ref.Catalog.DataCenters(ctx, catalog.ListDataCentersParams{})
		}, nil, dc)))
}
