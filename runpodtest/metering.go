package runpodtest

import (
	"maps"
	"slices"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/serverless"
)

// The fake's pods and serverless endpoints bill as they run, on the fake's
// clock, at the catalog's prices: the billing reports add what they used to
// the usage a test adds (AddPodUsage, AddServerlessUsage), bucket by bucket.
// The rules come from the platform's pricing pages and its REST v2
// document; what the fake counts, where they leave it open:
//
//   - A pod's compute and storage bill per second while it is active (the
//     pods pricing page). The REST v2 document's Pod.cost, the pod's
//     current cost per hour, is zero only for an EXITED or TERMINATED pod:
//     so compute bills from the pod's create, PROVISIONING and STARTING
//     included, while it is RUNNING, and in ERROR, which that field does
//     not exempt either; it stops when the pod stops (EXITED) and ends for
//     good when it is terminated or deleted. The rate is the
//     pod's cost: the catalog's price of its GPU type on its cloud times
//     its GPU count (its CPU flavor's price times its vCPUs), fixed at its
//     create (see pods.go). REST v2 has no interruptible (spot) pods, so
//     the cloud is the only choice of price. A GPU pod's compute is its
//     GPU amount, a CPU pod's its CPU amount.
//   - Pod disk, from the same page: the container disk and the volume disk
//     (mounts.persistent) at $0.10 per GB per month while compute bills; a
//     stopped pod's volume disk at $0.20 per GB per month (its container
//     disk is erased and not billed). The page does not say how long a
//     month is: the fake takes 30 days. Sizes are those the pod has when
//     a status ends. Network volumes are not counted (they have a report
//     of their own; add to it with AddNetworkVolumeUsage).
//   - A serverless worker bills from its start until it has stopped, in
//     whole seconds rounded up (the serverless pricing page), at the
//     catalog's serverless price of the endpoint's first GPU pool times its
//     GPU count (GpuType.price.serverless is per GPU, times gpu.count for a
//     worker), or of a CPU endpoint's first flavor times its vCPUs
//     (CpuType.price.serverlessPerVcpu), as GPU or CPU amount. The catalog has one
//     serverless price per pool: the page prices flex workers at the
//     standard rate and leaves active workers' discounts to sales, so the
//     workers workers.min keeps and the ones started for jobs bill alike.
//   - The workers counted are the fake's (serverless.go): the ones
//     workers.min keeps, from their start until they are scaled away (and
//     drained) or the endpoint is deleted; and each job's run, from the
//     time a worker took it to its end, rounded up to the second, counted
//     once it has ended. Jobs run first on the kept workers, so at every
//     instant the endpoint bills the kept workers or the jobs running,
//     whichever are more. The fake has no cold starts and no idle timeout
//     after a job, so neither bills. No disk (the page gives only an
//     approximate rate, sampled every five minutes) and no fee.
//   - Prices of endpoints are read when a report is: the catalog's current
//     prices, for the last settings of the endpoint (its settings at its
//     delete, for a deleted one). Endpoints the fake does not list (a
//     public model, a queue served with HandleQueue alone) and pools or
//     flavors the catalog has no serverless price for bill nothing.

// Disk rates of the pods pricing page, in USD per GB per month, and the
// month the fake takes.
const (
	diskPerGBMonth          = 0.10 // container and volume disk of a pod that is not stopped
	stoppedVolumePerGBMonth = 0.20 // volume disk of a stopped pod
	hoursPerMonth           = 30 * 24
)

// meter is usage that accrues with time: each amount of its report, per
// hour, over [from, to).
type meter struct {
	resource string
	from, to time.Time
	perHour  []float64 // in the order of the report's amounts
}

