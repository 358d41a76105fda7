package option_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
)

// The keys of the tests' profile files; testkit fails a test whose
// errors, printed values or log lines show one.
const (
	defaultKey = "rpa_PROFILEDEFAULT0123456789abcdef"
	stagingKey = "rpa_PROFILESTAGING0123456789abcdef"
	envKey     = "rpa_FROMTHEENVIRONMENT0123456789"
)

func init() {
	for _, k := range []string{defaultKey, stagingKey, envKey} {
		testkit.RegisterSecret(k)
	}
}

// twoProfiles is a profile file as rp login writes it, with a second
// profile from rp login --profile staging.
var twoProfiles = fmt.Sprintf("[default]\napi_key = %q\n\n[staging]\napi_key = %q\n", defaultKey, stagingKey)

// profileHome gives the test an empty temporary home directory, clears
// every RUNPOD_* variable NewConfig reads, and writes content (unless
// empty) to ~/.runpod/config.toml with mode; it returns the file's path.
func profileHome(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, v := range []string{option.EnvAPIKey, option.EnvProfile, option.EnvBaseURL, option.EnvInferenceURL, option.EnvProxyHost,
		"RUNPOD_S3_URL", "RUNPOD_S3_ACCESS_KEY", "RUNPOD_S3_SECRET_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(v, "")
	}
	path := filepath.Join(home, ".runpod", "config.toml")
	if content != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
		require.NoError(t, os.WriteFile(path, []byte(content), mode))
		require.NoError(t, os.Chmod(path, mode))
	}
	got, err := option.ProfilePath()
	require.NoError(t, err)
	require.Equal(t, path, got)
	return path
}

// requireProfileError checks err is a *option.ProfileError naming path
// and profile, and shows no key however it is printed.
func requireProfileError(t *testing.T, err error, path, profile, problem string) *option.ProfileError {
	t.Helper()
	var pe *option.ProfileError
	require.ErrorAs(t, err, &pe, "%v", err)
	require.ErrorIs(t, err, option.ErrProfile)
	require.NotErrorIs(t, err, errs.ErrNoAPIKey, "never a silent fallback")
	assert.Equal(t, path, pe.Path)
	assert.Equal(t, profile, pe.Profile)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), problem)
	noKey(t, err)
	return pe
}

// noKey checks that no rendering of v shows a profile's key.
func noKey(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "v", v)
	for _, s := range []string{fmt.Sprintf("%v|%+v|%#v|%s", v, v, v, v), string(b), logged.String()} {
		for _, k := range []string{defaultKey, stagingKey, envKey, "rpa_PROFILE"} {
			assert.NotContains(t, s, k)
		}
	}
	testkit.NoSecret(t, v)
}

// TestProfileDefault: with no option and no RUNPOD_API_KEY, the key is
// the default profile's; it is a secret.String.
func TestProfileDefault(t *testing.T) {
	profileHome(t, twoProfiles, 0o600)
	c, err := option.NewConfig()
	require.NoError(t, err)
	assert.Equal(t, defaultKey, c.APIKey.Reveal())
	noKey(t, c)
}

// TestProfilePrecedence: an option wins over RUNPOD_API_KEY, which wins
// over the file (which is not even read then); WithProfile and WithAPIKey
// are options, the later one winning.
func TestProfilePrecedence(t *testing.T) {
	path := profileHome(t, twoProfiles, 0o600)
	t.Setenv(option.EnvAPIKey, envKey)
	t.Setenv(option.EnvProfile, "staging")
	for _, c := range []struct {
		name string
		opts []option.RequestOption
		want string
	}{
		{"env over file", nil, envKey},
		{"option over env", []option.RequestOption{option.WithAPIKey(key)}, key},
		{"WithProfile over env", []option.RequestOption{option.WithProfile("default")}, defaultKey},
		{"a later WithAPIKey", []option.RequestOption{option.WithProfile("staging"), option.WithAPIKey(key)}, key},
		{"a later WithProfile", []option.RequestOption{option.WithAPIKey(key), option.WithProfile("staging")}, stagingKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := option.NewConfig(c.opts...)
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.APIKey.Reveal())
		})
	}

	// The file is read only when needed: a broken one does not matter
	// while RUNPOD_API_KEY is set.
	require.NoError(t, os.WriteFile(path, []byte("[default\napi_key = "), 0o600))
	cfg, err := option.NewConfig()
	require.NoError(t, err)
	assert.Equal(t, envKey, cfg.APIKey.Reveal())
	t.Setenv(option.EnvAPIKey, "   ")
	_, err = option.NewConfig()
	requireProfileError(t, err, path, "staging", "not valid TOML (line 2")
}

