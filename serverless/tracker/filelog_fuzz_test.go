package tracker

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecodeLog: a file store's contents, however damaged, never panic
// the decoder, never yield a record without an endpoint or without both a
// job id and a submission id, and what it yields is written back and
// read again unchanged.
func FuzzDecodeLog(f *testing.F) {
	header := "{\"format\":\"runpod-go/tracker\",\"version\":1}\n"
	put := "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j1\",\"submittedAt\":\"2026-06-01T12:00:00Z\",\"sync\":true,\"ttl\":10000000000,\"label\":\"l\",\"completedAt\":\"2026-06-01T12:01:00+02:00\"}}\n"
	del := "{\"delete\":{\"endpointId\":\"e\",\"jobId\":\"j1\"}}\n"
	header2 := "{\"format\":\"runpod-go/tracker\",\"version\":2}\n"
	pending := "{\"put\":{\"endpointId\":\"e\",\"submission\":\"S1\",\"submittedAt\":\"2026-06-01T12:00:00Z\",\"webhookUntil\":\"2026-06-02T12:40:20Z\",\"label\":\"l\"}}\n"
	bound := "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j1\",\"submission\":\"S1\",\"submittedAt\":\"2026-06-01T12:00:00Z\",\"webhookUntil\":\"2026-06-02T12:40:20Z\",\"resumedAt\":\"2026-06-01T13:00:00Z\"}}\n"
	delKey := "{\"delete\":{\"endpointId\":\"e\",\"key\":\"submission/S1\"}}\n"
	for _, seed := range []string{
		"",
		header,
		header + put,
		header + put + del,
		header + put + put[:40],
		header + put + "\x00\x00\x00",
		header + put + "{\"put\":null}\n",
		header + "{\"put\":{\"endpointId\":\" \",\"jobId\":\"j\"}}\n",
		header + "{\"delete\":{\"endpointId\":\"e\",\"jobId\":\"\"}}\n",
		header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j\"},\"delete\":{\"endpointId\":\"e\",\"jobId\":\"j\"}}\n",
		header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j\",\"ttl\":\"1h\"}}\n",
		header + "{\"put\":{\"endpointId\":\"e\",\"jobId\":\"j\",\"submittedAt\":\"10000-01-01T00:00:00Z\"}}\n",
		header + "\r\n\n" + strings.ReplaceAll(put, "\n", "\r\n"),
		header2 + put,
		header2 + pending + bound + delKey,
		header2 + pending + "{\"delete\":{\"endpointId\":\"e\",\"key\":\"k\",\"jobId\":\"j\"}}\n",
		header2 + "{\"delete\":{\"endpointId\":\"e\"}}\n",
		header2 + "{\"put\":{\"endpointId\":\"e\",\"submission\":\" \"}}\n",
		"{\"format\":\"runpod-go/tracker\",\"version\":3}\n" + put,
		"{\"format\":\"other\"}\n",
		"[1,2,3]\n",
		"no newline",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeLog(data)
		if err != nil {
			return
		}
		if d.changes < len(d.records) {
			t.Fatalf("%d records from %d changes", len(d.records), d.changes)
		}
		for k, r := range d.records {
			if strings.TrimSpace(r.EndpointID) == "" || strings.TrimSpace(r.JobID) == "" && strings.TrimSpace(r.Submission) == "" {
				t.Fatalf("a record without an id: %+v", r)
			}
			if k != r.key() {
				t.Fatalf("record %+v filed under %+v", r, k)
			}
		}
		recs := listAll(d.records)
		out, err := encodeLog(recs)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		again, err := decodeLog(out)
		if err != nil {
			t.Fatalf("the written file does not decode: %v\n%s", err, out)
		}
		if again.torn || again.changes != len(recs) {
			t.Fatalf("the written file has %d changes for %d records (torn %v)", again.changes, len(recs), again.torn)
		}
		want, _ := json.Marshal(recs)
		got, _ := json.Marshal(listAll(again.records))
		if string(want) != string(got) {
			t.Fatalf("records changed through a write:\n%s\n%s", want, got)
		}
	})
}
