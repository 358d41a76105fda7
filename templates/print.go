package templates

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Printing. Every type that holds Env prints (String, GoString, every fmt
// verb through Format) and logs (LogValue) as one line naming its fields,
// with each Env value replaced by [REDACTED]: the names of the variables
// show, their values never do. Nil fields are left out and pointers are
// followed. The fields are named one by one, so a field the generator
// adds or renames fails to compile here or is missing from the line,
// never printed raw.

const redacted = "[REDACTED]"

// String describes the request, without the values of Env.
func (r CreateTemplateRequest) String() string {
	p := newPrinter("CreateTemplateRequest")
	p.str("Name", r.Name)
	p.str("Image", r.Image)
	optStr(p, "Args", r.Args)
	opt(p, "Disk", r.Disk)
	p.list("Ports", r.Ports)
	p.env(r.Env)
	optStr(p, "Registry", r.Registry)
	p.settings(r.Category, r.Mounts, r.Serverless, r.Public, r.StartSSH, r.StartJupyter, r.AllowedCUDAVersions)
	return p.done()
}

// String describes the request, without the values of Env.
func (r UpdateTemplateRequest) String() string {
	p := newPrinter("UpdateTemplateRequest")
	optStr(p, "Name", r.Name)
	optStr(p, "Image", r.Image)
	optStr(p, "Args", r.Args)
	opt(p, "Disk", r.Disk)
	p.list("Ports", r.Ports)
	p.env(r.Env)
	switch v, err := r.Registry.Get(); {
	case err == nil:
		p.str("Registry", v)
	case r.Registry.IsNull():
		p.field("Registry")
		p.b.WriteString("null")
	}
	p.settings(r.Category, r.Mounts, r.Serverless, r.Public, r.StartSSH, r.StartJupyter, r.AllowedCUDAVersions)
	return p.done()
}

// String describes the template, without the values of Env.
func (t Template) String() string {
	p := newPrinter("Template")
	p.str("ID", t.ID)
	p.str("Name", t.Name)
	p.str("Image", t.Image)
	p.str("Args", t.Args)
	p.val("Disk", t.Disk)
	p.list("Ports", t.Ports)
	if !t.Env.IsZero() {
		p.field("Env")
		p.b.WriteString(t.Env.String())
	}
	optStr(p, "Registry", t.Registry)
	p.val("Category", t.Category)
	p.mounts(&t.Mounts)
	p.val("Serverless", t.Serverless)
	p.val("Public", t.Public)
	p.val("StartSSH", t.StartSSH)
	p.val("StartJupyter", t.StartJupyter)
	p.list("AllowedCUDAVersions", t.AllowedCUDAVersions)
	return p.done()
}

// Every other way to print these types prints String.

// GoString is String.
func (r CreateTemplateRequest) GoString() string { return r.String() }

// GoString is String.
func (r UpdateTemplateRequest) GoString() string { return r.String() }

// GoString is String.
func (t Template) GoString() string { return t.String() }

// Format prints String for every verb.
func (r CreateTemplateRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// Format prints String for every verb.
func (r UpdateTemplateRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// Format prints String for every verb.
func (t Template) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(t.String())) }

// LogValue logs String.
func (r CreateTemplateRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

// LogValue logs String.
func (r UpdateTemplateRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

// LogValue logs String.
func (t Template) LogValue() slog.Value { return slog.StringValue(t.String()) }

// printer builds "Type{Field:value …}".
type printer struct {
	b     strings.Builder
	empty bool
}

func newPrinter(typ string) *printer {
	p := &printer{empty: true}
	p.b.WriteString(typ + "{")
	return p
}

func (p *printer) field(name string) {
	if !p.empty {
		p.b.WriteByte(' ')
	}
	p.empty = false
	p.b.WriteString(name + ":")
}

// str prints a string quoted.
func (p *printer) str(name, v string) {
	p.field(name)
	p.b.WriteString(strconv.Quote(v))
}

// val prints a number, a bool or an enum.
func (p *printer) val(name string, v any) {
	p.field(name)
	fmt.Fprint(&p.b, v)
}

// list prints a non-nil slice of strings, quoted.
func (p *printer) list(name string, v []string) {
	if v == nil {
		return
	}
	p.field(name)
	p.b.WriteByte('[')
	for i, s := range v {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.b.WriteString(strconv.Quote(s))
	}
	p.b.WriteByte(']')
}

// env prints the names of a non-nil environment, sorted, each value
// replaced.
func (p *printer) env(env map[string]string) {
	if env == nil {
		return
	}
	p.field("Env")
	p.b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(env)) {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.b.WriteString(strconv.Quote(k) + ":" + redacted)
	}
	p.b.WriteByte('}')
}

// mounts prints non-nil mounts with their persistent volume.
func (p *printer) mounts(m *TemplateMounts) {
	if m == nil {
		return
	}
	p.field("Mounts")
	if m.Persistent == nil {
		p.b.WriteString("{}")
		return
	}
	fmt.Fprintf(&p.b, "{Persistent:{Size:%d Path:%s}}", m.Persistent.Size, strconv.Quote(m.Persistent.Path))
}

func (p *printer) done() string {
	p.b.WriteByte('}')
	return p.b.String()
}

// settings prints the fields both requests end with, each when set: the
// category, the mounts, the four switches and the CUDA versions.
func (p *printer) settings(category *TemplateCategory, mounts *TemplateMounts, serverless, public, startSSH, startJupyter *bool, cudaVersions []string) {
	opt(p, "Category", category)
	p.mounts(mounts)
	opt(p, "Serverless", serverless)
	opt(p, "Public", public)
	opt(p, "StartSSH", startSSH)
	opt(p, "StartJupyter", startJupyter)
	p.list("AllowedCUDAVersions", cudaVersions)
}

// opt prints the value a non-nil pointer points to.
func opt[T any](p *printer, name string, v *T) {
	if v != nil {
		p.val(name, *v)
	}
}

// optStr prints the string a non-nil pointer points to, quoted.
func optStr(p *printer, name string, v *string) {
	if v != nil {
		p.str(name, *v)
	}
}
