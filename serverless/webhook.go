package serverless

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// DefaultWebhookLimit is how much of a webhook body ReadWebhook reads by
// default, in bytes (32 MiB); a larger body is an error.
const DefaultWebhookLimit = 32 << 20

// ReadWebhook reads a job-completion webhook: the platform POSTs the job's
// status JSON (the same as Queue.Status returns) to the URL given in
// RunParams.Webhook. The body is limited to limit bytes (0 means
// DefaultWebhookLimit); the platform retries a delivery that does not get
// 200, so a receiver should deduplicate on the job id.
//
// ReadWebhook does not authenticate the delivery: the platform signs
// nothing, and anyone who learns the URL can post to it. Package
// serverless/webhook is the receiver to use: its Signer mints the URL with
// an HMAC token, and its Handler verifies, deduplicates and answers each
// delivery. ReadWebhook is for a receiver that authenticates deliveries
// some other way.
//
//	http.HandleFunc("/runpod", func(w http.ResponseWriter, r *http.Request) {
//		job, err := serverless.ReadWebhook(w, r, 0)
//		if err != nil {
//			http.Error(w, err.Error(), http.StatusBadRequest)
//			return
//		}
//		… // job.ID, job.Status, job.Output
//	})
func ReadWebhook(w http.ResponseWriter, r *http.Request, limit int64) (*Job, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("runpod: webhook: want POST, got %s", r.Method)
	}
	if limit <= 0 {
		limit = DefaultWebhookLimit
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fmt.Errorf("runpod: webhook: body exceeds %d bytes", tooBig.Limit)
		}
		return nil, fmt.Errorf("runpod: webhook: reading body: %w", err)
	}
	var j Job
	if err := json.Unmarshal(body, &j); err != nil {
		return nil, fmt.Errorf("runpod: webhook: body is not job JSON: %w", err)
	}
	if j.ID == "" || j.Status == "" {
		return nil, errors.New("runpod: webhook: body has no job id or status")
	}
	return &j, nil
}
