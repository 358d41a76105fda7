package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/examples/internal/demo"
	"github.com/runpodkit/runpod-go/examples/internal/demotest"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestRegistriesOffline(t *testing.T) {
	const secret = "example-Secret-0f9e"
	testkit.RegisterSecret(secret)
	srv := demotest.Fake(t)
	t.Setenv(PasswordEnv, secret)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-username", "me"}, &out))
	got := out.String()
	assert.Contains(t, got, "1. 2 registry credential(s)")
	assert.Contains(t, got, "dockerhub-private")
	assert.Contains(t, got, "2. 1 ECR delegation(s)")
	assert.Contains(t, got, "team/inference:latest in us-east-2 (docker login 123456789012.dkr.ecr.us-east-2.amazonaws.com)")
	assert.Contains(t, got, "3. storing CreateRegistryRequest{Name:runpod-go-example Username:me Password:[REDACTED]}")
	assert.Regexp(t, `4\. read back: id [a-z0-9]{8}, name runpod-go-example`, got)
	assert.Contains(t, got, "5. deleted")
	assert.NotContains(t, got, secret)

	creates := 0
	for _, r := range srv.Requests() {
		if r.Route == runpodtest.RouteCreateRegistry {
			creates++
			assert.Contains(t, string(r.Body), secret, "the password went to the platform")
		}
	}
	assert.Equal(t, 1, creates)
	assert.Len(t, srv.Registries(), 2, "the example's credential is gone")
}

func TestDemoPasswordOffline(t *testing.T) {
	demotest.Fake(t)
	t.Setenv(PasswordEnv, "")
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &out))
	assert.Contains(t, out.String(), "Username:demo Password:[REDACTED]")
	assert.Contains(t, out.String(), "5. deleted")
}

func TestOnlineNeedsBothOrNeither(t *testing.T) {
	demotest.Offline(t)
	t.Setenv(option.EnvAPIKey, "rpa_0123456789ABCDEF0123456789ABCDEF")
	t.Setenv(option.EnvBaseURL, "https://api.invalid")
	t.Setenv(PasswordEnv, "")
	err := run(t.Context(), []string{"-username", "me"}, &bytes.Buffer{})
	require.ErrorContains(t, err, PasswordEnv)
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err), "found before connecting")

	t.Setenv(PasswordEnv, "pw")
	err = run(t.Context(), nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "-username")
	assert.Equal(t, demo.ExitUsage, demo.ExitCode(err))
}

func TestUsage(t *testing.T) {
	t.Setenv(PasswordEnv, "")
	demotest.CheckUsage(t, run, []string{"-name", ""}, []string{"-username"})
}
