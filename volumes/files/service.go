package files

import (
	"context"

	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/volumes"
)

// Service reaches the files of network volumes with one client's
// configuration. Build it with NewFromConfig; it is safe for concurrent
// use.
type Service struct {
	cfg     option.Config
	volumes *volumes.Service
}

// NewFromConfig returns the service built from cfg (option.NewConfig, or
// runpod.Client.Config): it reads volumes over REST v2 with cfg's key and
// options, and reaches their files with cfg's S3 endpoint and S3 API key
// (option.WithS3Credentials), under cfg's middleware and attempt hooks.
//
//	fs := files.NewFromConfig(rp.Config())
//	vol, err := fs.Volume(ctx, "k7m2q9x4vd")
func NewFromConfig(cfg option.Config) *Service {
	return &Service{cfg: cfg, volumes: volumes.NewFromConfig(cfg)}
}

// Volume returns the files of network volume volumeID; opts become the
// defaults of every call on the returned Volume.
//
// It reads the volume (volumes.Service.Get) to learn its data center, and
// sends nothing else: a volume in a data center without the S3 API is a
// *DataCenterError (matching ErrNoS3API), a client without an S3 API key
// ErrNoS3Credentials, an unknown volume an error matching
// errs.ErrNotFound. A bad id is a *errs.ValidationError before anything
// is sent, a bad option one after the read. New builds the same Volume
// without the read, given the data center.
func (s *Service) Volume(ctx context.Context, volumeID string, opts ...Option) (*Volume, error) {
	if err := checkVolumeID(volumeID); err != nil {
		return nil, err
	}
	vol, err := s.volumes.Get(ctx, volumeID)
	if err != nil {
		return nil, err
	}
	return New(s.cfg, volumeID, vol.DataCenter, opts...)
}
