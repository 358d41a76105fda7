package runpodtest

import (
	"reflect"

	"github.com/runpodkit/runpod-go/billing"
)

// The ledger's lines in the shape of each report: totals are the sum of
// the parts, and the summary folds every product into its fourteen
// amounts.

func serverlessEntries(l ledger) []entry[billing.ServerlessAmounts] {
	out := make([]entry[billing.ServerlessAmounts], 0, len(l.serverless))
	for _, u := range l.serverless {
		out = append(out, entry[billing.ServerlessAmounts]{u.At, u.ServerlessID, billing.ServerlessAmounts{
			TotalAmount: u.GPU + u.CPU + u.Disk + u.Fee, GPUAmount: u.GPU, CPUAmount: u.CPU, DiskAmount: u.Disk, FeeAmount: u.Fee}})
	}
	return out
}

func podEntries(l ledger) []entry[billing.PodAmounts] {
	out := make([]entry[billing.PodAmounts], 0, len(l.pods))
	for _, u := range l.pods {
		out = append(out, entry[billing.PodAmounts]{u.At, u.PodID, billing.PodAmounts{
			TotalAmount: u.GPU + u.CPU + u.Disk, GPUAmount: u.GPU, CPUAmount: u.CPU, DiskAmount: u.Disk}})
	}
	return out
}

func networkVolumeEntries(l ledger) []entry[billing.NetworkVolumeAmounts] {
	out := make([]entry[billing.NetworkVolumeAmounts], 0, len(l.networkVolumes))
	for _, u := range l.networkVolumes {
		out = append(out, entry[billing.NetworkVolumeAmounts]{u.At, u.NetworkVolumeID, billing.NetworkVolumeAmounts{
			TotalAmount: u.Standard + u.HighPerformance, StandardAmount: u.Standard, HighPerformanceAmount: u.HighPerformance}})
	}
	return out
}

func clusterEntries(l ledger) []entry[billing.ClusterAmounts] {
	out := make([]entry[billing.ClusterAmounts], 0, len(l.clusters))
	for _, u := range l.clusters {
		out = append(out, entry[billing.ClusterAmounts]{u.At, u.ClusterID, billing.ClusterAmounts{
			TotalAmount: u.GPU + u.Disk + u.Networking, GPUAmount: u.GPU, DiskAmount: u.Disk, NetworkingAmount: u.Networking}})
	}
	return out
}

func publicEndpointEntries(l ledger) []entry[billing.EndpointAmounts] {
	out := make([]entry[billing.EndpointAmounts], 0, len(l.publicEndpoint))
	for _, u := range l.publicEndpoint {
		out = append(out, entry[billing.EndpointAmounts]{u.At, "", billing.EndpointAmounts{TotalAmount: u.Amount}})
	}
	return out
}

// summaryEntries folds every product's ledger into the account summary.
func summaryEntries(l ledger) []entry[billing.SummaryAmounts] {
	var out []entry[billing.SummaryAmounts]
	add := func(e entry[billing.SummaryAmounts]) {
		e.resource = ""
		e.amounts.TotalAmount = e.amounts.PodGPUAmount + e.amounts.PodCPUAmount + e.amounts.PodDiskAmount +
			e.amounts.ServerlessGPUAmount + e.amounts.ServerlessCPUAmount + e.amounts.ServerlessDiskAmount + e.amounts.ServerlessFeeAmount +
			e.amounts.StorageStandardAmount + e.amounts.StorageHighPerformanceAmount + e.amounts.EndpointAmount +
			e.amounts.ClusterGPUAmount + e.amounts.ClusterDiskAmount + e.amounts.ClusterNetworkingAmount
		out = append(out, e)
	}
	for _, u := range l.serverless {
		add(entry[billing.SummaryAmounts]{at: u.At, amounts: billing.SummaryAmounts{ServerlessGPUAmount: u.GPU, ServerlessCPUAmount: u.CPU, ServerlessDiskAmount: u.Disk, ServerlessFeeAmount: u.Fee}})
	}
	for _, u := range l.pods {
		add(entry[billing.SummaryAmounts]{at: u.At, amounts: billing.SummaryAmounts{PodGPUAmount: u.GPU, PodCPUAmount: u.CPU, PodDiskAmount: u.Disk}})
	}
	for _, u := range l.networkVolumes {
		add(entry[billing.SummaryAmounts]{at: u.At, amounts: billing.SummaryAmounts{StorageStandardAmount: u.Standard, StorageHighPerformanceAmount: u.HighPerformance}})
	}
	for _, u := range l.clusters {
		add(entry[billing.SummaryAmounts]{at: u.At, amounts: billing.SummaryAmounts{ClusterGPUAmount: u.GPU, ClusterDiskAmount: u.Disk, ClusterNetworkingAmount: u.Networking}})
	}
	for _, u := range l.publicEndpoint {
		add(entry[billing.SummaryAmounts]{at: u.At, amounts: billing.SummaryAmounts{EndpointAmount: u.Amount}})
	}
	return out
}

// plus adds two amounts field by field (every field of an amounts type is
// a float64).
func plus[A any](a, b A) A {
	av, bv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
	for i := range av.NumField() {
		av.Field(i).SetFloat(av.Field(i).Float() + bv.Field(i).Float())
	}
	return a
}
