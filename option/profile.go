package option

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/secret"
)

// Credential profiles of the rp CLI, which NewConfig reads when no option
// and no RUNPOD_API_KEY gives a key.
//
// `rp login` (the CLI of the runpod Python package; docs.runpod.io,
// "rp CLI reference", read 2026-11) saves the key to ~/.runpod/config.toml,
// under a profile: `default` unless `rp login --profile NAME` names
// another. The file holds one TOML table per profile, whose api_key is
// the key:
//
//	[default]
//	api_key = "rpa_…"
//
//	[staging]
//	api_key = "rpa_…"
const (
	// EnvProfile names the profile NewConfig reads from the profile file
	// (WithProfile). It is this SDK's variable: the rp CLI's documents
	// name none.
	EnvProfile = "RUNPOD_PROFILE"
	// DefaultProfile is the profile read when neither WithProfile nor
	// RUNPOD_PROFILE names one, as rp login writes it by default.
	DefaultProfile = "default"
	// ProfileFileName is the profile file's path under the home
	// directory (os.UserHomeDir): ~/.runpod/config.toml.
	ProfileFileName = ".runpod/config.toml"
	// profileKeyName is the key of a profile's API key.
	profileKeyName = "api_key"
	// maxProfileFile bounds the profile file read: it holds a few keys.
	maxProfileFile = 1 << 20
)

// ErrProfile is matched (errors.Is) by every *ProfileError.
var ErrProfile = errors.New("runpod: the rp profile file cannot give a key")

// ProfileError reports a profile file that cannot give the key NewConfig
// needs: unreadable, not TOML, writable by other users, without the
// profile asked for, or whose profile has no api_key string. It names the
// file and the profile, and never holds the key nor any text of the file
// (a TOML error is reported by its line and column alone). It matches
// ErrProfile.
type ProfileError struct {
	Path    string // the profile file
	Profile string // the profile looked for
	// From says who named the profile: "WithProfile", "RUNPOD_PROFILE",
	// or "" for DefaultProfile.
	From    string
	Problem string // what is wrong, in words
	Err     error  // the cause: a file system error (*fs.PathError), or nil
}

// Error names the file, the profile and the problem.
func (e *ProfileError) Error() string {
	msg := fmt.Sprintf("runpod: rp profile file %s, profile %q", e.Path, e.Profile)
	if e.From != "" {
		msg += " (from " + e.From + ")"
	}
	msg += ": " + e.Problem
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is matches ErrProfile.
func (e *ProfileError) Is(target error) bool { return target == ErrProfile }

// Unwrap returns the file system's error, if any.
func (e *ProfileError) Unwrap() error { return e.Err }

// profileName is what a profile name may be: 1 to 64 letters, digits,
// '_' or '-', what rp login writes as a bare TOML table name.
var profileName = profileNameRule{}

type profileNameRule struct{}

// MatchString reports whether s is a valid profile name.
func (profileNameRule) MatchString(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WithProfile makes the key the api_key of the profile name in the rp
// CLI's profile file (~/.runpod/config.toml), over RUNPOD_API_KEY and
// RUNPOD_PROFILE; a WithAPIKey after it wins over it, as a later option
// does. The profile must exist: a missing file or profile is a
// *ProfileError. A name is 1 to 64 letters, digits, '_' or '-'. It
// configures a client.
func WithProfile(name string) RequestOption {
	return func(c *Config) error {
		if !profileName.MatchString(name) {
			return invalid("WithProfile", "want 1 to 64 letters, digits, '_' or '-', got %q", name)
		}
		c.APIKey, c.keyFrom = secret.String{}, ""
		c.profile, c.profileFrom = name, "WithProfile"
		c.setsClient("WithProfile")
		return nil
	}
}

// ProfilePath returns the path of the rp CLI's profile file,
// ~/.runpod/config.toml under os.UserHomeDir.
func ProfilePath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, filepath.FromSlash(ProfileFileName)), nil
}

