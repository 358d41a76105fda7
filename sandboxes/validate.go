package sandboxes

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/runpodkit/runpod-go/internal/check"
	"github.com/runpodkit/runpod-go/internal/fail"
)

// Validate checks the request as the platform's docs describe it, naming
// the field in a *errs.ValidationError: exactly one of ImageName and
// TemplateID; names and ids not blank and without control characters (ids
// and the image without white space); VcpuCount, MemoryInGb,
// IdleTimeoutSeconds and MaxLifetimeSeconds at least 1 (the timeouts are
// not bounded above: the platform clamps them to the account's maxima);
// Env names without '=', white space or control characters; label keys
// not empty and without '=' (List filters by "key=value"), keys and
// values without control characters. Env values are never quoted.
func (r *CreateSandboxRequest) Validate() error {
	const f = "CreateSandboxRequest"
	switch {
	case r.ImageName != nil && r.TemplateID != nil:
		return fail.Invalid(f+".ImageName", "and TemplateID are both set: want exactly one")
	case r.ImageName == nil && r.TemplateID == nil:
		return fail.Invalid(f+".ImageName", "and TemplateID are both nil: want exactly one (an image such as python:3.12-slim, or a template id)")
	}
	for _, s := range []struct {
		field string
		v     *string
		words bool // may hold spaces
	}{
		{"ImageName", r.ImageName, false}, {"TemplateID", r.TemplateID, false}, {"Name", r.Name, true},
		{"CPUFlavorID", r.CPUFlavorID, false}, {"DataCenterID", r.DataCenterID, false},
	} {
		if err := checkText(f+"."+s.field, s.v, s.words); err != nil {
			return err
		}
	}
	for _, n := range []struct {
		field string
		v     *int
	}{
		{"VcpuCount", r.VcpuCount}, {"MemoryInGb", r.MemoryInGb},
		{"IdleTimeoutSeconds", r.IdleTimeoutSeconds}, {"MaxLifetimeSeconds", r.MaxLifetimeSeconds},
	} {
		if n.v != nil && *n.v < 1 {
			return fail.Invalid(f+"."+n.field, "must be at least 1, got %d", *n.v)
		}
	}
	if err := check.EnvNames(f+".Env", r.Env); err != nil {
		return err
	}
	return checkLabels(f+".Labels", r.Labels)
}

// checkText checks an optional text field: not blank, valid UTF-8,
// without control characters, and without white space unless words.
func checkText(field string, v *string, words bool) error {
	if v == nil {
		return nil
	}
	s := *v
	switch {
	case strings.TrimSpace(s) == "":
		return fail.Invalid(field, "is blank: leave it nil instead")
	case !utf8.ValidString(s):
		return fail.Invalid(field, "is not valid UTF-8")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fail.Invalid(field, "holds a control character")
	case !words && strings.IndexFunc(s, unicode.IsSpace) >= 0:
		return fail.Invalid(field, "holds white space, got %q", s)
	}
	return nil
}

// checkLabels checks labels in sorted order of keys, so the error is the
// same on every run.
func checkLabels(field string, labels map[string]string) error {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := labels[k]
		switch {
		case strings.TrimSpace(k) == "":
			return fail.Invalid(field, "has a blank key")
		case strings.Contains(k, "="):
			return fail.Invalid(field, "key %q holds '=', which List's key=value filter cannot match", k)
		case !utf8.ValidString(k) || !utf8.ValidString(v):
			return fail.Invalid(fmt.Sprintf("%s[%q]", field, k), "is not valid UTF-8")
		case strings.IndexFunc(k, unicode.IsControl) >= 0 || strings.IndexFunc(v, unicode.IsControl) >= 0:
			return fail.Invalid(fmt.Sprintf("%s[%q]", field, k), "holds a control character")
		case k == TokenLabel && v == "":
			return fail.Invalid(fmt.Sprintf("%s[%q]", field, k), "is empty: leave the token out for Create to make one")
		}
	}
	return nil
}

// check validates p: a known State, and each label "key=value" with a
// key that is not blank.
func (p ListSandboxesParams) check() error {
	if p.State != nil && !p.State.Valid() {
		return fail.Invalid("ListSandboxesParams.State", "want CREATING, RUNNING, TERMINATED or FAILED, got %q", string(*p.State))
	}
	for i, l := range p.Labels {
		k, _, ok := strings.Cut(l, "=")
		field := fmt.Sprintf("ListSandboxesParams.Labels[%d]", i)
		switch {
		case !ok:
			return fail.Invalid(field, "want key=value (Label makes one), got %q", l)
		case strings.TrimSpace(k) == "":
			return fail.Invalid(field, "has a blank key, got %q", l)
		case strings.IndexFunc(l, unicode.IsControl) >= 0:
			return fail.Invalid(field, "holds a control character")
		}
	}
	return nil
}

// Validate checks the command (see checkArgv); Exec has checked it before.
func (r execSandboxRequest) Validate() error { return checkArgv(r.Command) }
