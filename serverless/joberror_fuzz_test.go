package serverless

import (
	"strings"
	"testing"
)

// FuzzJobError: whatever a worker reports as a FAILED job's error text, a
// JobError is made of it without panicking: Message is the worker's
// error_message when the text is its JSON object, else the text itself;
// the whole text always stays in Job.Error.
func FuzzJobError(f *testing.F) {
	f.Add(`{"error_type":"*errors.errorString","error_message":"boom","hostname":"h","worker_id":"w"}`)
	f.Add(`plain failure`)
	f.Add(`{"error_message":""}`)
	f.Add(`{"error_message":{"nested":true}}`)
	f.Add(`  {"error_type":7}`)
	f.Fuzz(func(t *testing.T, text string) {
		j := &Job{ID: "job-1", Status: JobStatusFailed, Error: text}
		e := newJobError(j.ID, j)
		if e.Job.Error != text {
			t.Fatal("the whole text was not kept")
		}
		if e.Message != text && !strings.HasPrefix(strings.TrimSpace(text), "{") {
			t.Fatalf("a text that is not an object changed: %q → %q", text, e.Message)
		}
		_ = e.Error()
	})
}