// keyFromProfile gives c the key of its profile (WithProfile,
// RUNPOD_PROFILE, else DefaultProfile) from the profile file, when no
// option and no RUNPOD_API_KEY gave one. A file that is not there, with
// no profile named, is errs.ErrNoAPIKey saying where the key was looked
// for; any other failure is a *ProfileError.
func (c *Config) keyFromProfile() error {
	name, named := c.profile, c.profileFrom != ""
	if !named {
		name = DefaultProfile
	}
	if !profileName.MatchString(name) {
		return invalid(from(c.profileFrom, "Config.profile"), "want 1 to 64 letters, digits, '_' or '-', got %q", name)
	}
	path, err := ProfilePath()
	if err != nil {
		if named {
			return &ProfileError{Path: ProfileFileName, Profile: name, From: c.profileFrom, Problem: "there is no home directory to find it in", Err: err}
		}
		return fmt.Errorf("%w (and there is no home directory to find the rp profile file %s in)", errs.ErrNoAPIKey, ProfileFileName)
	}
	pe := func(problem string, err error) error {
		return &ProfileError{Path: path, Profile: name, From: c.profileFrom, Problem: problem, Err: err}
	}
	data, err := readProfileFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !named:
		return fmt.Errorf("%w, nor did the rp profile file %s exist", errs.ErrNoAPIKey, path)
	case errors.Is(err, fs.ErrNotExist):
		return pe("the file does not exist (rp login --profile "+name+" writes it)", nil)
	case err != nil:
		return pe("the file cannot be read", err)
	}
	if problem := unsafeMode(path); problem != "" {
		return pe(problem, nil)
	}
	key, problem := parseProfile(data, name)
	switch {
	case errors.Is(problem, errNoSuchProfile) && !named:
		return fmt.Errorf("%w, nor does the rp profile file %s have a [%s] profile", errs.ErrNoAPIKey, path, name)
	case problem != nil:
		return pe(problem.Error(), nil)
	}
	c.APIKey, c.keyFrom = secret.NewString(key), "profile "+name+" of "+path
	return nil
}

// readProfileFile reads at most maxProfileFile bytes of the file at path.
func readProfileFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	if st.Size() > maxProfileFile {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", maxProfileFile)}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxProfileFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxProfileFile {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", maxProfileFile)}
	}
	return data, nil
}

// unsafeMode says why the file at path must not be trusted, or "": on
// systems with Unix permissions, a file (or its directory) that users
// other than its owner may write could have had someone else's key put in
// it, and then your requests, their inputs and results would go to that
// account. A file others may read is accepted (rp login writes it with
// the default umask, often 0644), though it shows your key to them:
// chmod 600 it.
func unsafeMode(path string) string {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return ""
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.Mode().Perm()&0o022 != 0 && st.Mode()&fs.ModeSticky == 0 {
			return fmt.Sprintf("%s is writable by other users (mode %04o): someone else's key could have been put in it; chmod go-w it", p, st.Mode().Perm())
		}
	}
	return ""
}

// errNoSuchProfile is parseProfile's problem for a file without the
// profile.
var errNoSuchProfile = errors.New("the file has no such profile")

// parseProfile reads the api_key of profile name from a profile file's
// contents. Its problem never quotes the file: a TOML error is reported
// by line and column alone, since the offending text may be a key.
func parseProfile(data []byte, name string) (string, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return "", fmt.Errorf("the file is not valid TOML (line %d, column %d)", perr.Position.Line, perr.Position.Col)
		}
		return "", errors.New("the file is not valid TOML")
	}
	raw, ok := doc[name]
	if !ok {
		var names []string
		for k, v := range doc {
			if _, table := v.(map[string]any); table {
				names = append(names, k)
			}
		}
		if len(names) == 0 {
			return "", errNoSuchProfile
		}
		slices.Sort(names)
		if len(names) > 20 {
			names = append(names[:20], "…")
		}
		return "", fmt.Errorf("%w (it has %s)", errNoSuchProfile, quoteAll(names))
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return "", fmt.Errorf("%q is not a table ([%s])", name, name)
	}
	v, ok := table[profileKeyName]
	if !ok {
		return "", fmt.Errorf("the profile has no %s", profileKeyName)
	}
	key, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("the profile's %s is not a string", profileKeyName)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", fmt.Errorf("the profile's %s is empty", profileKeyName)
	}
	return key, nil
}

// quoteAll quotes each name, comma-separated.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
