package runpodtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// CPU flavours: the ids REST gives them (cpu3c), the vCPUs a create asks
// for, and GraphQL's instance ids, which spell a flavour with its vCPUs
// and memory (cpu3c-2-4).

// cpuFlavourID is the shape of a CPU flavour id, as in cpu3c or cpu5g.
var cpuFlavourID = regexp.MustCompile(`^cpu\d+[a-z]$`)

// createCPUJSON is a CPU flavour as a create of a pod or an endpoint
// sends it.
type createCPUJSON struct {
	ID        string `json:"id"`
	VCPUCount int    `json:"vcpuCount"`
}

// memoryPerVCPU is the GB of memory per vCPU of a CPU flavor: compute
// (c), general (g) or memory (m) optimized.
func memoryPerVCPU(flavor string) int {
	switch {
	case strings.HasSuffix(flavor, "c"):
		return 2
	case strings.HasSuffix(flavor, "m"):
		return 8
	}
	return 4
}

// instanceID is GraphQL's spelling of a REST CPU flavour: flavour, vCPUs
// and GB of memory (the flavour's memory per vCPU times the vCPUs), as in
// cpu3c-2-4.
func instanceID(c createCPUJSON) string {
	return fmt.Sprintf("%s-%d-%d", c.ID, c.VCPUCount, c.VCPUCount*memoryPerVCPU(c.ID))
}

// parseInstanceID reads an instance id (cpu3c-2-4) as REST's flavour,
// vCPUs and memory.
func parseInstanceID(id string) (flavour string, vcpus, memory int) {
	parts := strings.Split(id, "-")
	flavour = parts[0]
	if len(parts) == 3 {
		vcpus, _ = strconv.Atoi(parts[1])
		memory, _ = strconv.Atoi(parts[2])
	}
	return flavour, max(vcpus, 1), max(memory, 1)
}

// checkCPU checks REST CPU flavours: a flavour id the fake can spell as an
// instance id. It returns the field at fault, or "".
func checkCPU(cpus []createCPUJSON) (string, string) {
	for i, c := range cpus {
		if !cpuFlavourID.MatchString(c.ID) {
			return fmt.Sprintf("cpu[%d].id", i), fmt.Sprintf("unknown CPU flavour %q (a flavour id such as cpu3c)", c.ID)
		}
	}
	return "", ""
}
