package registries

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/runpodkit/runpod-go/internal/fail"
	"github.com/runpodkit/runpod-go/secret"
)

// The checks below are the constraints the REST v2 document puts on the
// request bodies: every field of CreateRegistryRequest required and not
// empty, and CreateDelegationRequest.Resource required, the ARN of an ECR
// repository. A request that breaks one is refused before anything is
// sent, with a *errs.ValidationError naming the field (never quoting
// the password).

// Validate checks the request before anything is sent.
func (r CreateRegistryRequest) Validate() error {
	const f = "CreateRegistryRequest"
	switch {
	case r.Name == "":
		return fail.Invalid(f+".Name", "is required")
	case r.Username == "":
		return fail.Invalid(f+".Username", "is required")
	case r.Password == "":
		return fail.Invalid(f+".Password", "is required")
	}
	return nil
}

// String describes the request without its password.
func (r CreateRegistryRequest) String() string {
	pw := ""
	if r.Password != "" {
		pw = redacted
	}
	return fmt.Sprintf("CreateRegistryRequest{Name:%s Username:%s Password:%s}", r.Name, r.Username, pw)
}

// GoString describes the request without its password.
func (r CreateRegistryRequest) GoString() string { return r.String() }

// Format prints String for every verb.
func (r CreateRegistryRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// LogValue logs String, so that no slog handler, JSON included, sees the
// password.
func (r CreateRegistryRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

const redacted = secret.Redacted

// Validate checks the request before anything is sent: Resource must be
// the ARN of an ECR repository, "arn:<partition>:ecr:<region>:<account
// id>:repository/<name>".
func (r CreateDelegationRequest) Validate() error {
	const f = "CreateDelegationRequest"
	if r.Resource == "" {
		return fail.Invalid(f+".Resource", "is required (the ARN of an ECR repository)")
	}
	if err := checkARN(r.Resource); err != "" {
		return fail.Invalid(f+".Resource", "want the ARN of an ECR repository, arn:aws:ecr:<region>:<account id>:repository/<name>: %s, got %q", err, r.Resource)
	}
	return nil
}

// checkARN checks the shape of an ECR repository ARN, as AWS defines
// ARNs: arn:partition:service:region:account-id:resource. It returns what
// is wrong, or "".
func checkARN(s string) string {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" {
		return `not an ARN (arn:<partition>:<service>:<region>:<account id>:<resource>)`
	}
	partition, service, region, account, resource := parts[1], parts[2], parts[3], parts[4], parts[5]
	switch {
	case partition == "":
		return "no partition"
	case service != "ecr":
		return fmt.Sprintf("service %q, want ecr", service)
	case region == "":
		return "no region"
	case account == "" || strings.Trim(account, "0123456789") != "":
		return "the account id must be digits"
	case !strings.HasPrefix(resource, "repository/") || len(resource) == len("repository/"):
		return "the resource must be repository/<name>"
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "it contains white space or control characters"
	}
	return ""
}
