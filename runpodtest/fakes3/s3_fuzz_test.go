package fakes3

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/johannesboyne/gofakes3"
)

// FuzzParseSigV4: whatever the Authorization header, the parser never
// panics; what it accepts has every field, in the shapes SigV4 gives
// them, and formats back to a header that parses to the same.
func FuzzParseSigV4(f *testing.F) {
	for _, s := range []string{
		"AWS4-HMAC-SHA256 Credential=user_abc/20250101/EU-RO-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + strings.Repeat("ab", 32),
		"AWS4-HMAC-SHA256 Credential=a/b/20250101/r/s3/aws4_request,SignedHeaders=host,Signature=" + strings.Repeat("0", 64),
		"AWS4-HMAC-SHA256 Signature=x, Credential=y",
		"AWS4-HMAC-SHA256 Credential==/==/, SignedHeaders=;, Signature=",
		"AWS AKID:signature",
		"AWS4-HMAC-SHA256 ",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		a, err := parseSigV4(header)
		if err != nil {
			return
		}
		if a.AccessKey == "" || !isDigits(a.Date, 8) || a.Region == "" || a.Service == "" || len(a.Signature) != 64 || !isLowerHex(a.Signature) {
			t.Fatalf("accepted %q as %+v", header, a)
		}
		for _, h := range a.SignedHeaders {
			if h == "" || h != strings.ToLower(h) || strings.ContainsAny(h, " \t:;") {
				t.Fatalf("accepted signed header %q in %q", h, header)
			}
		}
		if strings.ContainsAny(a.Date+a.Region+a.Service, "/") {
			t.Fatalf("a scope field holds a /: %+v", a)
		}
		again, err := parseSigV4(a.String())
		if err != nil || !reflect.DeepEqual(a, again) {
			t.Fatalf("%q parsed to %+v, which formats to %q, which parses to %+v, %v", header, a, a.String(), again, err)
		}
	})
}

// FuzzS3KeyPath: whatever the key, the mapping never panics, and a path
// it returns stays inside the volume directory, outside the hidden
// uploads folder, and is the key itself (file names are the key's
// segments).
func FuzzS3KeyPath(f *testing.F) {
	for _, s := range []string{"a/b.txt", "dir/", "../x", "a/../../b", "/etc/passwd", "a//b", "./a", ".", "..", "...", "a/./b",
		".s3compat_uploads/x", ".s3compat_uploads", "x/.s3compat_uploads/y", "dir with space/#+ü", "a\x00b", "\xff", `a\..\b`, "~", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	volume := filepath.FromSlash("/storage/volume")
	f.Fuzz(func(t *testing.T, key string) {
		rel, dir, err := s3KeyPath(key)
		if err != nil {
			return
		}
		switch {
		case !filepath.IsLocal(rel):
			t.Fatalf("key %q maps to %q, not local", key, rel)
		case filepath.Clean(rel) != rel:
			t.Fatalf("key %q maps to %q, not clean", key, rel)
		case !strings.HasPrefix(filepath.Join(volume, rel), volume+string(filepath.Separator)):
			t.Fatalf("key %q escapes the volume: %q", key, filepath.Join(volume, rel))
		case rel == ".s3compat_uploads" || strings.HasPrefix(rel, ".s3compat_uploads"+string(filepath.Separator)):
			t.Fatalf("key %q reaches the hidden folder", key)
		case dir != strings.HasSuffix(key, "/"):
			t.Fatalf("key %q: dir %v", key, dir)
		case filepath.ToSlash(rel) != strings.TrimSuffix(key, "/"):
			t.Fatalf("key %q maps to %q, another name", key, rel)
		case !utf8.ValidString(key) || len(key) > 1024 || strings.ContainsRune(key, 0):
			t.Fatalf("key %q should be refused", key)
		}
	})
}

// FuzzS3Match: the listing's prefix and delimiter rule puts a key in the
// contents or under a common prefix that is a prefix of it, ending with
// the delimiter, and never outside the listing's prefix.
func FuzzS3Match(f *testing.F) {
	f.Add("a/b/c", "a/", "/")
	f.Add("a/", "", "/")
	f.Add("abc", "ab", "")
	f.Fuzz(func(t *testing.T, key, prefix, delim string) {
		p := newPrefix(prefix, delim)
		item, common, ok := s3Match(key, p)
		if ok != strings.HasPrefix(key, prefix) {
			t.Fatalf("%q under %q: ok %v", key, prefix, ok)
		}
		if !ok {
			return
		}
		if !strings.HasPrefix(item, prefix) || !strings.HasPrefix(key, item) {
			t.Fatalf("%q under %q/%q gave %q", key, prefix, delim, item)
		}
		rest := key[len(prefix):]
		if common {
			if delim == "" || !strings.HasSuffix(item, delim) || strings.Index(rest, delim) != len(item)-len(prefix)-len(delim) {
				t.Fatalf("%q under %q/%q gave common prefix %q", key, prefix, delim, item)
			}
		} else if item != key || delim != "" && strings.Contains(rest, delim) {
			t.Fatalf("%q under %q/%q gave content %q", key, prefix, delim, item)
		}
	})
}

// newPrefix is a listing's prefix and delimiter as gofakes3 reads them
// from a query.
func newPrefix(prefix, delim string) gofakes3.Prefix {
	return gofakes3.Prefix{Prefix: prefix, HasPrefix: prefix != "", Delimiter: delim, HasDelimiter: delim != ""}
}

// TestListStart: a listing starts from the directory its prefix names,
// and nowhere for a prefix no key can have.
func TestListStart(t *testing.T) {
	for prefix, want := range map[string]string{"": ".", "abc": ".", "a/": "a", "a/b/c": "a/b", "a//b": "", "../x": "", "/x": "",
		".s3compat_uploads/": "", ".s3compat_uploads/p/q": "", "a/./": ""} {
		if got := listStart(prefix); got != want {
			t.Errorf("listStart(%q) = %q, want %q", prefix, got, want)
		}
	}
}
