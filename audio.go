package answerdesk

import (
	"context"
	"errors"
	"io"
	"time"
)

// AudioStore keeps the audio of call recordings: in the database (in chunks), in a
// directory, or in S3-compatible object storage. Audio passes through it as a stream in
// both directions and is never held whole in memory, whatever its size.
//
// Keys are chosen by the caller before the recording's row exists (an upload is stored
// first, then recorded), so a store may hold objects no row names: a crash between the two
// leaves one, and the retention job sweeps such objects once they are older than a grace
// period.
type AudioStore interface {
	// Put stores what r gives under key. It fails, and leaves nothing stored under key, when
	// r fails, ctx ends, or r gives more than max bytes (then with ErrAudioTooLarge). A
	// key that exists is replaced.
	Put(ctx context.Context, key string, r io.Reader, max int64) (AudioObject, error)
	// Open returns a reader of length bytes of key from offset; length -1 reads to the end.
	// A missing key is ErrAudioNotFound.
	Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Delete removes key. A missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every stored object, in no particular order, until fn returns an
	// error (which List returns).
	List(ctx context.Context, fn func(AudioObjectInfo) error) error
	// PresignGet returns a URL of the store itself that serves key with the given content
	// type until ttl has passed, or ErrPresignUnsupported for a store that cannot.
	PresignGet(ctx context.Context, key, contentType string, ttl time.Duration) (string, error)
}

// AudioObject is what Put stored.
type AudioObject struct {
	Key    string
	Size   int64
	SHA256 string // hex
}

// AudioObjectInfo is one stored object, as List sees it.
type AudioObjectInfo struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// Errors of an AudioStore.
var (
	ErrAudioTooLarge      = errors.New("audio store: the audio is larger than allowed")
	ErrAudioNotFound      = errors.New("audio store: no such audio")
	ErrPresignUnsupported = errors.New("audio store: this store cannot presign a link")
)

// The kinds of audio store, as a recording's row names the one that holds its audio.
const (
	AudioStoreDB   = "db"
	AudioStoreFile = "file"
	AudioStoreS3   = "s3"
)
