package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/answerdesk/answerdesk"
)

// AudioStore is the audio store inside the database (the embedded default): an object is
// its chunks of audioChunkSize bytes, each written in a statement of its own, so an upload
// of any size holds the writer for one chunk at a time and a reader holds one chunk in
// memory. An object is complete once its last chunk is in and its size and SHA-256 are
// recorded; Open refuses an incomplete one, and the retention job sweeps those left by an
// upload cut off or a crash.
type AudioStore struct {
	db *DB
}

// NewAudioStore returns the audio store in db.
func NewAudioStore(db *DB) *AudioStore { return &AudioStore{db: db} }

var _ answerdesk.AudioStore = (*AudioStore)(nil)

// audioChunkSize is the size of a chunk: a 100 MiB recording is 800 rows, and each reader
// holds one chunk (32 concurrent downloads, 4 MiB) while the driver's copy of the next is
// garbage at once. The size trades memory for queries: with 32 downloads of 100 MiB at
// once (BenchmarkRecordingAudio), 256 KiB chunks peaked near 150 MiB of RSS, most of it
// the garbage collector trailing the driver's copies, and 64 KiB chunks were a query per
// 64 KiB, under half of http.ServeContent's throughput. Audio migrated from before the
// store is one chunk per file, of any size: a reader copies at most audioChunkSize of it
// at a time and loads it again for the rest.
const audioChunkSize = 128 << 10

// Put stores what r gives under key, chunk by chunk.
func (s *AudioStore) Put(ctx context.Context, key string, r io.Reader, max int64) (obj answerdesk.AudioObject, err error) {
	if err := s.Delete(ctx, key); err != nil {
		return obj, err
	}
	if _, err := s.db.write.ExecContext(ctx, `INSERT INTO audio_objects (key, created_at) VALUES (?, ?)`, key, s.db.now().UnixMilli()); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			// Nothing of a failed upload stays: its chunks go with it (ON DELETE CASCADE).
			if derr := s.Delete(context.WithoutCancel(ctx), key); derr != nil {
				err = errors.Join(err, derr)
			}
		}
	}()
	h := sha256.New()
	buf := make([]byte, audioChunkSize)
	var size int64
	for seq := 0; ; seq++ {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if size+int64(n) > max {
				return obj, answerdesk.ErrAudioTooLarge
			}
			h.Write(buf[:n])
			// A chunk need not reach the disk on its own: the object is complete only with
			// the UPDATE below, whose synced commit syncs the chunks written before it, and
			// a crash before that leaves an incomplete object for the sweep.
			if err := s.db.writeUnsynced(ctx, func(q rowQuerier) error {
				_, err := q.ExecContext(ctx, `INSERT INTO audio_chunks (key, seq, offset_, data) VALUES (?, ?, ?, ?)`,
					key, seq, size, buf[:n])
				return err
			}); err != nil {
				return obj, fmt.Errorf("put audio %s chunk %d: %w", key, seq, err)
			}
			size += int64(n)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return obj, fmt.Errorf("put audio %s: read: %w", key, rerr)
		}
	}
	if err := ctx.Err(); err != nil {
		return obj, err
	}
	obj = answerdesk.AudioObject{Key: key, Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}
	if _, err := s.db.write.ExecContext(ctx, `UPDATE audio_objects SET size = ?, sha256 = ?, complete = 1 WHERE key = ?`,
		obj.Size, obj.SHA256, key); err != nil {
		return obj, fmt.Errorf("put audio %s: %w", key, err)
	}
	if !s.db.d.postgres {
		// The writer's page cache now holds the upload's pages, which nothing reads
		// through it again: give their memory back (up to 16 MB) rather than keep it
		// until other writes push them out. Only memory is at stake, so an error is
		// let go.
		_, _ = s.db.write.ExecContext(ctx, `PRAGMA shrink_memory`)
	}
	return obj, nil
}