// TestProfileFromEnv: RUNPOD_PROFILE picks the profile; one the file does
// not have is a *ProfileError naming the file, the profile and the ones
// it has, never a fallback to default.
func TestProfileFromEnv(t *testing.T) {
	path := profileHome(t, twoProfiles, 0o600)
	t.Setenv(option.EnvProfile, "staging")
	c, err := option.NewConfig()
	require.NoError(t, err)
	assert.Equal(t, stagingKey, c.APIKey.Reveal())

	t.Setenv(option.EnvProfile, "prod")
	_, err = option.NewConfig()
	pe := requireProfileError(t, err, path, "prod", `no such profile (it has "default", "staging")`)
	assert.Equal(t, option.EnvProfile, pe.From)

	t.Setenv(option.EnvProfile, "")
	_, err = option.NewConfig(option.WithProfile("prod"))
	pe = requireProfileError(t, err, path, "prod", "no such profile")
	assert.Equal(t, "WithProfile", pe.From)

	t.Setenv(option.EnvProfile, "../etc")
	_, err = option.NewConfig()
	var ve *errs.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, option.EnvProfile, ve.Field)
	_, err = option.NewConfig(option.WithProfile("a b"))
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "WithProfile", ve.Field)
}

// TestProfileMissingFile: with no file and no profile named, the error is
// errs.ErrNoAPIKey saying where the key was looked for; with a profile
// named, a *ProfileError.
func TestProfileMissingFile(t *testing.T) {
	path := profileHome(t, "", 0)
	_, err := option.NewConfig()
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "RUNPOD_API_KEY")

	t.Setenv(option.EnvProfile, "staging")
	_, err = option.NewConfig()
	requireProfileError(t, err, path, "staging", "does not exist")

	// A file without a default profile, and none named: no key.
	t.Setenv(option.EnvProfile, "")
	profileHome(t, fmt.Sprintf("[staging]\napi_key = %q\n", stagingKey), 0o600)
	_, err = option.NewConfig()
	require.ErrorIs(t, err, errs.ErrNoAPIKey)
	assert.Contains(t, err.Error(), "[default]")
	noKey(t, err)
}

// TestProfileMalformed: a file that is not TOML, or whose profile is not
// a table with an api_key string, is a *ProfileError that quotes nothing
// of the file.
func TestProfileMalformed(t *testing.T) {
	for _, c := range []struct{ name, content, problem string }{
		{"unterminated string", "[default]\napi_key = \"" + defaultKey + "\n", "not valid TOML (line 2"},
		{"key without value", "[default]\n" + defaultKey + "\n", "not valid TOML (line 2"},
		{"duplicate key", fmt.Sprintf("[default]\napi_key = %q\napi_key = %q\n", defaultKey, stagingKey), "not valid TOML (line 3"},
		{"api_key not a string", "[default]\napi_key = 12345\n", "api_key is not a string"},
		{"empty api_key", "[default]\napi_key = \"  \"\n", "api_key is empty"},
		{"no api_key", fmt.Sprintf("[default]\napikey = %q\n", defaultKey), "has no api_key"},
		{"profile not a table", fmt.Sprintf("default = %q\n", defaultKey), "is not a table"},
		{"key an HTTP header cannot carry", "[default]\napi_key = \"rpa_PROFILE\\u0000x\"\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := profileHome(t, c.content, 0o600)
			_, err := option.NewConfig()
			require.Error(t, err)
			if c.problem == "" {
				var ve *errs.ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Contains(t, ve.Field, path)
				noKey(t, err)
				return
			}
			requireProfileError(t, err, path, "default", c.problem)
		})
	}
}

// TestProfileUnreadable: a file that cannot be read is a *ProfileError
// with the file system's error, never a fallback.
func TestProfileUnreadable(t *testing.T) {
	path := profileHome(t, "", 0)
	require.NoError(t, os.MkdirAll(path, 0o700)) // a directory where the file should be
	_, err := option.NewConfig()
	requireProfileError(t, err, path, "default", "cannot be read")

	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		return // root reads a file whatever its mode
	}
	path = profileHome(t, twoProfiles, 0o200)
	_, err = option.NewConfig()
	pe := requireProfileError(t, err, path, "default", "cannot be read")
	require.ErrorIs(t, pe, os.ErrPermission)
}

// TestProfilePermissions: a file others may write is refused (someone
// else's key could have been put in it); one others may read is taken.
func TestProfilePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	path := profileHome(t, twoProfiles, 0o666)
	_, err := option.NewConfig()
	requireProfileError(t, err, path, "default", "writable by other users (mode 0666)")

	path = profileHome(t, twoProfiles, 0o600)
	require.NoError(t, os.Chmod(filepath.Dir(path), 0o777))
	_, err = option.NewConfig()
	requireProfileError(t, err, path, "default", filepath.Dir(path)+" is writable by other users")

	profileHome(t, twoProfiles, 0o644)
	c, err := option.NewConfig()
	require.NoError(t, err)
	assert.Equal(t, defaultKey, c.APIKey.Reveal())
}
