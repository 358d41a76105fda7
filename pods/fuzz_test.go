package pods

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzPodAddress: whatever pod JSON the platform sends, reading a TCP
// address from it gives an address or one of the documented errors, and
// never panics.
func FuzzPodAddress(f *testing.F) {
	f.Add([]byte(`{"id":"p1","status":"RUNNING","ports":["22/tcp"],"runtime":{"ports":[{"private":22,"public":34446,"type":"tcp","ip":"195.26.233.3"}]}}`), 22)
	f.Add([]byte(`{"id":"p1","status":"RUNNING","ports":["8888/http"],"runtime":{"ports":[{"private":8888,"public":null,"type":"http","ip":null}]}}`), 8888)
	f.Add([]byte(`{"id":"p1","status":"STARTING","ports":["22/tcp"],"runtime":null}`), 22)
	f.Add([]byte(`{"id":"p1","runtime":{"ports":[{"private":22,"public":99999,"type":"tcp","ip":"not-an-ip"}]}}`), 22)
	f.Add([]byte(`{"id":"p1","status":"RUNNING","ports":["70000/tcp"],"runtime":{"ports":[{"private":31337,"public":31337,"type":"tcp","ip":"195.26.233.3"}]}}`), 70000)
	f.Add([]byte(`{"id":"p1","status":"RUNNING","ports":["70000/tcp","70001/tcp"],"runtime":{"ports":[]}}`), 70001)
	f.Fuzz(func(t *testing.T, body []byte, port int) {
		var p Pod
		if json.Unmarshal(body, &p) != nil {
			return
		}
		addr, err := p.TCPAddress(port)
		if err == nil {
			if !addr.IsValid() || addr.Port() == 0 {
				t.Fatalf("invalid address %v without an error", addr)
			}
			return
		}
		known := errors.Is(err, ErrNotRunning) || errors.Is(err, ErrPortNotExposed) || errors.Is(err, ErrHTTPOnly) || errors.Is(err, ErrNotMapped)
		if !known && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
