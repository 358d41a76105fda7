package option_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/runpodkit/runpod-go/option"
)

// A program finds the key `rp login --profile staging` saved, without it
// being exported: NewConfig reads ~/.runpod/config.toml when no option
// and no RUNPOD_API_KEY gives a key (RUNPOD_PROFILE picks the profile;
// here WithProfile does). The example makes a home directory of its own.
func ExampleWithProfile() {
	home, _ := os.MkdirTemp("", "home")
	defer os.RemoveAll(home)
	defer os.Setenv("HOME", os.Getenv("HOME"))
	os.Setenv("HOME", home)
	_ = os.MkdirAll(filepath.Join(home, ".runpod"), 0o700)
	_ = os.WriteFile(filepath.Join(home, ".runpod", "config.toml"),
		[]byte("[default]\napi_key = \"rpa_EXAMPLE_DEFAULT\"\n\n[staging]\napi_key = \"rpa_EXAMPLE_STAGING\"\n"), 0o600)

	cfg, err := option.NewConfig(option.WithProfile("staging"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("key:", cfg.APIKey, cfg.APIKey.Reveal() == "rpa_EXAMPLE_STAGING")

	_, err = option.NewConfig(option.WithProfile("prod"))
	var pe *option.ProfileError
	if errors.As(err, &pe) {
		fmt.Println("profile", pe.Profile+":", pe.Problem)
	}
	// Output:
	// key: [REDACTED] true
	// profile prod: the file has no such profile (it has "default", "staging")
}
