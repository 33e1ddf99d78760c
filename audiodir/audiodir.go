// Package audiodir keeps recording audio in a directory (serve --audio-store file:///PATH).
// With several replicas, they must all see one shared directory.
package audiodir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// Store is an answerdesk.AudioStore over a directory: a key is a file path below it.
type Store struct {
	dir string
}

var _ answerdesk.AudioStore = (*Store)(nil)

// tempPrefix starts the name of a file being written: List skips such files, and Sweep
// removes those a crash left.
const tempPrefix = ".upload-"

// Open returns the store over dir, creating it (mode 0700) when it is missing.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("audiodir: no directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audiodir: create %s: %w", dir, err)
	}
	return &Store{dir: dir}, nil
}

// path is the file of key. A key can never name anything outside the directory: it is
// slash-separated segments, none empty, "." or "..", none starting with tempPrefix.
func (s *Store) path(key string) (string, error) {
	if key == "" || strings.ContainsAny(key, "\\\x00") || strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("audiodir: key %q is not a relative slash-separated path", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, tempPrefix) {
			return "", fmt.Errorf("audiodir: key %q has a segment %q that is not allowed", key, seg)
		}
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// Put writes what r gives to a temporary file beside the key's (mode 0600) and renames it
// into place once complete, so a key never names a half-written file.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, max int64) (obj answerdesk.AudioObject, err error) {
	path, err := s.path(key)
	if err != nil {
		return obj, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(ctxReader{ctx, r}, max+1))
	switch {
	case err != nil:
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	case n > max:
		return obj, answerdesk.ErrAudioTooLarge
	}
	if err := f.Sync(); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	return answerdesk.AudioObject{Key: key, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Open returns a reader of length bytes of key from offset (length -1: to the end).
func (s *Store) Open(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	path, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open audio %s: %w", key, answerdesk.ErrAudioNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open audio %s: %w", key, err)
	}
	if _, err := f.Seek(max(offset, 0), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("open audio %s: %w", key, err)
	}
	if length < 0 {
		return f, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, length), f}, nil
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(_ context.Context, key string) error {
	path, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete audio %s: %w", key, err)
	}
	return nil
}

// List calls fn for every complete file; it also removes the temporary files of uploads
// a crash cut off, once they are an hour old.
func (s *Store) List(ctx context.Context, fn func(answerdesk.AudioObjectInfo) error) error {
	return filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), tempPrefix) {
			if time.Since(info.ModTime()) > time.Hour {
				_ = os.Remove(path)
			}
			return nil
		}
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return err
		}
		return fn(answerdesk.AudioObjectInfo{Key: filepath.ToSlash(rel), Size: info.Size(), ModTime: info.ModTime()})
	})
}

// PresignGet is not possible: a directory serves nothing itself.
func (s *Store) PresignGet(context.Context, string, string, time.Duration) (string, error) {
	return "", answerdesk.ErrPresignUnsupported
}
