package option

import (
	"os"
	"strings"

	"github.com/runpodkit/runpod-go/secret"
)

// The platform's S3-compatible API serves the files on network volumes
// (volumes.Service.Files). It has one endpoint per data center and its
// own credentials: an "S3 API key" made in the console's settings, whose
// access key is the account's user id (user_…) and whose secret starts
// with rps_. It is not the API key.
const (
	// DefaultS3URL is the S3 endpoint of a data center: {dc} stands for
	// the data center id in lower case ("eu-ro-1").
	DefaultS3URL = "https://s3api-{dc}.runpod.io"

	// EnvS3URL overrides DefaultS3URL (WithS3URL); empty means unset.
	EnvS3URL = "RUNPOD_S3_URL"
	// EnvS3AccessKey and EnvS3SecretKey hold the S3 API key
	// (WithS3Credentials), as the platform's network volume tools name
	// them. They win over EnvAWSAccessKeyID and EnvAWSSecretAccessKey.
	EnvS3AccessKey = "RUNPOD_S3_ACCESS_KEY"
	EnvS3SecretKey = "RUNPOD_S3_SECRET_KEY"
	// EnvAWSAccessKeyID and EnvAWSSecretAccessKey hold the S3 API key as
	// the platform's S3 documentation sets it up for the AWS tools; read
	// when the RUNPOD_S3_* pair is not set.
	EnvAWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
)

// WithS3Credentials sets the S3 API key the files on network volumes are
// reached with (overriding RUNPOD_S3_ACCESS_KEY and RUNPOD_S3_SECRET_KEY,
// or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): the access key (the
// user id, user_…) and the secret (rps_…). The secret is kept as a
// secret.String and never printed. It configures a client.
func WithS3Credentials(accessKey, secretKey string) RequestOption {
	return func(c *Config) error {
		c.S3AccessKey = strings.TrimSpace(accessKey)
		c.S3SecretKey = secret.NewString(strings.TrimSpace(secretKey))
		c.s3KeyFrom = "WithS3Credentials"
		c.setsClient("WithS3Credentials")
		return nil
	}
}

// WithS3URL sets the S3 endpoint of the files on network volumes
// (overriding RUNPOD_S3_URL): "{dc}" in u stands for the data center id
// in lower case, as in DefaultS3URL; a URL without it serves every data
// center. Plain http is allowed only for a loopback host. It configures a
// client.
func WithS3URL(u string) RequestOption {
	return func(c *Config) error {
		c.S3URL, c.s3URLFrom = u, "WithS3URL"
		c.setsClient("WithS3URL")
		return nil
	}
}

// readS3Env fills the S3 fields from the environment: RUNPOD_S3_URL, and
// the RUNPOD_S3_* key pair, else the AWS_* pair.
func (c *Config) readS3Env() {
	if v := os.Getenv(EnvS3URL); v != "" {
		c.S3URL, c.s3URLFrom = v, EnvS3URL
	}
	for _, pair := range [][2]string{{EnvS3AccessKey, EnvS3SecretKey}, {EnvAWSAccessKeyID, EnvAWSSecretAccessKey}} {
		id, key := os.Getenv(pair[0]), os.Getenv(pair[1])
		if id == "" && key == "" {
			continue
		}
		c.S3AccessKey, c.S3SecretKey = strings.TrimSpace(id), secret.NewString(strings.TrimSpace(key))
		c.s3KeyFrom = pair[0] + " and " + pair[1]
		return
	}
}

// S3Endpoint returns the S3 endpoint of data center dc ("EU-RO-1"): S3URL
// (or DefaultS3URL) with "{dc}" replaced by dc in lower case.
func (c Config) S3Endpoint(dc string) string {
	return strings.ReplaceAll(orDefault(c.S3URL, DefaultS3URL), "{dc}", strings.ToLower(dc))
}

// validateS3 checks the S3 endpoint and, when one half of the S3 API key
// is set, that both are and that they can travel in a request.
func (c Config) validateS3() error {
	field := from(c.s3URLFrom, "Config.S3URL")
	raw := given(c.s3URLFrom, c.S3URL, DefaultS3URL)
	if _, err := parseBase(field, strings.ReplaceAll(raw, "{dc}", "eu-ro-1")); err != nil {
		return err
	}
	id, key := c.S3AccessKey, c.S3SecretKey.Reveal()
	if id == "" && key == "" {
		return nil
	}
	field = from(c.s3KeyFrom, "Config.S3AccessKey")
	switch {
	case id == "":
		return invalid(field, "the S3 access key (the user id, user_…) is empty while the secret is set")
	case key == "":
		return invalid(field, "the S3 secret (rps_…) is empty while the access key is set")
	}
	if err := checkKey(field, id); err != nil {
		return err
	}
	return checkKey(field, key)
}
