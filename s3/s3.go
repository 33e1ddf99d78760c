// Package s3 keeps recording audio in S3-compatible object storage (serve --audio-store
// s3://BUCKET/PREFIX?region=R&endpoint=URL&path_style=true): AWS S3, Cloudflare R2, MinIO,
// SeaweedFS, Garage. It talks S3 through minio-go, a small, well-kept client of the
// protocol, rather than signing requests by hand.
package s3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/answerdesk/answerdesk"
)

// partSize is the size of each part of an upload of unknown length: minio-go holds one part
// in memory per upload, so it bounds what an upload costs (and an object may be up to
// 10,000 parts, 80 GB, far above any recording).
const partSize = 8 << 20

// Store is an answerdesk.AudioStore over a bucket, keys under a prefix.
type Store struct {
	client *minio.Client
	bucket string
	prefix string // "" or ending in "/"
}

var _ answerdesk.AudioStore = (*Store)(nil)

// Config is what an s3:// URL says.
type Config struct {
	Bucket, Prefix string
	Region         string
	Endpoint       string // host[:port]; "" is AWS S3
	Secure         bool   // https
	PathStyle      bool   // bucket in the path (MinIO and most self-hosted stores), not the host name
}

// ParseURL reads s3://BUCKET/PREFIX?region=R&endpoint=URL&path_style=true.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("s3 URL: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return Config{}, fmt.Errorf("s3 URL %q: want s3://BUCKET/PREFIX?region=R&endpoint=URL&path_style=true", raw)
	}
	if u.User != nil {
		// Refused rather than ignored: a key in the URL would show in process lists and
		// logs, and the store would not use it.
		return Config{}, fmt.Errorf("s3 URL: credentials in the URL are refused: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	c := Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Secure: true}
	q := u.Query()
	if eu, err := url.Parse(q.Get("endpoint")); err == nil && eu.User != nil {
		return Config{}, fmt.Errorf("s3 URL: credentials in the endpoint are refused: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	for name := range q {
		switch name {
		case "region", "endpoint", "path_style":
		default:
			return Config{}, fmt.Errorf("s3 URL %q: unknown parameter %q (region, endpoint, path_style)", raw, name)
		}
	}
	c.Region = q.Get("region")
	if e := q.Get("endpoint"); e != "" {
		eu, err := url.Parse(e)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" || (eu.Path != "" && eu.Path != "/") {
			return Config{}, fmt.Errorf("s3 URL %q: endpoint %q: want http(s)://HOST[:PORT]", raw, e)
		}
		c.Endpoint, c.Secure = eu.Host, eu.Scheme == "https"
	}
	if ps := q.Get("path_style"); ps != "" {
		if c.PathStyle, err = strconv.ParseBool(ps); err != nil {
			return Config{}, fmt.Errorf("s3 URL %q: path_style %q: want true or false", raw, ps)
		}
	}
	return c, nil
}

// Open connects to the store an s3:// URL names, with credentials from the standard chain:
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), then the shared
// credentials file, then the instance's role. It checks that the bucket is there.
func Open(ctx context.Context, raw string) (*Store, error) {
	c, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = "s3.amazonaws.com"
	}
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{}, &credentials.FileAWSCredentials{}, &credentials.IAM{Client: &http.Client{Timeout: 10 * time.Second}},
	})
	opts := &minio.Options{Creds: creds, Secure: c.Secure, Region: c.Region, BucketLookup: minio.BucketLookupAuto}
	if c.PathStyle {
		opts.BucketLookup = minio.BucketLookupPath
	}
	client, err := minio.New(endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("s3 store %s: %w", endpoint, err)
	}
	ok, err := client.BucketExists(ctx, c.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3 store: check bucket %s at %s: %w", c.Bucket, endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("s3 store: no bucket %s at %s", c.Bucket, endpoint)
	}
	s := &Store{client: client, bucket: c.Bucket}
	if c.Prefix != "" {
		s.prefix = c.Prefix + "/"
	}
	return s, nil
}

