package fakes3_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
)

// envRequireS3Tools names the S3 programs (aws, s3cmd, rclone; separated
// by spaces or commas) whose tests fail where the program is missing,
// rather than skip: CI's .ci/run sets it to s3cmd, which it installs.
// (testkit clears RUNPOD_* and AWS_*, so the name is neither.)
const envRequireS3Tools = "S3TOOLS_TEST_REQUIRE"

// lookS3Tool returns the path of program name, or ends t: skipped where
// it is missing, failed where envRequireS3Tools names it.
func lookS3Tool(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	required := strings.FieldsFunc(os.Getenv(envRequireS3Tools), func(r rune) bool { return r == ',' || r == ' ' })
	if slices.Contains(required, name) {
		t.Fatalf("no %s (%v); %s=%q names it, so this test must run: install Debian's %s", name, err, envRequireS3Tools, os.Getenv(envRequireS3Tools), pkg)
	}
	t.Skipf("skipped: no %s (install Debian's %s to run it; %s=%s fails it instead)", name, pkg, envRequireS3Tools, name)
	return ""
}

// s3Tool runs an S3 program against one data center of a fake.
type s3Tool struct {
	t     *testing.T
	srv   *runpodtest.Server
	path  string
	dir   string   // the program's HOME, and the test's files
	flags []string // what aims the program at the data center
}

// run runs the program with args after its flags, with the fake's S3
// API key in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as the
// platform's guide sets it, and nothing else of the environment but
// PATH: no proxy, CA bundle, profile or configuration of the user's.
// It fails t if the program fails, and returns its standard output.
func (c *s3Tool) run(args ...string) string {
	c.t.Helper()
	args = append(slices.Clone(c.flags), args...)
	cmd := exec.CommandContext(c.t.Context(), c.path, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.dir, "LC_ALL=C.UTF-8",
		"AWS_ACCESS_KEY_ID=" + c.srv.S3AccessKey, "AWS_SECRET_ACCESS_KEY=" + c.srv.S3SecretKey,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
	cmd.Dir = c.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String() + stderr.String()
	testkit.NoSecret(c.t, out)
	require.NoError(c.t, err, "%s %s:\n%s", filepath.Base(c.path), strings.Join(args, " "),
		strings.ReplaceAll(out, c.srv.S3SecretKey, "[REDACTED]"))
	return stdout.String()
}

// TestS3Tools: the S3 programs users run against the platform (the AWS
// CLI, with the flags of the platform's S3 guide; s3cmd and rclone, with
// their own flags for the same endpoint and region) list a network
// volume, put a file and get it back, at the address and region
// Endpoint gives. Each is skipped where it is not installed.
func TestS3Tools(t *testing.T) {
	srv, vol, _ := s3Volume(t, "EU-RO-1") // its client registers the secret with testkit
	require.NoError(t, srv.WriteVolumeFile(vol, "models/seed.txt", strings.NewReader("seed\n")))
	endpoint, region := fakes3.Endpoint(srv, "EU-RO-1")
	host := strings.TrimPrefix(endpoint, "http://")

	tools := []struct {
		name, pkg string
		flags     []string
		parts     int // UploadPart requests its put sends
		ls        func(c *s3Tool, prefix string) string
		put, get  func(c *s3Tool, local, key string)
	}{{
		// The platform's guide: --region and --endpoint-url, the key in
		// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
		name: "aws", pkg: "awscli",
		ls: func(c *s3Tool, prefix string) string {
			return c.run("s3", "ls", "--region", region, "--endpoint-url", endpoint, "s3://"+vol+"/"+prefix)
		},
		put: func(c *s3Tool, local, key string) {
			c.run("s3", "cp", "--region", region, "--endpoint-url", endpoint, local, "s3://"+vol+"/"+key)
		},
		get: func(c *s3Tool, local, key string) {
			c.run("s3", "cp", "--region", region, "--endpoint-url", endpoint, "s3://"+vol+"/"+key, local)
		},
	}, {
		// --host and a --host-bucket without %(bucket)s: path-style at
		// the address; --no-ssl: it is http; no configuration file.
		name: "s3cmd", pkg: "s3cmd", parts: 2,
		flags: []string{"--config=/dev/null", "--host=" + host, "--host-bucket=" + host, "--region=" + region, "--no-ssl"},
		ls:    func(c *s3Tool, prefix string) string { return c.run("ls", "s3://"+vol+"/"+prefix) },
		put: func(c *s3Tool, local, key string) {
			c.run("put", "--multipart-chunk-size-mb=5", local, "s3://"+vol+"/"+key)
		},
		get: func(c *s3Tool, local, key string) { c.run("get", "--force", "s3://"+vol+"/"+key, local) },
	}, {
		// An on-the-fly s3 remote; --s3-no-check-bucket, as the platform
		// has no CreateBucket, which rclone otherwise sends before an
		// upload.
		name: "rclone", pkg: "rclone",
		flags: []string{"--s3-provider=Other", "--s3-env-auth", "--s3-endpoint=" + endpoint, "--s3-region=" + region, "--s3-no-check-bucket"},
		ls:    func(c *s3Tool, prefix string) string { return c.run("lsf", ":s3:"+vol+"/"+prefix) },
		put:   func(c *s3Tool, local, key string) { c.run("copyto", local, ":s3:"+vol+"/"+key) },
		get:   func(c *s3Tool, local, key string) { c.run("copyto", ":s3:"+vol+"/"+key, local) },
	}}
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			c := &s3Tool{t: t, srv: srv, path: lookS3Tool(t, tool.name, tool.pkg), dir: t.TempDir(), flags: tool.flags}
			assert.Contains(t, tool.ls(c, ""), "models/", "the listing of the volume's root")
			assert.Contains(t, tool.ls(c, "models/"), "seed.txt")

			// 6 MB: s3cmd sends it in two parts of a multipart upload.
			data := make([]byte, 6<<20)
			_, _ = rand.Read(data)
			local := filepath.Join(c.dir, "up.bin")
			require.NoError(t, os.WriteFile(local, data, 0o600))
			key := fmt.Sprintf("%s/up.bin", tool.name)
			parts := fakes3.Count(srv, "UploadPart")
			tool.put(c, local, key)
			assert.Equal(t, tool.parts, fakes3.Count(srv, "UploadPart")-parts)
			got, err := srv.VolumeFile(vol, key)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(data, got), "the volume holds what %s put", tool.name)
			assert.Contains(t, tool.ls(c, tool.name+"/"), "up.bin")

			back := filepath.Join(c.dir, "back.bin")
			tool.get(c, back, key)
			b, err := os.ReadFile(back)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(data, b), "%s got back what it put", tool.name)
		})
	}
}
