package volumes

import (
	"context"

	"github.com/runpodkit/runpod-go/volumes/files"
)

// Files returns the files of network volume id, read and written
// through the platform's S3-compatible API with the client's S3 endpoint
// and S3 API key (option.WithS3Credentials); opts become the defaults of
// every call on the returned Volume.
//
// It reads the volume (Get) to learn its data center, and sends nothing
// else: a volume in a data center without the S3 API is a
// *files.DataCenterError (matching files.ErrNoS3API), a client without an
// S3 API key files.ErrNoS3Credentials, an unknown volume an error matching
// errs.ErrNotFound. A bad id is a *errs.ValidationError before anything
// is sent, a bad option one after the read. files.New builds the same
// Volume without the read, given the data center.
func (s *Service) Files(ctx context.Context, id string, opts ...files.Option) (*files.Volume, error) {
	if err := volumeID.Check(id); err != nil {
		return nil, err
	}
	vol, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return files.New(s.cfg, id, vol.DataCenter, opts...)
}
