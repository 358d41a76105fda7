package files

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ETags: the platform's S3 API gives a file written whole the MD5 of its
// content, in hex, and a multipart upload the MD5 of its parts' binary
// MD5s, "-" and the number of parts, as S3 does. Sync compares local
// files with them, and Upload checks the parts a resumed upload finds.

// sameContent reports whether the file at p, of size bytes, has the
// content etag (unquoted) describes; ok is false when the ETag cannot
// tell: it is neither an MD5 nor a multipart ETag of partSize parts.
func sameContent(p string, size int64, etag string, partSize int64) (same, ok bool, err error) {
	etag = strings.ToLower(strings.Trim(etag, `"`))
	sum, parts, multipart := strings.Cut(etag, "-")
	if !isMD5Hex(sum) {
		return false, false, nil
	}
	n := int64(1)
	if multipart {
		n, err = strconv.ParseInt(parts, 10, 64)
		if err != nil || n < 1 || partSize <= 0 || (size+partSize-1)/partSize != n {
			return false, false, nil
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return false, true, err
	}
	defer func() { _ = f.Close() }()
	var got []byte
	if multipart {
		all := md5.New()
		for range n {
			h := md5.New()
			if _, err := io.CopyN(h, f, partSize); err != nil && !errors.Is(err, io.EOF) {
				return false, true, err
			}
			all.Write(h.Sum(nil))
		}
		got = all.Sum(nil)
	} else {
		h := md5.New()
		if _, err := io.Copy(h, f); err != nil {
			return false, true, err
		}
		got = h.Sum(nil)
	}
	return hex.EncodeToString(got) == sum, true, nil
}

// isMD5Hex reports whether s is 32 lower-case hex digits.
func isMD5Hex(s string) bool {
	if len(s) != 2*md5.Size {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// md5Of returns the MD5 of body in hex, and rewinds it.
func md5Of(body io.ReadSeeker) (string, error) {
	h := md5.New()
	if _, err := io.Copy(h, body); err != nil {
		return "", err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// multipartETag is the ETag S3 gives a multipart upload of these parts:
// the MD5 of their MD5s, "-" and their count; ok is false when a part's
// ETag is not an MD5.
func multipartETag(nums []int32, etags map[int32]string) (string, bool) {
	all := md5.New()
	for _, n := range nums {
		sum, err := hex.DecodeString(etags[n])
		if err != nil || len(sum) != md5.Size {
			return "", false
		}
		all.Write(sum)
	}
	return fmt.Sprintf("%s-%d", hex.EncodeToString(all.Sum(nil)), len(nums)), true
}