// countingReader hashes and counts what passes, and fails past max.
type countingReader struct {
	r       io.Reader
	h       hash.Hash
	n, max  int64
	tooMany bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.tooMany = true
		return 0, answerdesk.ErrAudioTooLarge
	}
	c.h.Write(p[:n])
	return n, err
}

// Put streams what r gives to the object, in parts of partSize; a failed upload is aborted,
// so nothing is left under key.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, max int64) (answerdesk.AudioObject, error) {
	cr := &countingReader{r: r, h: sha256.New(), max: max}
	// The parts go unsigned (UNSIGNED-PAYLOAD) rather than as aws-chunked signed streams,
	// which not every S3-compatible store decodes in multipart uploads; TLS protects them
	// on the way, and the SHA-256 kept on the recording is computed here.
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, cr, -1,
		minio.PutObjectOptions{PartSize: partSize, ContentType: "application/octet-stream", DisableContentSha256: true})
	if err != nil {
		// Nothing of it stays, whatever the client managed to send before the failure.
		_ = s.client.RemoveObject(context.WithoutCancel(ctx), s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
		if cr.tooMany {
			return answerdesk.AudioObject{}, answerdesk.ErrAudioTooLarge
		}
		return answerdesk.AudioObject{}, fmt.Errorf("put audio %s: %w", key, err)
	}
	return answerdesk.AudioObject{Key: key, Size: cr.n, SHA256: hex.EncodeToString(cr.h.Sum(nil))}, nil
}

// Open returns a reader of length bytes of key from offset (length -1: to the end): one
// ranged GET, streamed.
func (s *Store) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if length == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	var opts minio.GetObjectOptions
	switch {
	case length > 0:
		err := opts.SetRange(offset, offset+length-1)
		if err != nil {
			return nil, fmt.Errorf("open audio %s: %w", key, err)
		}
	case offset > 0:
		if err := opts.SetRange(offset, 0); err != nil {
			return nil, fmt.Errorf("open audio %s: %w", key, err)
		}
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, opts)
	if err == nil {
		_, err = obj.Stat() // makes the request: a missing key fails here, not at the first read
	}
	if err != nil {
		if obj != nil {
			obj.Close()
		}
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, fmt.Errorf("open audio %s: %w", key, answerdesk.ErrAudioNotFound)
		}
		if minio.ToErrorResponse(err).Code == "InvalidRange" {
			return io.NopCloser(strings.NewReader("")), nil // from past the end: nothing
		}
		return nil, fmt.Errorf("open audio %s: %w", key, err)
	}
	return obj, nil
}

// Delete removes key; a missing key is not an error (S3's rule too).
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("delete audio %s: %w", key, err)
	}
	return nil
}

// List calls fn for every object under the prefix.
func (s *Store) List(ctx context.Context, fn func(answerdesk.AudioObjectInfo) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing when fn fails
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, Recursive: true}) {
		if o.Err != nil {
			return fmt.Errorf("list audio: %w", o.Err)
		}
		if err := fn(answerdesk.AudioObjectInfo{Key: strings.TrimPrefix(o.Key, s.prefix), Size: o.Size, ModTime: o.LastModified}); err != nil {
			return err
		}
	}
	return nil
}

// PresignGet returns a presigned GET URL of key that serves it with contentType until ttl
// has passed (S3 allows 1 second to 7 days).
func (s *Store) PresignGet(ctx context.Context, key, contentType string, ttl time.Duration) (string, error) {
	ttl = min(max(ttl, time.Second), 7*24*time.Hour)
	u, err := s.client.PresignedGetObject(ctx, s.bucket, s.prefix+key, ttl, url.Values{"response-content-type": {contentType}})
	if err != nil {
		return "", fmt.Errorf("presign audio %s: %w", key, err)
	}
	return u.String(), nil
}
