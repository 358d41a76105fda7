package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const laptopKey = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV0U2w0WZ2YB/++Tpockg= laptop"

func TestListOffline(t *testing.T) {
	srv := demotest.Fake(t)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	got := out.String()
	assert.Contains(t, got, "1. the account has 1 SSH key:\n   ssh-ed25519 SHA256:vURoX8c5f9jk2VAqkdDhsG8VkEiNtNS7dVs/Y9t2vtQ me@example.com\n")
	assert.NotContains(t, got, "2.")
	assert.Zero(t, srv.Count(runpodtest.RouteSetSSHKeys), "listing changes nothing")
}

// TestAddAndRemove: -add registers a .pub file's key (once), -remove
// takes it away again by its fingerprint.
func TestAddAndRemove(t *testing.T) {
	srv := demotest.Fake(t)
	pub := filepath.Join(t.TempDir(), "id_ecdsa.pub")
	require.NoError(t, os.WriteFile(pub, []byte(laptopKey+"\n"), 0o600))

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-add", pub}, &out))
	got := out.String()
	assert.Contains(t, got, "2. the account has 2 SSH keys now")
	fp := fingerprint(laptopKey)
	assert.Contains(t, got, "   ecdsa-sha2-nistp256 "+fp+" laptop\n")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteSetSSHKeys))

	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-add", pub}, &out))
	assert.Contains(t, out.String(), "2. "+fp+" is registered already")
	assert.Equal(t, 1, srv.Count(runpodtest.RouteSetSSHKeys), "nothing sent for a key already there")

	out.Reset()
	require.NoError(t, run(t.Context(), []string{"-remove", fp}, &out))
	_, after, ok := strings.Cut(out.String(), "2. the account has 1 SSH key now")
	require.True(t, ok, out.String())
	assert.NotContains(t, after, "laptop", "the laptop key is gone from the new list")
	assert.Contains(t, after, "me@example.com")

	err := run(t.Context(), []string{"-remove", fp}, &bytes.Buffer{})
	require.ErrorContains(t, err, "no registered key has the fingerprint")
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
}

// TestFingerprint: the fingerprint is ssh-keygen's (SHA-256 of the key,
// unpadded base64).
func TestFingerprint(t *testing.T) {
	assert.Equal(t, "SHA256:vURoX8c5f9jk2VAqkdDhsG8VkEiNtNS7dVs/Y9t2vtQ",
		fingerprint("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com"))
	assert.Equal(t, "SHA256:?", fingerprint("ssh-ed25519"))
}

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "id_ed25519")
	require.NoError(t, os.WriteFile(private, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600))
	demotest.CheckUsage(t, run,
		[]string{"-add", private},
		[]string{"-add", private, "-remove", "SHA256:x"},
		[]string{"-remove", "me@example.com"},
	)
	err := run(t.Context(), []string{"-add", private}, &bytes.Buffer{})
	assert.NotContains(t, err.Error(), "secret", "a private key is never quoted")
	assert.Contains(t, err.Error(), "private key")
}

// TestMissingFile: a file that cannot be read is a failure (exit 1), found
// before connecting.
func TestMissingFile(t *testing.T) {
	srv := demotest.Fake(t)
	err := run(t.Context(), []string{"-add", filepath.Join(t.TempDir(), "none.pub")}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Equal(t, demo.ExitFailure, demo.ExitCode(err))
	assert.Zero(t, srv.Count("*"))
}
