package fakes3_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/fakes3"
)

// ExampleServe lists a network volume's files with an S3 client of your
// own, aimed at the data center's host of S3URL with the server's S3 API
// key: the file a test seeded with WriteVolumeFile is there.
func ExampleServe() {
	srv := runpodtest.NewServer(fakes3.Serve())
	defer srv.Close()
	vol := srv.AddNetworkVolume(runpodtest.NetworkVolume{DataCenter: "EU-RO-1"})
	if err := srv.WriteVolumeFile(vol, "models/tiny.bin", strings.NewReader("weights")); err != nil {
		fmt.Println(err)
		return
	}

	c := s3.New(s3.Options{
		Region:       "EU-RO-1",
		BaseEndpoint: aws.String(strings.ReplaceAll(srv.S3URL, "{dc}", "eu-ro-1")),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(srv.S3AccessKey, srv.S3SecretKey, ""),
		HTTPClient:   srv.Client(), // dials s3api-eu-ro-1.localhost to the fake
	})
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(vol)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range out.Contents {
		fmt.Println(*o.Key, *o.Size)
	}
	fmt.Println(fakes3.Count(srv, "ListObjectsV2"))
	// Output:
	// models/tiny.bin 7
	// 1
}
