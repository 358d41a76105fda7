package podssh_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/pods/podssh"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
	"github.com/runpodkit/runpod-go/runpodtest/fakessh"
)

var copySize = flag.Int64("copy.size", 256<<20, "size in bytes of the file BenchmarkCopy uploads and downloads")

// BenchmarkCopy copies one file of -copy.size bytes to a pod and back
// over SFTP, through runpodtest's SSH server for the pod, with the SDK
// (Conn.Upload, Conn.Download) beside its floor: the same copy written
// with golang.org/x/crypto/ssh and github.com/pkg/sftp used directly (one
// SSH connection, an SFTP client per copy with concurrent writes, the
// file to a temporary name then renamed, as the SDK does), against the
// same fake and pod. Each reports MB/s and peak-heap-MB (see
// testkit.MeasureTransfer); the fake runs in the benchmark's process, so
// its side of SFTP counts on both sides alike.
func BenchmarkCopy(b *testing.B) {
	size := *copySize
	ctx := context.Background()
	tmp := b.TempDir()
	src := filepath.Join(tmp, "source.bin")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, io.LimitReader(mrand.NewChaCha8([32]byte{1}), size)); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}

	srv := runpodtest.NewServer(contract.Check(), fakessh.Serve())
	b.Cleanup(srv.Close)
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		b.Fatal(err)
	}
	srv.SetSSHKeys(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	podID := srv.AddPod(runpodtest.Pod{Image: "runpod/base", Ports: []string{"22/tcp"}})
	rp, err := srv.NewClient()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rp.CloseIdleConnections)

	// The SDK's connection.
	key, err := podssh.NewKey(signer)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := podssh.NewFromConfig(rp.Config()).Dial(ctx, podID, podssh.DialOptions{Key: key})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	// The floor's: the same address, dialled through the fake's dialer.
	addr, err := rp.Pods.TCPAddress(ctx, podID, 22)
	if err != nil {
		b.Fatal(err)
	}
	nc, err := rp.Config().Dialer(ctx, "tcp", addr.String())
	if err != nil {
		b.Fatal(err)
	}
	c, chans, reqs, err := ssh.NewClientConn(nc, addr.String(), &ssh.ClientConfig{
		User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(conn.HostKey()),
	})
	if err != nil {
		b.Fatal(err)
	}
	plain := ssh.NewClient(c, chans, reqs)
	b.Cleanup(func() { _ = plain.Close() })

	const remote = "/workspace/bench.bin"
	if err := conn.Upload(ctx, src, remote); err != nil { // what the downloads fetch
		b.Fatal(err)
	}
	n := 0
	local := func() string { n++; return filepath.Join(tmp, "copy-"+strconv.Itoa(n)) }

	b.Run("upload/floor", func(b *testing.B) {
		testkit.MeasureTransfer(b, size, func() {
			if err := floorCopy(plain, func(sc *sftp.Client) error { return floorUpload(sc, src, remote) }); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("upload/sdk", func(b *testing.B) {
		testkit.MeasureTransfer(b, size, func() {
			if err := conn.Upload(ctx, src, remote); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("download/floor", func(b *testing.B) {
		testkit.MeasureTransfer(b, size, func() {
			dst := local()
			if err := floorCopy(plain, func(sc *sftp.Client) error { return floorDownload(sc, remote, dst) }); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = os.Remove(dst)
			b.StartTimer()
		})
	})
	b.Run("download/sdk", func(b *testing.B) {
		testkit.MeasureTransfer(b, size, func() {
			dst := local()
			if err := conn.Download(ctx, dst, remote); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = os.Remove(dst)
			b.StartTimer()
		})
	})
}

// floorCopy runs copy with an SFTP client of its own on c.
func floorCopy(c *ssh.Client, copy func(*sftp.Client) error) error {
	sc, err := sftp.NewClient(c, sftp.UseConcurrentWrites(true))
	if err != nil {
		return err
	}
	defer sc.Close()
	return copy(sc)
}

// floorUpload copies local to remote through a temporary name.
func floorUpload(sc *sftp.Client, local, remote string) error {
	in, err := os.Open(local)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := remote + ".part"
	out, err := sc.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return sc.PosixRename(tmp, remote)
}

// floorDownload copies remote to local through a temporary name.
func floorDownload(sc *sftp.Client, remote, local string) error {
	in, err := sc.Open(remote)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := local + ".part"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := in.WriteTo(out); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, local)
}