// pieces splits m at the buckets that begin at starts (the window's, in
// order, the last one ending at end) and yields, for each bucket it
// overlaps, the start of the overlap and the amounts it accrued there.
func (m meter) pieces(starts []time.Time, end time.Time, bucket bucketSize, yield func(at time.Time, amounts []float64)) {
	from, to := latest(m.from, starts[0]), earliest(m.to, end)
	if !from.Before(to) {
		return
	}
	i, _ := slices.BinarySearchFunc(starts, from, func(s, t time.Time) int { return s.Compare(t) })
	if i == len(starts) || starts[i].After(from) {
		i-- // from is inside the bucket before
	}
	for ; i < len(starts) && starts[i].Before(to); i++ {
		a, b := latest(from, starts[i]), earliest(to, bucket.next(starts[i], 1))
		hours := b.Sub(a).Hours()
		amounts := make([]float64, len(m.perHour))
		for j, rate := range m.perHour {
			amounts[j] = rate * hours
		}
		yield(a, amounts)
	}
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// usageUntil is the pod's usage in its current status, from when the
// status began until now, per hour of the pods report's amounts (GPU, CPU,
// disk); ok is false when it bills nothing. A cluster's pods bill to their
// cluster, not here. s.pods.mu is held.
func (p *fakePod) usageUntil(now time.Time) (m meter, ok bool) {
	if p.cluster != nil || p.since.IsZero() || !p.since.Before(now) {
		return meter{}, false
	}
	volume := 0
	if v := p.mounts.Persistent; v != nil {
		volume = v.Size
	}
	perHour := make([]float64, 3)
	switch p.Status {
	case pods.PodStatusExited:
		perHour[2] = float64(volume) * stoppedVolumePerGBMonth / hoursPerMonth
	case pods.PodStatusTerminated:
	default: // PROVISIONING, STARTING, RUNNING, ERROR
		if p.GPU != "" {
			perHour[0] = p.rate
		} else {
			perHour[1] = p.rate
		}
		perHour[2] = float64(p.Disk+volume) * diskPerGBMonth / hoursPerMonth
	}
	if !slices.ContainsFunc(perHour, func(v float64) bool { return v != 0 }) {
		return meter{}, false
	}
	return meter{resource: p.ID, from: p.since, to: now, perHour: perHour}, true
}

// closeUsage records the pod's usage in the status it leaves now.
// s.pods.mu is held.
func (p *fakePod) closeUsage(now time.Time) {
	if m, ok := p.usageUntil(now); ok {
		p.usage = append(p.usage, m)
	}
}

// podMeters returns the usage of every pod the fake has had until now,
// deleted ones too. It takes the pods lock.
func (s *Server) podMeters(now time.Time) []meter {
	s.pods.mu.Lock()
	defer s.pods.mu.Unlock()
	var out []meter
	for _, p := range s.pods.all {
		if s.pods.byID[p.ID] == p {
			s.advance(p) // the boot phases that elapsed
		}
		out = append(out, p.usage...)
		if m, ok := p.usageUntil(now); ok {
			out = append(out, m)
		}
	}
	return out
}

// span is a stretch of time, [from, to).
type span struct{ from, to time.Time }

// endpointUsage is what an endpoint's bill is computed from: the hardware
// of its workers and the lives of those workers.min kept.
type endpointUsage struct {
	id       string
	pool     serverless.GPUPool // the first GPU pool of a GPU endpoint
	gpuCount int
	flavor   string // the first CPU flavor of a CPU endpoint
	vcpus    int
	kept     []span
}

// endpointUsageOf returns e's usage until until (now, or its delete):
// each worker workers.min kept runs from its start until it drained away,
// or until until. graphql.mu is held.
func endpointUsageOf(e *Endpoint, until time.Time) endpointUsage {
	u := endpointUsage{id: e.ID, gpuCount: e.GPUCount}
	switch {
	case len(e.InstanceIDs) > 0:
		u.flavor, u.vcpus, _ = parseInstanceID(e.InstanceIDs[0])
	case len(e.GPUs) > 0:
		u.pool = e.GPUs[0]
	}
	for _, w := range e.workers {
		end := until
		if w.draining {
			end = earliest(w.goneAt, until)
		}
		if w.since.Before(end) {
			u.kept = append(u.kept, span{w.since, end})
		}
	}
	return u
}

// endpointDeleted keeps the usage of an endpoint deleted now, which stays
// in the billing history. The caller may hold any lock: the billing lock
// is taken last.
func (s *Server) endpointDeleted(e *Endpoint) {
	u := endpointUsageOf(e, s.now())
	appendLocked(&s.billing.mu, &s.billing.gone, u)
}

// recordRun records the run of a job of the endpoint that ended now: from
// when a worker took it, rounded up to the second, to now. A job that
// never ran (cancelled or expired in the queue) records nothing. It is
// called with no queue lock held (the queue's OnEnd).
func (s *Server) recordRun(endpointID string, v jobqueue.View) {
	if v.WorkerID == "" || v.ExecutionTime <= 0 {
		return
	}
	d := (v.ExecutionTime + time.Second - 1).Truncate(time.Second)
	end := s.now()
	s.billing.mu.Lock()
	defer s.billing.mu.Unlock()
	if s.billing.runs == nil {
		s.billing.runs = map[string][]span{}
	}
	s.billing.runs[endpointID] = append(s.billing.runs[endpointID], span{end.Add(-d), end})
}

// serverlessPrices returns the catalog's serverless prices: per GPU of
// each pool (the price of the type the fake places the pool's workers on,
// poolGPU, or else of the pool's first type by id), and per vCPU of each
// CPU flavor. It takes the catalog's lock.
func (s *Server) serverlessPrices() (perGPU map[serverless.GPUPool]float64, perVCPU map[string]float64) {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	perGPU, perVCPU = map[serverless.GPUPool]float64{}, map[string]float64{}
	for _, id := range slices.Sorted(maps.Keys(s.catalog.gpus)) {
		g := s.catalog.gpus[id]
		pool := serverless.GPUPool(g.Pool)
		if _, seen := perGPU[pool]; g.Pool != "" && g.ServerlessPrice > 0 && (!seen || poolGPU[pool] == id) {
			perGPU[pool] = g.ServerlessPrice
		}
	}
	for id, c := range s.catalog.cpus {
		if c.ServerlessPricePerVCPU > 0 {
			perVCPU[id] = c.ServerlessPricePerVCPU
		}
	}
	return perGPU, perVCPU
}

// serverlessMeters returns the usage of every endpoint the fake has had
// until now, deleted ones too, per hour of the serverless report's
// amounts (GPU, CPU, disk, fee). It takes the catalog's lock, then the
// GraphQL unit's, then the billing unit's, one at a time.
func (s *Server) serverlessMeters(now time.Time) []meter {
	perGPU, perVCPU := s.serverlessPrices()
	s.graphql.mu.Lock()
	var usage []endpointUsage
	for _, e := range s.graphql.endpoints {
		usage = append(usage, endpointUsageOf(e, now))
	}
	s.graphql.mu.Unlock()
	s.billing.mu.Lock()
	usage = append(usage, s.billing.gone...)
	runs := maps.Clone(s.billing.runs)
	s.billing.mu.Unlock()

	var out []meter
	for _, u := range usage {
		perHour := make([]float64, 4)
		if u.flavor != "" {
			perHour[1] = perVCPU[u.flavor] * float64(u.vcpus)
		} else {
			perHour[0] = perGPU[u.pool] * float64(u.gpuCount)
		}
		if perHour[0] == 0 && perHour[1] == 0 {
			continue
		}
		for _, b := range billedWorkers(u.kept, runs[u.id], now) {
			m := meter{resource: u.id, from: b.from, to: b.to, perHour: make([]float64, 4)}
			for j, rate := range perHour {
				m.perHour[j] = rate * float64(b.workers)
			}
			out = append(out, m)
		}
	}
	return out
}

// busySpan is a stretch of time over which a number of workers bill.
type busySpan struct {
	span
	workers int
}

// billedWorkers returns the stretches of time, until now, over which an
// endpoint's workers bill, and how many: at every instant, the workers
// kept or the jobs running, whichever are more (jobs run first on the
// kept workers; each one beyond them has a worker of its own).
func billedWorkers(kept, runs []span, now time.Time) []busySpan {
	type event struct {
		at        time.Time
		kept, ran int
	}
	var events []event
	for _, k := range kept {
		events = append(events, event{k.from, 1, 0}, event{k.to, -1, 0})
	}
	for _, r := range runs {
		events = append(events, event{r.from, 0, 1}, event{r.to, 0, -1})
	}
	slices.SortFunc(events, func(a, b event) int { return a.at.Compare(b.at) })
	var out []busySpan
	keptN, ranN := 0, 0
	for i, e := range events {
		keptN, ranN = keptN+e.kept, ranN+e.ran
		if i+1 == len(events) {
			break
		}
		to := earliest(events[i+1].at, now)
		if n := max(keptN, ranN); n > 0 && e.at.Before(to) {
			out = append(out, busySpan{span{e.at, to}, n})
		}
	}
	return out
}

// withMeters returns l with the usage of the meters added, as a line in
// each bucket of the window (starts, ending at end) that each overlaps:
// meters and the usage a test adds are then reported alike. l's own lists
// are not changed.
func (l ledger) withMeters(pods, endpoints []meter, starts []time.Time, end time.Time, bucket bucketSize) ledger {
	l.pods, l.serverless = slices.Clip(l.pods), slices.Clip(l.serverless)
	for _, m := range pods {
		m.pieces(starts, end, bucket, func(at time.Time, a []float64) {
			l.pods = append(l.pods, PodUsage{At: at, PodID: m.resource, GPU: a[0], CPU: a[1], Disk: a[2]})
		})
	}
	for _, m := range endpoints {
		m.pieces(starts, end, bucket, func(at time.Time, a []float64) {
			l.serverless = append(l.serverless, ServerlessUsage{At: at, ServerlessID: m.resource, GPU: a[0], CPU: a[1], Disk: a[2], Fee: a[3]})
		})
	}
	return l
}
