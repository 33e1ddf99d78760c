package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/answerdesk/answerdesk"
)

// AudioMove is one recording's audio moved by MoveAudio.
type AudioMove struct {
	RecordingID int64
	Key         string
	Size        int64
}

// MoveAudio moves the audio of every recording held by the store of kind fromKind (from)
// to the store of kind toKind (to), under the same key: each object is copied as a stream,
// checked against what the source gave (size and SHA-256, and the SHA-256 on the row when
// it has one), then the row is pointed at the copy, and only then is the source deleted.
// It can be stopped and run again at any point: a recording already moved is no longer of
// fromKind, and a copy left without its row pointing at it is written again. progress,
// when not nil, is called after each recording.
func (s *RecordingService) MoveAudio(ctx context.Context, from answerdesk.AudioStore, fromKind string, to answerdesk.AudioStore, toKind string,
	progress func(AudioMove)) (moved int, err error) {
	if fromKind == toKind {
		return 0, fmt.Errorf("move audio: the source and the target are both %s stores", fromKind)
	}
	for {
		// One recording at a time, read afresh each time: rows moved by another run
		// (or purged by retention) meanwhile are skipped.
		var m AudioMove
		var sha *string
		err := s.db.rd.QueryRowContext(ctx, `SELECT id, audio_key, audio_size, audio_sha256 FROM call_recordings
			WHERE audio_store = ? AND audio_key IS NOT NULL ORDER BY id LIMIT 1`, fromKind).Scan(&m.RecordingID, &m.Key, &m.Size, &sha)
		if errors.Is(err, sql.ErrNoRows) {
			return moved, nil
		}
		if err != nil {
			return moved, fmt.Errorf("move audio: find the next recording: %w", err)
		}
		if err := s.moveOne(ctx, from, to, toKind, m, sha); err != nil {
			return moved, fmt.Errorf("move the audio of recording %d (%s): %w", m.RecordingID, m.Key, err)
		}
		moved++
		if progress != nil {
			progress(m)
		}
	}
}

func (s *RecordingService) moveOne(ctx context.Context, from, to answerdesk.AudioStore, toKind string, m AudioMove, rowSHA *string) error {
	src, err := from.Open(ctx, m.Key, 0, -1)
	if err != nil {
		return err
	}
	defer src.Close()
	h := sha256.New()
	obj, err := to.Put(ctx, m.Key, io.TeeReader(src, h), max(m.Size, 1))
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	switch {
	case obj.Size != m.Size:
		err = fmt.Errorf("the copy has %d bytes, the recording %d", obj.Size, m.Size)
	case obj.SHA256 != got:
		err = fmt.Errorf("the copy's SHA-256 %s is not the source's %s", obj.SHA256, got)
	case rowSHA != nil && *rowSHA != "" && *rowSHA != got:
		err = fmt.Errorf("the source's SHA-256 %s is not the one recorded, %s", got, *rowSHA)
	}
	if err != nil {
		_ = to.Delete(context.WithoutCancel(ctx), m.Key)
		return err
	}
	res, err := s.db.write.ExecContext(ctx, `UPDATE call_recordings SET audio_store = ?, audio_sha256 = ? WHERE id = ? AND audio_key = ? AND audio_store <> ?`,
		toKind, got, m.RecordingID, m.Key, toKind)
	if err != nil {
		return fmt.Errorf("point the recording at its copy: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Purged or moved meanwhile: the copy is nobody's.
		return to.Delete(ctx, m.Key)
	}
	return from.Delete(ctx, m.Key)
}
