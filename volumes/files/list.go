package files

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"mime"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/runpodkit/runpod-go/internal/wait"
)

// TokenAttempts is how many times List asks for one page while the
// platform answers it with the continuation token it was given (see
// ErrRepeatedToken), pausing with the client's backoff between asks.
const TokenAttempts = 30

// ErrRepeatedToken reports a listing whose page the platform kept
// answering with the continuation token it was asked for, TokenAttempts
// times. The platform does this while it computes the checksums of files
// written without the S3 API (a pod's files), which on a large directory
// can take minutes; listing again later works.
var ErrRepeatedToken = errors.New("runpod: S3 listing: the same next token was received repeatedly")

// listPage is how many keys one ListObjectsV2 page asks for (S3's most).
const listPage = 1000

// List yields the files and directories whose keys start with prefix,
// in key order: "" lists the whole volume, "datasets/" one directory,
// "datasets/2024-" the keys starting so. It asks for one page of keys at
// a time, as the loop consumes them; a loop that stops early sends
// nothing more.
//
// The platform lists empty directories too, as keys ending in "/": they
// are yielded with Entry.Dir set. With NonRecursive, List does not
// descend: it yields the files directly under prefix and each
// subdirectory once, as an Entry with Dir set.
//
// The platform may answer a page with the continuation token it was
// asked for, while it computes checksums of files written by pods: List
// pauses (the client's backoff) and asks again, up to TokenAttempts
// times, then yields an error matching ErrRepeatedToken. Whatever pages
// repeat, each key is yielded once. A failed page yields one error and
// ends the listing. A bad prefix is a *errs.ValidationError, before any
// request.
func (v *Volume) List(ctx context.Context, prefix string, opts ...Option) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if err := checkPrefix("prefix", prefix); err != nil {
			yield(Entry{}, err)
			return
		}
		set, err := v.call(opts)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		in := &s3.ListObjectsV2Input{Bucket: aws.String(v.id), MaxKeys: aws.Int32(listPage)}
		if prefix != "" {
			in.Prefix = aws.String(prefix)
		}
		if !set.recursive {
			in.Delimiter = aws.String("/")
		}
		// last is the greatest key yielded: S3 lists in key order, so a
		// key not after it was yielded already (a repeated page).
		last := ""
		for {
			out, err := v.listPage(ctx, in)
			if err != nil {
				yield(Entry{}, err)
				return
			}
			for _, e := range pageEntries(out) {
				if e.Key <= last {
					continue
				}
				last = e.Key
				if !yield(e, nil) {
					return
				}
			}
			if !aws.ToBool(out.IsTruncated) || aws.ToString(out.NextContinuationToken) == "" {
				return
			}
			in.ContinuationToken = out.NextContinuationToken
		}
	}
}

// listPage asks for one page, again while the platform answers with the
// token it was given.
func (v *Volume) listPage(ctx context.Context, in *s3.ListObjectsV2Input) (*s3.ListObjectsV2Output, error) {
	for attempt := 0; ; attempt++ {
		out, err := v.s3.ListObjectsV2(ctx, in)
		if err == nil {
			err = notHTML(out.ResultMetadata)
		}
		if err != nil {
			return nil, s3Error("ListObjectsV2", aws.ToString(in.Prefix), err)
		}
		sent := aws.ToString(in.ContinuationToken)
		if sent == "" || !aws.ToBool(out.IsTruncated) || aws.ToString(out.NextContinuationToken) != sent {
			return out, nil
		}
		if attempt+1 >= TokenAttempts {
			return nil, fmt.Errorf("%w (%d times for prefix %q); list again later", ErrRepeatedToken, TokenAttempts, aws.ToString(in.Prefix))
		}
		v.debug("files: the listing answered with the token it was given; asking again", "prefix", aws.ToString(in.Prefix), "attempt", attempt+1)
		if err := wait.Sleep(ctx, v.wait.delay(attempt)); err != nil {
			return nil, fmt.Errorf("runpod: S3 ListObjectsV2 %s: %w", aws.ToString(in.Prefix), err)
		}
	}
}

// notHTML refuses a listing answered with an HTML page: a proxy or a
// captive portal answering for the platform. A well-formed page decodes
// as an empty listing, which Sync with DeleteExtra would take for an
// empty directory.
func notHTML(md middleware.Metadata) error {
	resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response)
	if !ok {
		return nil
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); mt != "text/html" && mt != "application/xhtml+xml" {
		return nil
	}
	return &smithyhttp.ResponseError{
		Response: resp,
		Err:      &smithy.DeserializationError{Err: fmt.Errorf("an HTML page (Content-Type %s), not an S3 listing: something other than the platform answered", ct)},
	}
}

// pageEntries returns a page's files and directories in key order: its
// Contents and its CommonPrefixes (with a delimiter) merged.
func pageEntries(out *s3.ListObjectsV2Output) []Entry {
	entries := make([]Entry, 0, len(out.Contents)+len(out.CommonPrefixes))
	prefixes := out.CommonPrefixes
	for _, o := range out.Contents {
		key := aws.ToString(o.Key)
		for len(prefixes) > 0 && aws.ToString(prefixes[0].Prefix) < key {
			entries = append(entries, dirEntry(prefixes[0]))
			prefixes = prefixes[1:]
		}
		entries = append(entries, objectEntry(o))
	}
	for _, p := range prefixes {
		entries = append(entries, dirEntry(p))
	}
	return entries
}

// objectEntry is the Entry of a listed object; a key ending in "/" is an
// empty directory.
func objectEntry(o types.Object) Entry {
	key := aws.ToString(o.Key)
	return Entry{
		Key:     key,
		Size:    aws.ToInt64(o.Size),
		ModTime: aws.ToTime(o.LastModified),
		ETag:    strings.Trim(aws.ToString(o.ETag), `"`),
		Dir:     strings.HasSuffix(key, "/"),
	}
}

// dirEntry is the Entry of a common prefix: a subdirectory.
func dirEntry(p types.CommonPrefix) Entry { return Entry{Key: aws.ToString(p.Prefix), Dir: true} }

// Stat returns the Entry of the file of key (its size, ETag and
// modification time) without reading it. A missing key is an error
// matching fs.ErrNotExist; a bad key a *errs.ValidationError, before any
// request.
func (v *Volume) Stat(ctx context.Context, key string) (Entry, error) {
	if err := checkKey("key", key, false); err != nil {
		return Entry{}, err
	}
	obj, err := v.head(ctx, key)
	return obj.entry, err
}
