package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func all(t *testing.T, stream string, max int) ([]Event, error) {
	t.Helper()
	d := NewDecoder(strings.NewReader(stream), max)
	var out []Event
	for {
		ev, err := d.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		ev.Data = append([]byte(nil), ev.Data...)
		out = append(out, ev)
	}
}

func TestDecode(t *testing.T) {
	stream := ": keep-alive\n" +
		"id: 2026-06-01T12:02:03Z/000000000001\n" +
		"data: {\"ts\":\"2026-06-01T12:02:03Z\",\"source\":\"container\",\"line\":\"Model loaded.\"}\n\n" +
		"event: update\r\ndata:first\r\ndata:  second\r\nretry: 1500\r\n\r\n" +
		"data: cr only\rdata: more\r\r" +
		"data\n\n" +
		"id: 7\n\n" +
		"data: [DONE]\n\n" +
		"data: unterminated"
	evs, err := all(t, stream, 0)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "a stream ending mid-line says so")
	require.Len(t, evs, 5)
	assert.Equal(t, Event{ID: "2026-06-01T12:02:03Z/000000000001", Type: "message",
		Data: []byte(`{"ts":"2026-06-01T12:02:03Z","source":"container","line":"Model loaded."}`)}, evs[0])
	assert.Equal(t, "update", evs[1].Type)
	assert.Equal(t, "first\n second", string(evs[1].Data), "one leading space stripped, no more")
	assert.Equal(t, 1500*time.Millisecond, evs[1].Retry)
	assert.Equal(t, "cr only\nmore", string(evs[2].Data))
	assert.Equal(t, "", string(evs[3].Data), "a bare data field is an empty line")
	assert.Equal(t, "[DONE]", string(evs[4].Data))
	assert.Equal(t, "7", evs[4].ID, "ids persist")
}

func TestCleanEOF(t *testing.T) {
	evs, err := all(t, "data: a\n\ndata: b\n\n", 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	evs, err = all(t, "", 0)
	require.NoError(t, err)
	assert.Empty(t, evs)
}

func TestLargeEvents(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	evs, err := all(t, "data: "+big+"\n\n", 2<<20)
	require.NoError(t, err)
	assert.Len(t, evs[0].Data, 1<<20, "megabyte lines decode (no bufio.Scanner limit)")
	_, err = all(t, "data: "+big+"\n\n", 1000)
	require.ErrorIs(t, err, ErrEventTooLarge)
	_, err = all(t, "data: "+strings.Repeat("y", 600)+"\ndata: "+strings.Repeat("y", 600)+"\n\n", 1000)
	require.ErrorIs(t, err, ErrEventTooLarge)
}

// TestKeepingDecoder: a keeping decoder's events are those of a plain one,
// and each event's data stays as it was dispatched after the stream has
// read on (events of one line and of several, smaller and larger than a
// block, empty ones); an append to one event's data does not reach the
// next's.
func TestKeepingDecoder(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		line := strings.Repeat(string(rune('a'+i%26)), i*i%900)
		switch {
		case i%97 == 0:
			line = strings.Repeat("z", keepBlock+i) // larger than a block
		case i%7 == 0:
			line += "\r\ndata: " + line // two lines, CRLF
		case i%11 == 0:
			line = ""
		}
		b.WriteString("data: " + line + "\n\n")
	}
	stream := b.String()
	want, err := all(t, stream, 0)
	require.NoError(t, err)
	got, err := keepAll(stream, 0)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, string(want[i].Data), string(got[i].Data), "event %d", i)
	}
	grown := append(got[1].Data, "tail"...)
	assert.Equal(t, string(want[2].Data), string(got[2].Data), "an append to one event's data reached the next")
	assert.Equal(t, string(want[1].Data)+"tail", string(grown))
}

// keepAll decodes stream with a keeping decoder and returns its events,
// their data as the decoder left it.
func keepAll(stream string, max int) ([]Event, error) {
	d := NewKeepingDecoder(strings.NewReader(stream), max)
	var out []Event
	for {
		ev, err := d.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add("data: hello\n\n")
	f.Add("id: 1\r\nevent: x\r\ndata: a\r\ndata: b\r\n\r\n")
	f.Add(": c\rdata:x\r\r")
	f.Add("retry: 99999999999\ndata\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		d := NewDecoder(strings.NewReader(stream), 1024)
		var copied []string
		for range 10000 {
			ev, err := d.Next()
			if err != nil {
				kept, kerr := keepAll(stream, 1024)
				if (kerr == nil) != (errors.Is(err, io.EOF)) || len(kept) != len(copied) {
					t.Fatalf("keeping decoder: %d events, %v; plain: %d, %v", len(kept), kerr, len(copied), err)
				}
				for i := range kept {
					if string(kept[i].Data) != copied[i] {
						t.Fatalf("kept event %d: %q, want %q", i, kept[i].Data, copied[i])
					}
				}
				return
			}
			if len(ev.Data) > 1024 {
				t.Fatalf("event of %d bytes past the cap", len(ev.Data))
			}
			if ev.Type == "" {
				t.Fatal("dispatched event without a type")
			}
			copied = append(copied, string(ev.Data))
		}
		t.Fatal("more events than bytes")
	})
}
