package runpodtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/runpodkit/runpod-go/runpodtest"
)

// The AWS CLI lists a network volume of the fake's EU-RO-1 with the flags
// of the platform's S3 guide, given the address and region S3Endpoint
// returns, and the S3 API key in the variables the guide sets.
func ExampleServer_S3Endpoint() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	endpoint, region := srv.S3Endpoint("EU-RO-1") // "http://127.0.0.1:<port>", "EU-RO-1"

	cmd := exec.Command("aws", "s3", "ls", "--region", region, "--endpoint-url", endpoint, "s3://"+vol+"/")
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+srv.S3AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.S3SecretKey)
	out, err := cmd.CombinedOutput()
	fmt.Printf("%s%v\n", out, err)
}

// OpenSSH's ssh runs a command on a fake pod through the loopback port
// ListenPodSSH opens, trusting only the host key it reports. The key
// file's public key is one of the account's (SetSSHKeys).
func ExampleServer_ListenPodSSH() {
	srv := runpodtest.NewServer()
	defer srv.Close()
	id := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})
	a, err := srv.ListenPodSSH(id)
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "ssh")
	defer os.RemoveAll(dir)
	knownHosts := filepath.Join(dir, "known_hosts")
	_ = os.WriteFile(knownHosts, []byte(a.KnownHostsLine()+"\n"), 0o600)

	out, err := exec.Command("ssh", "-p", strconv.Itoa(a.Port), "-i", "id_ed25519",
		"-o", "UserKnownHostsFile="+knownHosts, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
		"root@"+a.Host, "echo hi").CombinedOutput()
	fmt.Printf("%s%v\n", out, err)
}
