package runpodtest

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/runpodkit/runpod-go/catalog"
)

// Stock-outs. The platform answers a pod create it has no room for with
// HTTP 500 and a message, and creates nothing; the messages below are ones
// users of the platform have reported (a stock-out in every data center
// the request allows, and no host matching the request at all). Starting a
// stopped pod whose machine has no free GPU is refused with a third. The
// fake places a GPU pod or cluster in a data center where its GPU type is
// offered and has stock: the first of the request's dataCenterIds that
// does, or, when it names none, the one with the most stock.
const (
	stockOutMessage  = "There are no longer any instances available with the requested specifications. Please refresh and try again."
	noHostMessage    = "could not find any pods with required specifications"
	hostFullMessage  = "There are not enough free GPUs on the host machine to start this pod."
	stockOutFallback = "EU-RO-1" // where a type with no known stock goes when the request names no data center
)

// SetGPUStock sets the stock of a GPU type in a data center, as the
// catalog reports it (GET /v2/catalog/gpus with availability) and as pod
// and cluster creates find it: catalog.AvailabilityLevelNone runs the data
// center out of stock, so a create that can only go there is answered with
// HTTP 500 and the platform's stock-out message, and creates nothing. A
// data center the type had no stock entry for is added to it. It returns
// false for a GPU type the catalog does not have.
func (s *Server) SetGPUStock(gpuTypeID, dataCenterID string, level catalog.AvailabilityLevel) bool {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	g, ok := s.catalog.gpus[gpuTypeID]
	if !ok {
		return false
	}
	if g.DataCenters == nil {
		g.DataCenters = map[string]catalog.AvailabilityLevel{}
	}
	g.DataCenters[dataCenterID] = level
	s.catalog.gpus[gpuTypeID] = g
	return true
}

// gpuStock is a copy of what the catalog knows of a GPU type's machines,
// taken under the catalog's lock so that a create can place a pod with
// other locks held.
type gpuStock struct {
	levels map[string]catalog.AvailabilityLevel // by data center; nil when unknown
	cuda   []string                             // the machines' CUDA versions
}

// gpuStockOf returns the stock of GPU type id.
func (s *Server) gpuStockOf(id string) gpuStock {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	return stockOf(s.catalog.gpus[id])
}

// stockOf copies what g says of its machines.
func stockOf(g GPUType) gpuStock {
	return gpuStock{levels: maps.Clone(g.DataCenters), cuda: slices.Clone(g.CUDAVersions)}
}

// gpuStocks returns the stock of every GPU type, by id.
func (s *Server) gpuStocks() map[string]gpuStock {
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	out := make(map[string]gpuStock, len(s.catalog.gpus))
	for id, g := range s.catalog.gpus {
		out[id] = stockOf(g)
	}
	return out
}

// place returns the data center a create goes to, from dcs (the request's
// dataCenterIds, in order) or, when dcs is empty, every data center that
// offers the type, the most stocked first; or the message of a refusal. A
// type with no stock entries places as the fake always did: the first of
// dcs, else stockOutFallback.
func (g gpuStock) place(dcs, allowedCUDA []string, minCUDA string) (dc, refusal string) {
	if len(g.levels) == 0 {
		if len(dcs) > 0 {
			return dcs[0], ""
		}
		return stockOutFallback, ""
	}
	if !g.fitsCUDA(allowedCUDA, minCUDA) {
		return "", noHostMessage
	}
	order := dcs
	if len(order) == 0 {
		order = slices.Collect(maps.Keys(g.levels))
		slices.SortFunc(order, func(a, b string) int {
			return cmp.Or(stockRank(g.levels[b])-stockRank(g.levels[a]), strings.Compare(a, b))
		})
	}
	offered := false
	for _, id := range order {
		level, ok := g.levels[id]
		if ok && stockRank(level) > 0 {
			return id, ""
		}
		offered = offered || ok
	}
	if !offered {
		return "", noHostMessage
	}
	return "", stockOutMessage
}

// fitsCUDA reports whether some machine of the type has a CUDA version the
// request takes: one of allowed, or at least minCUDA. Machines that report
// no version (AMD) fit any request.
func (g gpuStock) fitsCUDA(allowed []string, minCUDA string) bool {
	if len(g.cuda) == 0 || (len(allowed) == 0 && minCUDA == "") {
		return true
	}
	for _, v := range g.cuda {
		if slices.Contains(allowed, v) || (minCUDA != "" && cudaAtLeast(v, minCUDA)) {
			return true
		}
	}
	return false
}

// stockRank orders availability levels: NONE 0 up to HIGH 3, and -1 for
// a level the fake does not know.
func stockRank(l catalog.AvailabilityLevel) int {
	return slices.Index([]catalog.AvailabilityLevel{
		catalog.AvailabilityLevelNone, catalog.AvailabilityLevelLow, catalog.AvailabilityLevelMedium, catalog.AvailabilityLevelHigh,
	}, l)
}

// refuseCapacity answers a create (or start) the platform has no room
// for: status and a problem whose detail is what + ": " + message, the
// message users of the platform report.
func refuseCapacity(w http.ResponseWriter, status int, what, message string) {
	Problem(w, status, what+": "+message)
}
