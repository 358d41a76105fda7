package billing

// What each report's types add to the generated models: the Record
// methods of its record type, its amounts listed field by field, and the
// Sum, Reconcile and Window of its response, one report after the other.

// The serverless report (Service.Serverless).

// Bucket returns the record's time range.
func (r ServerlessBillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns the serverless endpoint's id.
func (r ServerlessBillingRecord) Resource() string { return r.ServerlessID }

// Total returns TotalAmount.
func (r ServerlessBillingRecord) Total() Amount { return r.TotalAmount }

func (r ServerlessBillingRecord) amounts() ServerlessBillingAmounts {
	return ServerlessBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, CPUAmount: r.CPUAmount, DiskAmount: r.DiskAmount, FeeAmount: r.FeeAmount}
}

func (a *ServerlessBillingAmounts) fields() []field {
	return []field{{"TotalAmount", &a.TotalAmount}, {"GPUAmount", &a.GPUAmount}, {"CPUAmount", &a.CPUAmount}, {"DiskAmount", &a.DiskAmount}, {"FeeAmount", &a.FeeAmount}}
}

// Query returns the resolved window and bucket size.
func (q ServerlessBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Sum adds up the records' amounts, field by field.
func (r *ListServerlessBillingResponse) Sum() ServerlessBillingAmounts {
	return sum[ServerlessBillingAmounts](r.Records)
}

// Reconcile checks the report against its metadata: the record count, the
// count of distinct resources, the totals (to a millionth of a dollar),
// every record inside the resolved window on a bucket boundary, and every
// record carrying the filtered id. It returns nil when all hold.
func (r *ListServerlessBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[ServerlessBillingAmounts]{m.Query.Query(), m.Query.ServerlessID, m.RecordCount, &m.UniqueServerlessCount, m.Totals})
}

// Window returns the window the platform resolved for the report: the
// start of its first bucket and the end of its last.
func (r *ListServerlessBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}

// The account's summary (Service.Summary).

// Bucket returns the record's time range.
func (r BillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns "": the summary is not split by resource.
func (r BillingRecord) Resource() string { return "" }

// Total returns TotalAmount.
func (r BillingRecord) Total() Amount { return r.TotalAmount }

func (r BillingRecord) amounts() BillingAmounts {
	return BillingAmounts{TotalAmount: r.TotalAmount, PodGPUAmount: r.PodGPUAmount, PodCPUAmount: r.PodCPUAmount, PodDiskAmount: r.PodDiskAmount, ServerlessGPUAmount: r.ServerlessGPUAmount, ServerlessCPUAmount: r.ServerlessCPUAmount, ServerlessDiskAmount: r.ServerlessDiskAmount, ServerlessFeeAmount: r.ServerlessFeeAmount, StorageStandardAmount: r.StorageStandardAmount, StorageHighPerformanceAmount: r.StorageHighPerformanceAmount, EndpointAmount: r.EndpointAmount, ClusterGPUAmount: r.ClusterGPUAmount, ClusterDiskAmount: r.ClusterDiskAmount, ClusterNetworkingAmount: r.ClusterNetworkingAmount}
}

func (a *BillingAmounts) fields() []field {
	return []field{{"TotalAmount", &a.TotalAmount}, {"PodGPUAmount", &a.PodGPUAmount}, {"PodCPUAmount", &a.PodCPUAmount}, {"PodDiskAmount", &a.PodDiskAmount}, {"ServerlessGPUAmount", &a.ServerlessGPUAmount}, {"ServerlessCPUAmount", &a.ServerlessCPUAmount}, {"ServerlessDiskAmount", &a.ServerlessDiskAmount}, {"ServerlessFeeAmount", &a.ServerlessFeeAmount}, {"StorageStandardAmount", &a.StorageStandardAmount}, {"StorageHighPerformanceAmount", &a.StorageHighPerformanceAmount}, {"EndpointAmount", &a.EndpointAmount}, {"ClusterGPUAmount", &a.ClusterGPUAmount}, {"ClusterDiskAmount", &a.ClusterDiskAmount}, {"ClusterNetworkingAmount", &a.ClusterNetworkingAmount}}
}

// Sum adds up the records' amounts, field by field.
func (r *ListBillingResponse) Sum() BillingAmounts { return sum[BillingAmounts](r.Records) }

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[BillingAmounts]{m.Query, nil, m.RecordCount, nil, m.Totals})
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Range() }

// The pods report (Service.Pods).

// Bucket returns the record's time range.
func (r PodBillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns the pod's id.
func (r PodBillingRecord) Resource() string { return r.PodID }

// Total returns TotalAmount.
func (r PodBillingRecord) Total() Amount { return r.TotalAmount }

func (r PodBillingRecord) amounts() PodBillingAmounts {
	return PodBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, CPUAmount: r.CPUAmount, DiskAmount: r.DiskAmount}
}

func (a *PodBillingAmounts) fields() []field {
	return []field{{"TotalAmount", &a.TotalAmount}, {"GPUAmount", &a.GPUAmount}, {"CPUAmount", &a.CPUAmount}, {"DiskAmount", &a.DiskAmount}}
}

