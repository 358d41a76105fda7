package apicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/clusters"
	"github.com/runpodkit/runpod-go/globalvolumes"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/registries"
	"github.com/runpodkit/runpod-go/sandboxes"
	"github.com/runpodkit/runpod-go/secret"
	"github.com/runpodkit/runpod-go/secrets"
	"github.com/runpodkit/runpod-go/serverless"
	"github.com/runpodkit/runpod-go/serverless/graphqlendpoints"
	"github.com/runpodkit/runpod-go/templates"
)

// secretValue is the value every secret of the walked types is set to.
const secretValue = "SECRET-value-0123456789"

// services are the Service types whose methods' results are walked.
var services = []any{&templates.Service{}, &registries.Service{}, &secrets.Service{}, &globalvolumes.Service{}, &serverless.Endpoints{}, &graphqlendpoints.Service{},
	&serverless.Queue{}, &pods.Service{}, &clusters.Service{}, &sandboxes.Service{}}

// TestReturnedSecretsNeverPrinted walks every exported type a Service
// method returns (through pointers, slices and iterators), fills every
// place a secret can sit (a secret.Env, a map[string]string, a string
// field named Password) and checks that fmt (%v %+v %#v %s), log/slog
// (text and JSON handlers; the value at the top and nested in a slice, a
// map, a struct and []any) and encoding/json show none of it (issue 26,
// item 3). A map[string]string named Env in a returned type fails by
// itself: the platform's environment is returned as a secret.Env.
func TestReturnedSecretsNeverPrinted(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walked []string
	for _, svc := range services {
		st := reflect.TypeOf(svc)
		for i := range st.NumMethod() {
			m := st.Method(i)
			for j := range m.Type.NumOut() {
				for _, typ := range results(m.Type.Out(j)) {
					if seen[typ] {
						continue
					}
					seen[typ] = true
					v := reflect.New(typ).Elem()
					if !fill(t, v, typ.String(), 0) {
						continue
					}
					walked = append(walked, typ.String())
					checkNotShown(t, typ.String(), v.Interface())
					checkNotShown(t, typ.String()+" (pointer)", v.Addr().Interface())
				}
			}
		}
	}
	for _, want := range []string{"templates.Template", "serverless.Endpoint", "serverless.ApplyResult", "pods.Pod"} {
		if !strings.Contains(strings.Join(walked, " "), want+" ") && !strings.HasSuffix(strings.Join(walked, " "), want) {
			t.Fatalf("%s was not walked: %v", want, walked)
		}
	}
	checkNotShown(t, "secret.Env", secret.NewEnv(map[string]string{"HF_TOKEN": secretValue}))
}

// results returns the struct types a method result t holds.
func results(t reflect.Type) []reflect.Type {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return results(t.Elem())
	case reflect.Func: // iter.Seq2[T, error]: func(yield func(T, error) bool)
		if t.NumIn() == 1 && t.In(0).Kind() == reflect.Func {
			var out []reflect.Type
			for i := range t.In(0).NumIn() {
				out = append(out, results(t.In(0).In(i))...)
			}
			return out
		}
	case reflect.Struct:
		return []reflect.Type{t}
	}
	return nil
}

var envType = reflect.TypeFor[secret.Env]()

// fill puts secretValue wherever v can hold a secret and reports whether
// it found such a place.
func fill(t *testing.T, v reflect.Value, path string, depth int) bool {
	if depth > 6 {
		return false
	}
	switch {
	case v.Type() == envType:
		v.Set(reflect.ValueOf(secret.NewEnv(map[string]string{"HF_TOKEN": secretValue})))
		return true
	case v.Type() == reflect.TypeFor[map[string]string]():
		if strings.HasSuffix(path, ".Env") { // labels and the like are not secret
			t.Errorf("%s is a map[string]string: a returned environment must be a secret.Env", path)
		}
		return false
	}
	found := false
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		found = fill(t, v.Elem(), path, depth+1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if found = fill(t, s.Index(0), path+"[0]", depth+1); found {
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Type.Kind() == reflect.String && strings.Contains(strings.ToLower(f.Name), "password") {
				v.Field(i).SetString(secretValue)
				found = true
				continue
			}
			if fill(t, v.Field(i), path+"."+f.Name, depth+1) {
				found = true
			}
		}
	}
	return found
}

// holder nests a value in a struct.
type holder struct {
	V any
	S []any
}

