package podssh_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pkg/sftp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods/podssh"
)

// The environment of TestChildDial, the second program of
// TestHostKeyChangedAcrossRuns.
// (TestMain gives every run a home of its own: the child is told which
// to use instead.)
const (
	envChildAddr = "PODSSH_TEST_CHILD_ADDR"
	envChildKey  = "PODSSH_TEST_CHILD_KEY"
	envChildHome = "PODSSH_TEST_CHILD_HOME"
)

// TestHostKeyChangedAcrossRuns: two runs of a program, each with a
// podssh Service of its own and the default host keys, dial one server
// by address; its host key changes between the runs, and the second run
// refuses it.
func TestHostKeyChangedAcrossRuns(t *testing.T) {
	if os.Getenv(envChildAddr) != "" {
		t.Skip("this process is a child of TestHostKeyChangedAcrossRuns")
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id_ed25519")
	client := writeKey(t, keyFile)
	srv := startTestServer(t, rootKey(t), client.PublicKey(), sftp.Handlers{})

	run := func() string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildDial$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), envChildHome+"="+dir, envChildAddr+"="+srv.addr, envChildKey+"="+keyFile)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "the child run:\n%s", out)
		for line := range strings.Lines(string(out)) {
			if _, dial, ok := strings.Cut(line, "dial: "); ok {
				return strings.TrimSpace(dial)
			}
		}
		t.Fatalf("the child said nothing of its dial:\n%s", out)
		return ""
	}
	assert.Equal(t, "ok", run(), "the first run trusts the key")
	assert.Equal(t, "ok", run(), "the second run knows it")
	srv.setHostKey(rootKey(t))
	assert.Equal(t, "refused: host key changed", run(), "a later run refuses the changed key")
	b, err := os.ReadFile(filepath.Join(dir, ".config", "runpod", "known_hosts"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(b), "\n"), "one line, the first key's: %s", b)
}

// TestChildDial is the program TestHostKeyChangedAcrossRuns runs twice:
// it dials the server by address with a new Service and the default host
// keys, and says what came of it.
func TestChildDial(t *testing.T) {
	addr := os.Getenv(envChildAddr)
	if addr == "" {
		t.Skip("run by TestHostKeyChangedAcrossRuns, in a process of its own")
	}
	home := os.Getenv(envChildHome)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	key, err := podssh.LoadKey(os.Getenv(envChildKey), nil)
	require.NoError(t, err)
	conn, err := podssh.NewFromConfig(option.Config{}).DialAddr(context.Background(), addr, podssh.DialOptions{Key: key})
	var changed *podssh.HostKeyChangedError
	switch {
	case errors.As(err, &changed):
		t.Log("dial: refused: host key changed")
	case err != nil:
		t.Log("dial: failed: " + err.Error())
	default:
		t.Log("dial: ok")
		require.NoError(t, conn.Run(t.Context(), podssh.RunParams{Command: "true"}))
		require.NoError(t, conn.Close())
	}
}
