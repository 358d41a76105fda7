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
	GPUPoolAmpere16     GPUPool = "AMPERE_16"     // 16 GB Ampere (A4000, A4500, RTX 4000, RTX 2000)
	GPUPoolAmpere24     GPUPool = "AMPERE_24"     // 24 GB Ampere (L4, A5000, 3090)
	GPUPoolAda24        GPUPool = "ADA_24"        // 24 GB Ada (4090)
	GPUPoolAda32Pro     GPUPool = "ADA_32_PRO"    // 32 GB (RTX 5090)
	GPUPoolAmpere48     GPUPool = "AMPERE_48"     // 48 GB Ampere (A6000, A40)
	GPUPoolAda48Pro     GPUPool = "ADA_48_PRO"    // 48 GB Ada Pro (L40, L40S, 6000 Ada)
	GPUPoolAmpere80     GPUPool = "AMPERE_80"     // 80 GB Ampere (A100)
	GPUPoolAda80Pro     GPUPool = "ADA_80_PRO"    // 80 GB (H100)
	GPUPoolBlackwell96  GPUPool = "BLACKWELL_96"  // 96 GB Blackwell (RTX PRO 6000)
	GPUPoolHopper141    GPUPool = "HOPPER_141"    // 141 GB Hopper (H200)
	GPUPoolBlackwell180 GPUPool = "BLACKWELL_180" // 180 GB Blackwell (B200)
)

// GPUPools returns the documented pools, smallest first, in a new slice.
func GPUPools() []GPUPool {
	return []GPUPool{GPUPoolAmpere16, GPUPoolAmpere24, GPUPoolAda24, GPUPoolAda32Pro, GPUPoolAmpere48, GPUPoolAda48Pro, GPUPoolAmpere80, GPUPoolAda80Pro,
		GPUPoolBlackwell96, GPUPoolHopper141, GPUPoolBlackwell180}
}

// Location is a region an endpoint's workers may run in.
type Location string

// The regions the platform documents. An empty list means any region.
const (
	LocationCZ Location = "CZ" // Czech Republic
	LocationFR Location = "FR" // France
	LocationGB Location = "GB" // United Kingdom
	LocationNO Location = "NO" // Norway
	LocationRO Location = "RO" // Romania
	LocationUS Location = "US" // United States
)

// ScalerType says what drives an endpoint's autoscaling.
type ScalerType string

const (
	// ScalerTypeQueueDelay scales up when jobs wait longer than ScalerValue seconds.
	ScalerTypeQueueDelay ScalerType = "QUEUE_DELAY"
	// ScalerTypeRequestCount scales to keep about ScalerValue requests per worker;
	// load-balancing endpoints must use it.
	ScalerTypeRequestCount ScalerType = "REQUEST_COUNT"
)

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
