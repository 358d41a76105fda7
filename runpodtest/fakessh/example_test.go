package fakessh_test

import (
	"fmt"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

// ExampleServe seeds a file on a fake pod's file system, which SFTP, scp
// and the pod's commands see, and reads it back.
func ExampleServe() {
	srv := runpodtest.NewServer(fakessh.Serve())
	defer srv.Close()
	id := srv.AddPod(runpodtest.Pod{Image: "runpod/pytorch", Ports: []string{"22/tcp"}})

	if err := fakessh.WritePodFile(srv, id, "/workspace/hello.txt", []byte("hello\n")); err != nil {
		fmt.Println(err)
		return
	}
	b, err := fakessh.PodFile(srv, id, "/workspace/hello.txt")
	fmt.Printf("%s%v\n", b, err)
	// Output:
	// hello
	// <nil>
}
