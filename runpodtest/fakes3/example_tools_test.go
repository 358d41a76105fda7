package fakes3_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
)

// The AWS CLI lists a network volume of the fake's EU-RO-1 with the flags
// of the platform's S3 guide, given the address and region Endpoint
// returns, and the S3 API key in the variables the guide sets.
func ExampleEndpoint() {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	endpoint, region := fakes3.Endpoint(srv, "EU-RO-1") // "http://127.0.0.1:<port>", "EU-RO-1"

	cmd := exec.Command("aws", "s3", "ls", "--region", region, "--endpoint-url", endpoint, "s3://"+vol+"/")
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+srv.S3AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.S3SecretKey)
	out, err := cmd.CombinedOutput()
	fmt.Printf("%s%v\n", out, err)
}
