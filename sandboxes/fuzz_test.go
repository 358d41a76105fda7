package sandboxes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit/fixture"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/sandboxes"
)

// FuzzCreateValidate: any create request, as JSON would give it, is
// either valid or refused with a *errs.ValidationError naming a field of
// CreateSandboxRequest, and neither the error nor the request printed or
// encoded ever holds an Env value.
func FuzzCreateValidate(f *testing.F) {
	f.Add(`{"imageName":"python:3.12-slim","env":{"K":"sekrit-value"},"labels":{"a":"b"}}`)
	f.Add(`{"templateId":"t1","imageName":"x","vcpuCount":0}`)
	f.Add(`{"templateId":" ","env":{"A=B":"sekrit-value"}}`)
	f.Add(`{"imageName":"a b","labels":{"=":""},"idleTimeoutSeconds":-1}`)
	f.Add(`{"imageName":"x","labels":{"runpod-go-create-token":""},"name":"\u0000"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var req sandboxes.CreateSandboxRequest
		if json.Unmarshal([]byte(raw), &req) != nil {
			return
		}
		err := req.Validate()
		if err != nil {
			var v *errs.ValidationError
			if !errors.As(err, &v) || !strings.HasPrefix(v.Field, "CreateSandboxRequest.") {
				t.Fatalf("want a *errs.ValidationError naming a request field, got %T %v", err, err)
			}
		}
		shown := fmt.Sprintf("%v %+v %#v %s", err, req, req, req)
		b, merr := json.Marshal(req)
		if merr != nil {
			t.Fatal(merr)
		}
		for _, v := range req.Env {
			if len(v) >= 8 && !strings.Contains("[REDACTED]", v) && (strings.Contains(shown, v) || strings.Contains(string(b), v)) {
				t.Fatalf("the value %q of Env is shown", v)
			}
		}
	})
}

// FuzzListLabels: any label filter is either refused with a
// *errs.ValidationError naming its place, or sent and answered by the
// fake (its document check included); nothing panics.
func FuzzListLabels(f *testing.F) {
	f.Add("team=a", "env=")
	f.Add("novalue", "=x")
	f.Add("a=b=c", "\x00=1")
	_, rp, _ := fixture.New(f, fixture.Server(runpodtest.WithQuota(runpodtest.Quota{Minute: 1 << 30, Hour: 1 << 30, Day: 1 << 30})))
	f.Fuzz(func(t *testing.T, a, b string) {
		_, err := rp.Sandboxes.List(t.Context(), sandboxes.ListSandboxesParams{Labels: []string{a, b}})
		if err == nil {
			return
		}
		var v *errs.ValidationError
		if !errors.As(err, &v) || !strings.HasPrefix(v.Field, "ListSandboxesParams.Labels[") {
			t.Fatalf("want a *errs.ValidationError naming a label, got %v", err)
		}
	})
}
