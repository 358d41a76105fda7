package runpodtest

import "testing"

// FuzzCursor: decodeCursor takes any string without panicking; a cursor
// it accepts is one encodeCursor made with the key, and reads back as it
// was made; with another key, none is accepted.
func FuzzCursor(f *testing.F) {
	key := []byte("0123456789abcdef0123456789abcdef")
	f.Add("GET /v2/pods", "pod123", 7, "")
	f.Add("", "", 0, "AQ")
	f.Add("GET /v2/catalog/gpus", "NVIDIA GeForce RTX 4090", 1000, "not-a-cursor")
	f.Fuzz(func(t *testing.T, op, last string, offset int, raw string) {
		if c, err := decodeCursor(key, raw); err == nil {
			if encodeCursor(key, c) != raw {
				t.Fatalf("accepted %q, which encodes as %q", raw, encodeCursor(key, c))
			}
		}
		if offset < 0 || offset > 1<<31 {
			return
		}
		want := cursor{op: op, digest: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}, last: last, offset: offset}
		s := encodeCursor(key, want)
		got, err := decodeCursor(key, s)
		if len(s) > 4096 {
			if err == nil {
				t.Fatal("a cursor longer than 4096 bytes was accepted")
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("round trip of %+v: %+v, %v", want, got, err)
		}
		if _, err := decodeCursor([]byte("another key, another server...."), s); err == nil {
			t.Fatal("a cursor sealed with another key was accepted")
		}
	})
}
