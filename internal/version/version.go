// Package version holds the SDK's release version, shared by the root
// package (runpod.Version) and the User-Agent the transport sends.
package version

// Version is the SDK's semantic version.
const Version = "0.1.0"
