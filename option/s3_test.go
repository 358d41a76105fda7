package option_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/pods"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

const s3Secret = "rps_S3SECRET0123456789abcdef"

func clearS3Env(t *testing.T) {
	for _, name := range []string{option.EnvS3URL, option.EnvS3AccessKey, option.EnvS3SecretKey, option.EnvAWSAccessKeyID, option.EnvAWSSecretAccessKey} {
		t.Setenv(name, "")
	}
}

// TestS3CredentialsFromEnv: the RUNPOD_S3_* pair wins over the AWS_* pair
// the platform's S3 guide sets; an option wins over both.
func TestS3CredentialsFromEnv(t *testing.T) {
	clearS3Env(t)
	t.Setenv(option.EnvAWSAccessKeyID, "user_aws")
	t.Setenv(option.EnvAWSSecretAccessKey, "rps_aws")
	c, err := option.NewConfig(option.WithAPIKey(key))
	require.NoError(t, err)
	assert.Equal(t, "user_aws", c.S3AccessKey)
	assert.Equal(t, "rps_aws", c.S3SecretKey.Reveal())

	t.Setenv(option.EnvS3AccessKey, "user_runpod")
	t.Setenv(option.EnvS3SecretKey, " "+s3Secret+"\n")
	c, err = option.NewConfig(option.WithAPIKey(key))
	require.NoError(t, err)
	assert.Equal(t, "user_runpod", c.S3AccessKey)
	assert.Equal(t, s3Secret, c.S3SecretKey.Reveal(), "white space trimmed")

	c, err = option.NewConfig(option.WithAPIKey(key), option.WithS3Credentials("user_opt", "rps_opt"))
	require.NoError(t, err)
	assert.Equal(t, "user_opt", c.S3AccessKey)
	assert.Equal(t, "rps_opt", c.S3SecretKey.Reveal())
}

// TestS3CredentialsHalfSet: one half of the key without the other is an
// error naming where it came from, and never shows the secret.
func TestS3CredentialsHalfSet(t *testing.T) {
	clearS3Env(t)
	var ve *errs.ValidationError
	_, err := option.NewConfig(option.WithAPIKey(key), option.WithS3Credentials("", s3Secret))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithS3Credentials", ve.Field)
	assert.NotContains(t, err.Error(), s3Secret)

	t.Setenv(option.EnvS3AccessKey, "user_x")
	_, err = option.NewConfig(option.WithAPIKey(key))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, option.EnvS3AccessKey+" and "+option.EnvS3SecretKey, ve.Field)

	_, err = option.NewConfig(option.WithAPIKey(key), option.WithS3Credentials("user_x", "rps_a b"))
	require.ErrorAs(t, err, &ve)
	assert.NotContains(t, err.Error(), "rps_a b")
}

// TestS3Endpoint: the default names the data center in lower case; a
// template or a fixed URL can replace it; plain http only on loopback.
func TestS3Endpoint(t *testing.T) {
	clearS3Env(t)
	c, err := option.NewConfig(option.WithAPIKey(key))
	require.NoError(t, err)
	assert.Equal(t, "https://s3api-eu-ro-1.runpod.io", c.S3Endpoint("EU-RO-1"))

	t.Setenv(option.EnvS3URL, "http://s3api-{dc}.localhost:9000")
	c, err = option.NewConfig(option.WithAPIKey(key))
	require.NoError(t, err)
	assert.Equal(t, "http://s3api-us-ks-2.localhost:9000", c.S3Endpoint("US-KS-2"))

	c, err = option.NewConfig(option.WithAPIKey(key), option.WithS3URL("https://s3.gateway.example"))
	require.NoError(t, err)
	assert.Equal(t, "https://s3.gateway.example", c.S3Endpoint("EU-RO-1"))

	var ve *errs.ValidationError
	_, err = option.NewConfig(option.WithAPIKey(key), option.WithS3URL("http://s3api-{dc}.example.com"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithS3URL", ve.Field)
	assert.ErrorIs(t, err, errs.ErrInsecureURL)
}

// TestS3SecretNeverPrinted: a Config with an S3 key prints and encodes
// without the secret.
func TestS3SecretNeverPrinted(t *testing.T) {
	clearS3Env(t)
	c, err := option.NewConfig(option.WithAPIKey(key), option.WithS3Credentials("user_x", s3Secret))
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, c), s3Secret, verb)
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.NotContains(t, string(b), s3Secret)
}

// TestS3OptionsConfigureAClient: a call given an S3 option is refused
// before anything is sent.
func TestS3OptionsConfigureAClient(t *testing.T) {
	clearS3Env(t)
	srv := runpodtest.NewServer(contract.Check(), contract.Check())
	defer srv.Close()
	rp, err := srv.NewClient()
	require.NoError(t, err)
	var ve *errs.ValidationError
	_, err = rp.Pods.List(t.Context(), pods.ListPodsParams{}, option.WithS3URL("https://other.example"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithS3URL", ve.Field)
	_, err = rp.Pods.List(t.Context(), pods.ListPodsParams{}, option.WithS3Credentials("user_y", "rps_y"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithS3Credentials", ve.Field)
}
