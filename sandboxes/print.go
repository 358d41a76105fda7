package sandboxes

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// String describes the request with the names of Env only, each value
// shown as [REDACTED]: the values may be secrets.
func (r CreateSandboxRequest) String() string {
	var b strings.Builder
	b.WriteString("sandboxes.CreateSandboxRequest{")
	sep := ""
	str := func(name string, v *string) {
		if v != nil {
			b.WriteString(sep + name + ":" + strconv.Quote(*v))
			sep = " "
		}
	}
	num := func(name string, v *int) {
		if v != nil {
			b.WriteString(sep + name + ":" + strconv.Itoa(*v))
			sep = " "
		}
	}
	str("ImageName", r.ImageName)
	str("TemplateID", r.TemplateID)
	str("Name", r.Name)
	str("CPUFlavorID", r.CPUFlavorID)
	num("VcpuCount", r.VcpuCount)
	num("MemoryInGb", r.MemoryInGb)
	str("DataCenterID", r.DataCenterID)
	num("IdleTimeoutSeconds", r.IdleTimeoutSeconds)
	num("MaxLifetimeSeconds", r.MaxLifetimeSeconds)
	if r.Env != nil {
		b.WriteString(sep + "Env:{")
		for i, k := range slices.Sorted(maps.Keys(r.Env)) {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.Quote(k) + ":[REDACTED]")
		}
		b.WriteString("}")
		sep = " "
	}
	if r.Labels != nil {
		b.WriteString(sep + "Labels:{")
		for i, k := range slices.Sorted(maps.Keys(r.Labels)) {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strconv.Quote(k) + ":" + strconv.Quote(r.Labels[k]))
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String.
func (r CreateSandboxRequest) GoString() string { return r.String() }

// Format prints String for every verb, so no verb reaches Env's values.
func (r CreateSandboxRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// LogValue logs String.
func (r CreateSandboxRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }
