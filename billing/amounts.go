package billing

// Each report's amounts, listed field by field: the totals are summed and
// compared through these lists, so a field renamed in the generated models
// fails to compile here instead of silently leaving the totals.

// amountsOf is an amounts type A and the list of its fields.
type amountsOf[A any] interface {
	values() []Amount
	names() []string
}

// recordOf is a record type whose amounts are an A.
type recordOf[A any] interface {
	Record
	amounts() A
}

// sum adds up the records' amounts, field by field.
func sum[A amountsOf[A], R recordOf[A]](records []R, build func([]Amount) A) A {
	var zero A
	total := make([]Amount, len(zero.names()))
	for _, r := range records {
		for i, v := range r.amounts().values() {
			total[i] += v
		}
	}
	return build(total)
}

func (a ServerlessBillingAmounts) values() []Amount {
	return []Amount{a.TotalAmount, a.GPUAmount, a.CPUAmount, a.DiskAmount, a.FeeAmount}
}

func (ServerlessBillingAmounts) names() []string {
	return []string{"TotalAmount", "GPUAmount", "CPUAmount", "DiskAmount", "FeeAmount"}
}

func (r ServerlessBillingRecord) amounts() ServerlessBillingAmounts {
	return ServerlessBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, CPUAmount: r.CPUAmount, DiskAmount: r.DiskAmount, FeeAmount: r.FeeAmount}
}