// Open returns a reader of length bytes of key from offset, which loads one chunk at a time.
func (s *AudioStore) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	var size int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT size FROM audio_objects WHERE key = ? AND complete = 1`, key).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("open audio %s: %w", key, answerdesk.ErrAudioNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open audio %s: %w", key, err)
	}
	offset = min(max(offset, 0), size)
	end := size
	if length >= 0 {
		end = min(size, offset+length)
	}
	return &chunkReader{ctx: ctx, db: s.db, key: key, pos: offset, end: end}, nil
}

// chunkReader reads an object's bytes [pos, end) chunk by chunk, each copied into buf: the
// driver's copy of a chunk is garbage at once, and the query's connection goes back to
// the pool before the bytes are passed on (a slow player holds no connection).
type chunkReader struct {
	ctx      context.Context
	db       *DB
	key      string
	pos, end int64
	buf      []byte
	chunk    []byte // the loaded chunk's bytes from pos on, within buf
}

// load reads the chunk holding pos into buf.
func (r *chunkReader) load() error {
	rows, err := r.db.audioRd.QueryContext(r.ctx, `SELECT offset_, data FROM audio_chunks WHERE key = ? AND offset_ <= ?
		ORDER BY offset_ DESC LIMIT 1`, r.key, r.pos)
	if err != nil {
		return fmt.Errorf("read audio %s at %d: %w", r.key, r.pos, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read audio %s at %d: %w", r.key, r.pos, err)
		}
		return fmt.Errorf("read audio %s at %d: %w", r.key, r.pos, io.ErrUnexpectedEOF)
	}
	var start int64
	var data sql.RawBytes // the driver's bytes, not copied again by Scan
	if err := rows.Scan(&start, &data); err != nil {
		return fmt.Errorf("read audio %s at %d: %w", r.key, r.pos, err)
	}
	if start+int64(len(data)) <= r.pos {
		return fmt.Errorf("read audio %s at %d: %w", r.key, r.pos, io.ErrUnexpectedEOF)
	}
	if r.buf == nil {
		r.buf = make([]byte, audioChunkSize)
	}
	n := copy(r.buf, data[r.pos-start:])
	r.chunk = r.buf[:n]
	return nil
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.pos >= r.end {
		return 0, io.EOF
	}
	if len(r.chunk) == 0 {
		if err := r.load(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.chunk[:min(int64(len(r.chunk)), r.end-r.pos)])
	r.chunk, r.pos = r.chunk[n:], r.pos+int64(n)
	return n, nil
}

func (r *chunkReader) Close() error {
	r.chunk, r.buf = nil, nil
	return nil
}

// Delete removes key and its chunks.
func (s *AudioStore) Delete(ctx context.Context, key string) error {
	if _, err := s.db.write.ExecContext(ctx, `DELETE FROM audio_objects WHERE key = ?`, key); err != nil {
		return fmt.Errorf("delete audio %s: %w", key, err)
	}
	return nil
}

// List calls fn for every object, complete or not.
func (s *AudioStore) List(ctx context.Context, fn func(answerdesk.AudioObjectInfo) error) error {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT key, size, created_at FROM audio_objects ORDER BY key`)
	if err != nil {
		return fmt.Errorf("list audio: %w", err)
	}
	var objs []answerdesk.AudioObjectInfo
	for rows.Next() {
		var o answerdesk.AudioObjectInfo
		var created int64
		if err := rows.Scan(&o.Key, &o.Size, &created); err != nil {
			rows.Close()
			return fmt.Errorf("list audio: %w", err)
		}
		o.ModTime = time.UnixMilli(created).UTC()
		objs = append(objs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list audio: %w", err)
	}
	// fn runs after the query is done: it may delete, which on SQLite needs the writer.
	for _, o := range objs {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// PresignGet is not possible: the database serves nothing itself.
func (s *AudioStore) PresignGet(context.Context, string, string, time.Duration) (string, error) {
	return "", answerdesk.ErrPresignUnsupported
}
