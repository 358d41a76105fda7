package worker

import (
	"encoding/json"
	"testing"
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