func newServerlessBillingAmounts(v []Amount) ServerlessBillingAmounts {
	return ServerlessBillingAmounts{TotalAmount: v[0], GPUAmount: v[1], CPUAmount: v[2], DiskAmount: v[3], FeeAmount: v[4]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListServerlessBillingResponse) Sum() ServerlessBillingAmounts {
	return sum(r.Records, newServerlessBillingAmounts)
}

func (a BillingAmounts) values() []Amount {
	return []Amount{a.TotalAmount, a.PodGPUAmount, a.PodCPUAmount, a.PodDiskAmount, a.ServerlessGPUAmount, a.ServerlessCPUAmount, a.ServerlessDiskAmount, a.ServerlessFeeAmount, a.StorageStandardAmount, a.StorageHighPerformanceAmount, a.EndpointAmount, a.ClusterGPUAmount, a.ClusterDiskAmount, a.ClusterNetworkingAmount}
}

func (BillingAmounts) names() []string {
	return []string{"TotalAmount", "PodGPUAmount", "PodCPUAmount", "PodDiskAmount", "ServerlessGPUAmount", "ServerlessCPUAmount", "ServerlessDiskAmount", "ServerlessFeeAmount", "StorageStandardAmount", "StorageHighPerformanceAmount", "EndpointAmount", "ClusterGPUAmount", "ClusterDiskAmount", "ClusterNetworkingAmount"}
}

func (r BillingRecord) amounts() BillingAmounts {
	return BillingAmounts{TotalAmount: r.TotalAmount, PodGPUAmount: r.PodGPUAmount, PodCPUAmount: r.PodCPUAmount, PodDiskAmount: r.PodDiskAmount, ServerlessGPUAmount: r.ServerlessGPUAmount, ServerlessCPUAmount: r.ServerlessCPUAmount, ServerlessDiskAmount: r.ServerlessDiskAmount, ServerlessFeeAmount: r.ServerlessFeeAmount, StorageStandardAmount: r.StorageStandardAmount, StorageHighPerformanceAmount: r.StorageHighPerformanceAmount, EndpointAmount: r.EndpointAmount, ClusterGPUAmount: r.ClusterGPUAmount, ClusterDiskAmount: r.ClusterDiskAmount, ClusterNetworkingAmount: r.ClusterNetworkingAmount}
}

func newBillingAmounts(v []Amount) BillingAmounts {
	return BillingAmounts{TotalAmount: v[0], PodGPUAmount: v[1], PodCPUAmount: v[2], PodDiskAmount: v[3], ServerlessGPUAmount: v[4], ServerlessCPUAmount: v[5], ServerlessDiskAmount: v[6], ServerlessFeeAmount: v[7], StorageStandardAmount: v[8], StorageHighPerformanceAmount: v[9], EndpointAmount: v[10], ClusterGPUAmount: v[11], ClusterDiskAmount: v[12], ClusterNetworkingAmount: v[13]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListBillingResponse) Sum() BillingAmounts { return sum(r.Records, newBillingAmounts) }

func (a PodBillingAmounts) values() []Amount {
	return []Amount{a.TotalAmount, a.GPUAmount, a.CPUAmount, a.DiskAmount}
}

func (PodBillingAmounts) names() []string {
	return []string{"TotalAmount", "GPUAmount", "CPUAmount", "DiskAmount"}
}

func (r PodBillingRecord) amounts() PodBillingAmounts {
	return PodBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, CPUAmount: r.CPUAmount, DiskAmount: r.DiskAmount}
}

func newPodBillingAmounts(v []Amount) PodBillingAmounts {
	return PodBillingAmounts{TotalAmount: v[0], GPUAmount: v[1], CPUAmount: v[2], DiskAmount: v[3]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListPodBillingResponse) Sum() PodBillingAmounts { return sum(r.Records, newPodBillingAmounts) }

func (a EndpointBillingAmounts) values() []Amount { return []Amount{a.TotalAmount} }

func (EndpointBillingAmounts) names() []string { return []string{"TotalAmount"} }

func (r EndpointBillingRecord) amounts() EndpointBillingAmounts {
	return EndpointBillingAmounts{TotalAmount: r.TotalAmount}
}

func newEndpointBillingAmounts(v []Amount) EndpointBillingAmounts {
	return EndpointBillingAmounts{TotalAmount: v[0]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListEndpointBillingResponse) Sum() EndpointBillingAmounts {
	return sum(r.Records, newEndpointBillingAmounts)
}

func (a NetworkVolumeBillingAmounts) values() []Amount {
	return []Amount{a.TotalAmount, a.StandardAmount, a.HighPerformanceAmount}
}

func (NetworkVolumeBillingAmounts) names() []string {
	return []string{"TotalAmount", "StandardAmount", "HighPerformanceAmount"}
}

func (r NetworkVolumeBillingRecord) amounts() NetworkVolumeBillingAmounts {
	return NetworkVolumeBillingAmounts{TotalAmount: r.TotalAmount, StandardAmount: r.StandardAmount, HighPerformanceAmount: r.HighPerformanceAmount}
}

func newNetworkVolumeBillingAmounts(v []Amount) NetworkVolumeBillingAmounts {
	return NetworkVolumeBillingAmounts{TotalAmount: v[0], StandardAmount: v[1], HighPerformanceAmount: v[2]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListNetworkVolumeBillingResponse) Sum() NetworkVolumeBillingAmounts {
	return sum(r.Records, newNetworkVolumeBillingAmounts)
}

func (a ClusterBillingAmounts) values() []Amount {
	return []Amount{a.TotalAmount, a.GPUAmount, a.DiskAmount, a.NetworkingAmount}
}

func (ClusterBillingAmounts) names() []string {
	return []string{"TotalAmount", "GPUAmount", "DiskAmount", "NetworkingAmount"}
}

func (r ClusterBillingRecord) amounts() ClusterBillingAmounts {
	return ClusterBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, DiskAmount: r.DiskAmount, NetworkingAmount: r.NetworkingAmount}
}

func newClusterBillingAmounts(v []Amount) ClusterBillingAmounts {
	return ClusterBillingAmounts{TotalAmount: v[0], GPUAmount: v[1], DiskAmount: v[2], NetworkingAmount: v[3]}
}

// Sum adds up the records' amounts, field by field.
func (r *ListClusterBillingResponse) Sum() ClusterBillingAmounts {
	return sum(r.Records, newClusterBillingAmounts)
}