// Query returns the resolved window and bucket size.
func (q PodBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Sum adds up the records' amounts, field by field.
func (r *ListPodBillingResponse) Sum() PodBillingAmounts { return sum[PodBillingAmounts](r.Records) }

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListPodBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[PodBillingAmounts]{m.Query.Query(), m.Query.PodID, m.RecordCount, &m.UniquePodCount, m.Totals})
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListPodBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Query().Range() }

// The public endpoints report (Service.Endpoints).

// Bucket returns the record's time range.
func (r EndpointBillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns "": public endpoint spend is not split by resource.
func (r EndpointBillingRecord) Resource() string { return "" }

// Total returns TotalAmount.
func (r EndpointBillingRecord) Total() Amount { return r.TotalAmount }

func (r EndpointBillingRecord) amounts() EndpointBillingAmounts {
	return EndpointBillingAmounts{TotalAmount: r.TotalAmount}
}

func (a *EndpointBillingAmounts) fields() []field { return []field{{"TotalAmount", &a.TotalAmount}} }

// Sum adds up the records' amounts, field by field.
func (r *ListEndpointBillingResponse) Sum() EndpointBillingAmounts {
	return sum[EndpointBillingAmounts](r.Records)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListEndpointBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[EndpointBillingAmounts]{m.Query, nil, m.RecordCount, nil, m.Totals})
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListEndpointBillingResponse) Window() BillingTimeRange { return r.Metadata.Query.Range() }

// The network volumes report (Service.NetworkVolumes).

// Bucket returns the record's time range.
func (r NetworkVolumeBillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns the network volume's id.
func (r NetworkVolumeBillingRecord) Resource() string { return r.NetworkVolumeID }

// Total returns TotalAmount.
func (r NetworkVolumeBillingRecord) Total() Amount { return r.TotalAmount }

func (r NetworkVolumeBillingRecord) amounts() NetworkVolumeBillingAmounts {
	return NetworkVolumeBillingAmounts{TotalAmount: r.TotalAmount, StandardAmount: r.StandardAmount, HighPerformanceAmount: r.HighPerformanceAmount}
}

func (a *NetworkVolumeBillingAmounts) fields() []field {
	return []field{{"TotalAmount", &a.TotalAmount}, {"StandardAmount", &a.StandardAmount}, {"HighPerformanceAmount", &a.HighPerformanceAmount}}
}

// Query returns the resolved window and bucket size.
func (q NetworkVolumeBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Sum adds up the records' amounts, field by field.
func (r *ListNetworkVolumeBillingResponse) Sum() NetworkVolumeBillingAmounts {
	return sum[NetworkVolumeBillingAmounts](r.Records)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListNetworkVolumeBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[NetworkVolumeBillingAmounts]{m.Query.Query(), m.Query.NetworkVolumeID, m.RecordCount, &m.UniqueNetworkVolumeCount, m.Totals})
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListNetworkVolumeBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}

// The clusters report (Service.Clusters).

// Bucket returns the record's time range.
func (r ClusterBillingRecord) Bucket() BillingTimeRange { return span(r.StartTime, r.EndTime) }

// Resource returns the cluster's id.
func (r ClusterBillingRecord) Resource() string { return r.ClusterID }

// Total returns TotalAmount.
func (r ClusterBillingRecord) Total() Amount { return r.TotalAmount }

func (r ClusterBillingRecord) amounts() ClusterBillingAmounts {
	return ClusterBillingAmounts{TotalAmount: r.TotalAmount, GPUAmount: r.GPUAmount, DiskAmount: r.DiskAmount, NetworkingAmount: r.NetworkingAmount}
}

func (a *ClusterBillingAmounts) fields() []field {
	return []field{{"TotalAmount", &a.TotalAmount}, {"GPUAmount", &a.GPUAmount}, {"DiskAmount", &a.DiskAmount}, {"NetworkingAmount", &a.NetworkingAmount}}
}

// Query returns the resolved window and bucket size.
func (q ClusterBillingQuery) Query() BillingQuery {
	return BillingQuery{StartTime: q.StartTime, EndTime: q.EndTime, BucketSize: q.BucketSize}
}

// Sum adds up the records' amounts, field by field.
func (r *ListClusterBillingResponse) Sum() ClusterBillingAmounts {
	return sum[ClusterBillingAmounts](r.Records)
}

// Reconcile checks the report against its metadata; see
// ListServerlessBillingResponse.Reconcile.
func (r *ListClusterBillingResponse) Reconcile() error {
	m := r.Metadata
	return reconcile(r.Records, meta[ClusterBillingAmounts]{m.Query.Query(), m.Query.ClusterID, m.RecordCount, &m.UniqueClusterCount, m.Totals})
}

// Window returns the window the platform resolved for the report; see
// ListServerlessBillingResponse.Window.
func (r *ListClusterBillingResponse) Window() BillingTimeRange {
	return r.Metadata.Query.Query().Range()
}