// checkNotShown fails when any printed, logged or encoded form of v shows
// secretValue.
func checkNotShown(t *testing.T, name string, v any) {
	t.Helper()
	nested := []any{v, []any{v}, map[string]any{"v": v}, holder{V: v, S: []any{v}}, []holder{{V: v}}}
	var outs []string
	for _, n := range nested {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			outs = append(outs, fmt.Sprintf(verb, n))
		}
		j, err := json.Marshal(n)
		if err != nil {
			t.Errorf("%s: json: %v", name, err)
		}
		outs = append(outs, string(j))
		var b bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&b, nil), slog.NewJSONHandler(&b, nil)} {
			slog.New(h).Info("x", "v", n, slog.Group("g", "v", n))
		}
		outs = append(outs, b.String())
	}
	for _, out := range outs {
		if strings.Contains(out, "SECRET-value") {
			t.Errorf("%s shows its secret: %s", name, out)
		}
	}
}

// TestRequestSecretsNeverPrinted walks every struct type a Service method
// takes (a request), fills each environment (a map[string]string, or a
// pointer to one, in a field named Env) and each password, and checks
// that fmt (%v %+v %#v %s %q, the value at the top and nested in a
// slice, a map and a struct) and log/slog (the text handler at any
// nesting; the JSON handler for the value itself and in a group, which
// log through LogValue) show none of it. encoding/json is not checked: a
// request's JSON is what is sent to the platform.
func TestRequestSecretsNeverPrinted(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walked []string
	for _, svc := range services {
		st := reflect.TypeOf(svc)
		for i := range st.NumMethod() {
			m := st.Method(i)
			for j := 1; j < m.Type.NumIn(); j++ {
				typ := m.Type.In(j)
				for typ.Kind() == reflect.Pointer {
					typ = typ.Elem()
				}
				if typ.Kind() != reflect.Struct || seen[typ] {
					continue
				}
				seen[typ] = true
				v := reflect.New(typ).Elem()
				if !fillRequest(v, 0) {
					continue
				}
				walked = append(walked, typ.String())
				checkNotPrinted(t, typ.String(), v.Interface())
				checkNotPrinted(t, typ.String()+" (pointer)", v.Addr().Interface())
			}
		}
	}
	for _, want := range []string{"pods.CreatePodRequest", "pods.UpdatePodRequest", "serverless.CreateEndpointRequest",
		"serverless.UpdateEndpointRequest", "clusters.CreateClusterRequest", "templates.CreateTemplateRequest"} {
		if !slices.Contains(walked, want) {
			t.Errorf("%s was not walked: %v", want, walked)
		}
	}
}

// fillRequest puts secretValue in every environment and password of a
// request and reports whether it found one.
func fillRequest(v reflect.Value, depth int) bool {
	if depth > 6 {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return fillRequest(v.Elem(), depth+1)
	case reflect.Struct:
		found := false
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			switch {
			case f.Name == "Env" && fv.Type() == reflect.TypeFor[map[string]string]():
				fv.Set(reflect.ValueOf(map[string]string{"HF_TOKEN": secretValue}))
				found = true
			case f.Name == "Env" && fv.Type() == reflect.TypeFor[*map[string]string]():
				m := map[string]string{"HF_TOKEN": secretValue}
				fv.Set(reflect.ValueOf(&m))
				found = true
			case f.Type.Kind() == reflect.String && strings.Contains(strings.ToLower(f.Name), "password"):
				fv.SetString(secretValue)
				found = true
			case f.Type.Kind() == reflect.Pointer || f.Type.Kind() == reflect.Struct:
				if fillRequest(fv, depth+1) {
					found = true
				}
			}
		}
		return found
	}
	return false
}

// checkNotPrinted fails when fmt or log/slog shows secretValue in v.
func checkNotPrinted(t *testing.T, name string, v any) {
	t.Helper()
	var outs []string
	for _, n := range []any{v, []any{v}, map[string]any{"v": v}, holder{V: v, S: []any{v}}, []holder{{V: v}}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			outs = append(outs, fmt.Sprintf(verb, n))
		}
		var b bytes.Buffer
		slog.New(slog.NewTextHandler(&b, nil)).Info("x", "v", n, slog.Group("g", "v", n))
		outs = append(outs, b.String())
	}
	var b bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&b, nil))
	l.Info("x", "v", v, slog.Group("g", "v", v))
	l.With("w", v).WithGroup("h").Info("y", "v", v)
	outs = append(outs, b.String())
	for _, out := range outs {
		if strings.Contains(out, "SECRET-value") {
			t.Errorf("%s shows its secret: %s", name, out)
		}
	}
}
