package serverless

// GPUPool is a serverless GPU pool id, the unit endpoints request GPUs in.
// An endpoint names one or more pools; they travel comma-joined. Unknown
// ids (and the platform's exclusions such as "-NVIDIA RTX A6000") are
// kept as they are.
type GPUPool string

// The GPU pools the platform documents (docs references/gpu-types.mdx
// and flash/configuration/gpu-types.mdx, runpod/docs at a900806, 2026-08).
// runpodctl (at 2e2df89, internal/api/gpu.go) keeps no list: it asks the
// platform's GraphQL serverlessGpuPools query for the current set.
const (
	Ampere16     GPUPool = "AMPERE_16"     // 16 GB Ampere (A4000, A4500, RTX 4000, RTX 2000)
	Ampere24     GPUPool = "AMPERE_24"     // 24 GB Ampere (L4, A5000, 3090)
	Ada24        GPUPool = "ADA_24"        // 24 GB Ada (4090)
	Ada32Pro     GPUPool = "ADA_32_PRO"    // 32 GB (RTX 5090)
	Ampere48     GPUPool = "AMPERE_48"     // 48 GB Ampere (A6000, A40)
	Ada48Pro     GPUPool = "ADA_48_PRO"    // 48 GB Ada Pro (L40, L40S, 6000 Ada)
	Ampere80     GPUPool = "AMPERE_80"     // 80 GB Ampere (A100)
	Ada80Pro     GPUPool = "ADA_80_PRO"    // 80 GB (H100)
	Blackwell96  GPUPool = "BLACKWELL_96"  // 96 GB Blackwell (RTX PRO 6000)
	Hopper141    GPUPool = "HOPPER_141"    // 141 GB Hopper (H200)
	Blackwell180 GPUPool = "BLACKWELL_180" // 180 GB Blackwell (B200)
)

// GPUPools returns the documented pools, smallest first, in a new slice.
func GPUPools() []GPUPool {
	return []GPUPool{Ampere16, Ampere24, Ada24, Ada32Pro, Ampere48, Ada48Pro, Ampere80, Ada80Pro,
		Blackwell96, Hopper141, Blackwell180}
}

// Location is a region an endpoint's workers may run in.
type Location string

// The regions the platform documents. An empty list means any region.
const (
	CZ Location = "CZ" // Czech Republic
	FR Location = "FR" // France
	GB Location = "GB" // United Kingdom
	NO Location = "NO" // Norway
	RO Location = "RO" // Romania
	US Location = "US" // United States
)

// ScalerType says what drives an endpoint's autoscaling.
type ScalerType string

const (
	// QueueDelay scales up when jobs wait longer than ScalerValue seconds.
	QueueDelay ScalerType = "QUEUE_DELAY"
	// RequestCount scales to keep about ScalerValue requests per worker;
	// load-balancing endpoints must use it.
	RequestCount ScalerType = "REQUEST_COUNT"
)

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
