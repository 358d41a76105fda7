package files_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/volumes/files"
)

func TestKey(t *testing.T) {
	for _, path := range []string{
		"/workspace/models/a.bin",
		"/runpod-volume/models/a.bin",
		"s3://k7m2q9x4vd/models/a.bin",
		"models/a.bin",
	} {
		key, err := files.Key(path)
		require.NoError(t, err, path)
		assert.Equal(t, "models/a.bin", key, path)
	}
	key, err := files.Key("/workspace/models/")
	require.NoError(t, err)
	assert.Equal(t, "models/", key, "a directory keeps its final slash")
}

func TestKeyRefuses(t *testing.T) {
	for path, want := range map[string]string{
		"":                          "required",
		"/workspace":                "outside the volume",
		"/workspace/":               "required",
		"/home/user/a.bin":          "outside the volume",
		"/workspacefoo/a.bin":       "outside the volume",
		"s3://k7m2q9x4vd":           "no file",
		"models//a.bin":             "empty path segment",
		"models/../etc/passwd":      `".." segment`,
		"./a.bin":                   `"." segment`,
		"a\x00b":                    "control character",
		"a\x7fb":                    "control character",
		"\xff":                      "UTF-8",
		strings.Repeat("a", 1025):   "at most 1024",
		"/runpod-volume/../x":       `".." segment`,
		"s3://vol//workspace/a":     "relative",
		"/workspace/models/\ta.bin": "control character",
	} {
		_, err := files.Key(path)
		var ve *errs.ValidationError
		if assert.True(t, errors.As(err, &ve), "%q: %v", path, err) {
			assert.Equal(t, "path", ve.Field, path)
			assert.Contains(t, ve.Error(), want, path)
		}
	}
}

func TestPodAndWorkerPaths(t *testing.T) {
	assert.Equal(t, "/workspace/models/a.bin", files.PodPath("models/a.bin"))
	assert.Equal(t, "/runpod-volume/models/a.bin", files.WorkerPath("models/a.bin"))
	for _, key := range []string{"a", "models/a.bin", "models/"} {
		back, err := files.Key(files.PodPath(key))
		require.NoError(t, err)
		assert.Equal(t, key, back)
		back, err = files.Key(files.WorkerPath(key))
		require.NoError(t, err)
		assert.Equal(t, key, back)
	}
}

// FuzzKey checks that Key either refuses a path or returns a key that
// names one path on the volume, which the pod and worker paths give back.
func FuzzKey(f *testing.F) {
	for _, s := range []string{
		"/workspace/models/a.bin", "/runpod-volume/a", "s3://vol/a/b", "a/b/", "a//b", "../a", "/workspace/..",
		"s3://", "s3://v/", "\x00", "a/./b", "/runpod-volume/", "é/ü",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		key, err := files.Key(path)
		if err != nil {
			var ve *errs.ValidationError
			assert.True(t, errors.As(err, &ve), "%q: %T %v", path, err, err)
			return
		}
		assert.NotEmpty(t, key)
		assert.LessOrEqual(t, len(key), files.MaxKeyLength)
		assert.True(t, utf8.ValidString(key))
		assert.False(t, strings.HasPrefix(key, "/"), key)
		for seg := range strings.SplitSeq(strings.TrimSuffix(key, "/"), "/") {
			assert.NotContains(t, []string{"", ".", ".."}, seg, key)
		}
		assert.False(t, strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r == 0x7f }), key)
		assert.True(t, strings.HasSuffix(path, key), "%q gives %q", path, key)
		for _, p := range []string{files.PodPath(key), files.WorkerPath(key), key} {
			again, err := files.Key(p)
			if assert.NoError(t, err, p) {
				assert.Equal(t, key, again, p)
			}
		}
	})
}
