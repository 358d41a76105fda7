package registries

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzDelegationResource: whatever resource a caller gives, validation
// returns, never panics, and accepts only ECR repository ARNs.
func FuzzDelegationResource(f *testing.F) {
	for _, s := range []string{
		"arn:aws:ecr:us-east-2:123456789012:repository/team/app",
		"arn:aws-cn:ecr:cn-north-1:1:repository/x",
		"arn:aws:ecr:us-east-2:123456789012:repository/",
		"arn:aws:s3:::bucket",
		"arn:::::",
		"",
		"team/app",
		"arn:aws:ecr:us-east-2:12345678901a:repository/app",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, resource string) {
		err := CreateDelegationRequest{Resource: resource}.Validate()
		if err != nil {
			return
		}
		parts := strings.SplitN(resource, ":", 6)
		if len(parts) != 6 || parts[0] != "arn" || parts[2] != "ecr" || !strings.HasPrefix(parts[5], "repository/") {
			t.Fatalf("accepted %q", resource)
		}
	})
}

// FuzzRedaction: a create request prints the same, with every verb,
// whatever its password.
func FuzzRedaction(f *testing.F) {
	f.Add("name", "user", "hunter2", "p")
	f.Add("", "", "%v", "x")
	f.Add("n", "u", "Password:[REDACTED]", "\x00")
	f.Fuzz(func(t *testing.T, name, user, pw1, pw2 string) {
		if pw1 == "" || pw2 == "" {
			return // an empty password prints as empty
		}
		a := CreateRegistryRequest{Name: name, Username: user, Password: pw1}
		b := CreateRegistryRequest{Name: name, Username: user, Password: pw2}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			if x, y := fmt.Sprintf(verb, a), fmt.Sprintf(verb, b); x != y {
				t.Fatalf("%s shows the password: %q vs %q", verb, x, y)
			}
		}
		if a.String() != a.LogValue().String() {
			t.Fatal("LogValue differs from String")
		}
	})
}
