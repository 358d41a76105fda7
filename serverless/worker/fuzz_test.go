package worker

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/runpodkit/runpod-go/internal/jobqueue"
)

// FuzzParseJob: a job from the platform (or --test_input) is either a job
// with an input or an error, never a panic; normalising any handler
// output gives a result that encodes.
func FuzzParseJob(f *testing.F) {
	f.Add([]byte(`{"id":"j1","input":{"prompt":"hi"},"webhook":"https://x","batchId":"b"}`))
	f.Add([]byte(`{"input":null}`))
	f.Add([]byte(`[{"id":"a","input":1}]`))
	f.Add([]byte(`{"error":"x","refresh_worker":true,"rest":[1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		job, err := parseJob(body, "d")
		if err == nil && (job.ID == "" || len(job.Input) == 0) {
			t.Fatalf("job without id or input: %+v", job)
		}
		var out any
		if json.Unmarshal(body, &out) == nil {
			r := normalize(out, nil, &Job{}, newConfig(nil), false, 0)
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("result does not encode: %v", err)
			}
		}
	})
}

// FuzzDecodeJob: the job reader, which walks the object once, reads what
// a JSON decoder does: the last member of each exact key, byte for byte,
// escaped keys included; and it refuses exactly what is not an object.
func FuzzDecodeJob(f *testing.F) {
	for _, s := range []string{
		`{"id":"j1","input":{"prompt":"hi","n":[1,{"a":"}"}]},"webhook":"https://x","batchId":"b"}`,
		` { "input" : "a\\\"b" , "input":[ 1 , 2 ] } `,
		`{"inp\u0075t":true,"Input":1}`,
		`{"input":null}`, `{}`, `[1]`, `"s"`, `{"input":1,}`, ``, `{"a":{"input":1}}`,
		`{"input":-1.5e3}`, `{"x":"\u00e9","input":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeJob(body, "body")
		var ref map[string]json.RawMessage
		refErr := json.Unmarshal(body, &ref)
		if refErr != nil || ref == nil {
			if err == nil {
				t.Fatalf("accepted %q, which is not a JSON object", body)
			}
			return
		}
		want := jobFields{ID: ref["id"], Input: ref["input"], Webhook: ref["webhook"], BatchID: ref["batchId"]}
		for _, p := range [][2][]byte{{got.ID, want.ID}, {got.Input, want.Input}, {got.Webhook, want.Webhook}, {got.BatchID, want.BatchID}} {
			if string(p[0]) != string(p[1]) {
				t.Fatalf("%q: read %q, a decoder reads %q", body, p[0], p[1])
			}
		}
		if input := want.Input; (len(input) == 0 || string(input) == "null") != (err != nil) {
			t.Fatalf("%q: error %v with input %q", body, err, input)
		}
	})
}

// FuzzWriteJob: the job answer written by hand is byte for byte what
// encoding/json writes for the same job, for any id, worker, error and
// output a handler can produce (its return through json.Marshal).
func FuzzWriteJob(f *testing.F) {
	f.Add("test-1", "", "", `{"echo":"hi"}`, int64(0), int64(0), 0)
	f.Add("sync-<&>", "local", "boom\n\"x\"\u2028\xff", `"<b>"`, int64(3), int64(-1), 2)
	f.Add("", "w", "", ``, int64(1), int64(1), 0)
	f.Fuzz(func(t *testing.T, id, worker, errText, output string, delay, exec int64, retries int) {
		var out json.RawMessage
		if output != "" {
			var v any
			if json.Unmarshal([]byte(output), &v) != nil {
				return
			}
			out, _ = json.Marshal(v) // what normalize hands the server
		}
		for _, status := range []jobqueue.Status{jobqueue.Completed, jobqueue.InProgress, jobqueue.Failed} {
			v := jobqueue.View{ID: id, Status: status, WorkerID: worker, Error: errText, Output: out, Retries: retries,
				DelayTime: time.Duration(delay) * time.Millisecond, ExecutionTime: time.Duration(exec) * time.Millisecond}
			got := httptest.NewRecorder()
			writeJob(got, v)
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(v.Wire()); err != nil {
				t.Fatal(err)
			}
			if got.Body.String() != want.String() {
				t.Fatalf("wrote  %s\nencoding/json %s", got.Body, want.String())
			}
			if got.Code != 200 || got.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("answered %d, %q", got.Code, got.Header().Get("Content-Type"))
			}
		}
	})
}
