package fakessh_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// OpenSSH's ssh runs a command on a fake pod through the loopback port
// Listen opens, trusting only the host key it reports. The key
// file's public key is one of the account's (SetSSHKeys).
func ExampleListen() {
	srv := runpodtest.NewServer(fakessh.Serve())
	defer srv.Close()
	id := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})
	a, err := fakessh.Listen(srv, id)
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
