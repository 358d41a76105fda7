package option

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzParseProfile: a profile file's contents, however malformed, never
// panic the parser; a key it returns is trimmed and not empty; and its
// problem never quotes the file: a TOML error is its line and column
// alone, and no string value of a file that decodes shows in it (unless
// the value is a profile name or a word of the messages themselves).
func FuzzParseProfile(f *testing.F) {
	for _, seed := range []string{
		"",
		"[default]\napi_key = \"rpa_SEED0123456789\"\n",
		"[default]\napi_key = \"rpa_SEED0123456789\"\n[staging]\napi_key = \"rpa_OTHER\"\n",
		"[default]\napi_key = \"rpa_SEED0123456789\n",
		"[default]\napi_key = 1\n",
		"[default]\napikey = \"rpa_SEED0123456789\"\n",
		"default = \"rpa_SEED0123456789\"\n",
		"[default]\napi_key = \"rpa_A\"\napi_key = \"rpa_B\"\n",
		"[default.sub]\napi_key = \"x\"\n",
		"[[default]]\napi_key = \"x\"\n",
		"[\"de fault\"]\napi_key = '''multi\nline'''\n",
		"\xff\xfe[default]",
	} {
		f.Add([]byte(seed), "default")
	}
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		key, err := parseProfile(data, name)
		if err == nil {
			if key == "" || key != strings.TrimSpace(key) {
				t.Fatalf("key %q", key)
			}
			return
		}
		msg := err.Error()
		var doc map[string]any
		if _, derr := toml.Decode(string(data), &doc); derr != nil {
			if !strings.HasPrefix(msg, "the file is not valid TOML") {
				t.Fatalf("a file that does not decode gave %q", msg)
			}
			if strings.ContainsAny(strings.TrimPrefix(msg, "the file is not valid TOML"), "\"'=[") {
				t.Fatalf("the TOML error quotes the file: %q", msg)
			}
			return
		}
		names := map[string]bool{name: true}
		for k := range doc {
			names[k] = true
		}
		var values []string
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				values = append(values, v)
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case []map[string]any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(doc)
		for _, v := range values {
			if len(v) < 6 || names[v] || strings.Contains(msg, "(it has") && quotedIn(msg, v) {
				continue
			}
			if strings.Contains(msg, v) && !strings.Contains(messageWords, v) {
				t.Fatalf("the problem %q shows the value %q of the file", msg, v)
			}
		}
	})
}

// messageWords holds the words of parseProfile's problems.
const messageWords = "the file is not valid TOML (line column) the file has no such profile (it has) is not a table the profile has no api_key the profile's api_key is not a string the profile's api_key is empty"

// quotedIn reports whether v appears in msg only as part of a quoted
// profile name.
func quotedIn(msg, v string) bool {
	for _, part := range strings.Split(msg, "\"") {
		if strings.Contains(part, v) && !strings.Contains(messageWords, part) {
			return true
		}
	}
	return false
}
