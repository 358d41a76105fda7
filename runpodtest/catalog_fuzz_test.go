package runpodtest

import (
	"strconv"
	"testing"
)

// FuzzCUDAAtLeast: whatever the versions, the comparison never panics, a
// version is at least itself and at least its own major, and it agrees
// with comparing the numbers.
func FuzzCUDAAtLeast(f *testing.F) {
	for _, s := range [][2]string{{"12.8", "12"}, {"12.10", "12.9"}, {"11.8", "12.0"}, {"12", "12.1"}, {"1.2.3", "x"}, {"+1.2", "-1"}, {"", "."}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, version, floor string) {
		got := cudaAtLeast(version, floor)
		vMaj, vMin, vOK := cudaParts(version)
		fMaj, fMin, fOK := cudaParts(floor)
		if !vOK || !fOK {
			if got {
				t.Fatalf("cudaAtLeast(%q, %q) is true for a malformed value", version, floor)
			}
			return
		}
		if want := vMaj > fMaj || vMaj == fMaj && vMin >= fMin; got != want {
			t.Fatalf("cudaAtLeast(%q, %q) = %v", version, floor, got)
		}
		if !cudaAtLeast(version, version) || !cudaAtLeast(version, strconv.Itoa(vMaj)) {
			t.Fatalf("%q is not at least itself or its major", version)
		}
	})
}
