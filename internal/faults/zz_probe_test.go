package faults

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/option"
)

func TestProbeNoArg(t *testing.T) {
	rp, _ := runpod.NewClient(option.WithAPIKey(oddKey), option.WithBaseURL("https://api.example.test"))
	seen := map[reflect.Type]bool{}
	ctxType := reflect.TypeFor[context.Context]()
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		tt := v.Type()
		if seen[tt] {
			return
		}
		seen[tt] = true
		for i := range tt.NumMethod() {
			m := tt.Method(i)
			_ = ctxType
			if m.Type.NumIn() == 1 && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Pointer &&
				m.Type.Out(0).Elem().Kind() == reflect.Struct && strings.HasPrefix(m.Type.Out(0).Elem().PkgPath(), "github.com/runpodkit/runpod-go") {
				t.Logf("no-arg candidate: %s.%s -> %s", name(tt), m.Name, m.Type.Out(0))
			}
			if m.Type.NumIn() == 2 && m.Type.In(1).Kind() == reflect.String && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Pointer {
				visit(v.Method(i).Call([]reflect.Value{reflect.ValueOf("x")})[0])
			}
			if m.Type.NumIn() == 1 && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Pointer &&
				m.Type.Out(0).Elem().Kind() == reflect.Struct && strings.HasPrefix(m.Type.Out(0).Elem().PkgPath(), "github.com/runpodkit/runpod-go") {
				if m.Name == "Batches" {
					visit(v.Method(i).Call(nil)[0])
				}
			}
		}
		if tt.Kind() == reflect.Pointer && tt.Elem().Kind() == reflect.Struct {
			for i := range tt.Elem().NumField() {
				if f := tt.Elem().Field(i); f.IsExported() && f.Type.Kind() == reflect.Pointer {
					visit(v.Elem().Field(i))
				}
			}
		}
	}
	visit(reflect.ValueOf(rp))
	for k := range seen {
		t.Logf("type %v", k)
	}
}
