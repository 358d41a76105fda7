package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runTestInput is local test mode: run the handler once on --test_input,
// else on test_input.json in the working directory, print the result,
// and report failure with exit code 1. Streaming handlers run fully; their
// chunks are printed as they come.
func runTestInput(ctx context.Context, h Handler, c *config, f *flags, log *logger) error {
	var raw []byte
	switch {
	case f.testInput != nil:
		raw = []byte(*f.testInput)
		log.debug("", "test_input set, using test_input as job input.")
	default:
		path := filepath.Join(c.workDir, "test_input.json")
		if c.testFile != "" {
			path = c.testFile
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			log.warn("", "test_input.json not found, exiting.")
			return &ExitError{Code: 1, Err: errors.New("no job input: pass --test_input '<json>' or add test_input.json (or run with --rp_serve_api)")}
		}
		if err != nil {
			return &ExitError{Code: 1, Err: fmt.Errorf("reading %s: %w", path, err)}
		}
		raw = b
		log.debug("", "Using test_input.json as job input.")
	}
	job, err := parseJob(raw, "local_test")
	if err != nil {
		var noInput *inputError
		if errors.As(err, &noInput) {
			log.error("", "Job has no input parameter. Unable to run.") // the platform runtime's words
		} else {
			log.error("", err.Error())
		}
		return &ExitError{Code: 1, Err: err}
	}
	job.out = logOutlet{log: log, id: job.ID}
	log.debug(job.ID, "Started.")
	start := time.Now()
	out, herr := execute(ctx, h, job)
	job.finish()
	res := normalize(out, herr, job, c, false, time.Since(start))
	if res.Error != "" {
		log.error(job.ID, "Job "+job.ID+" failed with error: "+res.Error)
		return &ExitError{Code: 1, Err: fmt.Errorf("job %s failed", job.ID)}
	}
	body, _ := json.Marshal(res)
	log.info(job.ID, "Job "+job.ID+" completed successfully.")
	log.info(job.ID, "Job result: "+string(body))
	log.info("", "Local testing complete, exiting.")
	return nil
}

// parseJob reads a job object: {"id"?, "input": <non-null>, "webhook"?,
// "batchId"?}; id defaults to defaultID. Its errors name the field at
// fault (see decodeJob); a missing or null "input" is an *inputError.
func parseJob(raw []byte, defaultID string) (*Job, error) {
	raw = bytes.Clone(raw) // the job's own, with its fields slices of it
	f, err := decodeJob(raw, "the job")
	if err != nil {
		return nil, err
	}
	id, err := stringField("id", "", f.ID)
	if err != nil {
		return nil, err
	}
	webhook, err := stringField("webhook", " (an http or https URL)", f.Webhook)
	if err != nil {
		return nil, err
	}
	batchID, err := stringField("batchId", "", f.BatchID)
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = defaultID
	}
	return &Job{ID: id, Input: f.Input, Webhook: webhook, BatchID: batchID, Raw: raw}, nil
}

// logOutlet prints a test-mode job's chunks and progress.
type logOutlet struct {
	log *logger
	id  string
}

func (o logOutlet) stream(chunk json.RawMessage) error {
	o.log.info(o.id, "Stream chunk: "+string(chunk))
	return nil
}

func (o logOutlet) progress(p json.RawMessage) error {
	o.log.info(o.id, "Progress: "+string(p))
	return nil
}
