package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/answerdesk/answerdesk"
)

// IngestCallRecording stores a recording the phone system hands over: the audio streams
// into the audio store first (checked to be of the type named, and bounded by
// MaxAudioBytes), then the row is written naming it. An upload cut off midway stores
// nothing: the store drops what it had, and no row is written. The same account and
// call_sid again answers the recording stored first, and anything stored for the repeat is
// deleted.
func (s *RecordingService) IngestCallRecording(ctx context.Context, c *answerdesk.Caller, in *answerdesk.RecordingIngest, audio *answerdesk.AudioUpload) (*answerdesk.CallRecording, error) {
	if !c.HasScope(answerdesk.ScopeRecordingsWrite) && c.RequireAdmin() != nil {
		return nil, &answerdesk.Error{Code: answerdesk.EFORBIDDEN, Message: "only an admin or a token with the scope recordings:write may hand over call recordings",
			Hint: "Create a token for the phone system: answerdesk token create --user EMAIL --scope recordings:write."}
	}
	acct, err := s.db.accountForCreate(ctx, c, in.AccountNumber)
	if err != nil {
		return nil, err
	}
	if r, err := s.findBySID(ctx, acct.ID, in.Recording.CallSID); err == nil || !errors.Is(err, sql.ErrNoRows) {
		return r, err
	}
	if in.MessageID != 0 {
		var found bool
		if err := s.db.rd.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE id = ? AND account_id = ?)`,
			in.MessageID, acct.ID).Scan(&found); err != nil {
			return nil, fmt.Errorf("find message %d: %w", in.MessageID, err)
		}
		if !found {
			return nil, answerdesk.FieldErr("message_id", "is not a message of account "+acct.Number)
		}
	}
	r := in.Recording
	r.AccountID = acct.ID
	var info *answerdesk.AudioInfo
	if audio != nil {
		if info, err = s.storeAudio(ctx, audio); err != nil {
			return nil, err
		}
		r.HasAudio = true
	}
	err = s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		return insertCallRecording(ctx, tx, &r, in.MessageID, info)
	})
	if err != nil {
		if info != nil {
			if derr := s.AudioStore(info.Store).Delete(context.WithoutCancel(ctx), info.Key); derr != nil {
				err = errors.Join(err, derr)
			}
		}
		if isUnique(err) {
			// The same call handed over twice at once: the first one's row stands.
			return s.findBySID(ctx, acct.ID, in.Recording.CallSID)
		}
		return nil, err
	}
	return s.findByID(ctx, r.ID)
}

// storeAudio streams an upload into the store new audio goes to.
func (s *RecordingService) storeAudio(ctx context.Context, audio *answerdesk.AudioUpload) (*answerdesk.AudioInfo, error) {
	t, ok := answerdesk.AudioType(audio.ContentType)
	if !ok {
		return nil, answerdesk.FieldErr("audio", fmt.Sprintf("has the content type %q; it must be one of %s",
			audio.ContentType, strings.Join(answerdesk.AudioTypes, ", ")))
	}
	st, kind := s.newAudio()
	limit := s.MaxAudioBytes
	if limit <= 0 {
		limit = answerdesk.DefaultMaxAudioBytes
	}
	key := fmt.Sprintf("recordings/%s/%s", s.db.now().Format("2006/01"), uuid.NewString())
	sniff := &sniffReader{r: audio.Body, typ: t}
	obj, err := st.Put(ctx, key, sniff, limit)
	switch {
	case sniff.empty:
		return nil, answerdesk.FieldErr("audio", "is empty")
	case sniff.wrong:
		return nil, answerdesk.FieldErr("audio", fmt.Sprintf("is not %s data: its first bytes are not those of that format", t))
	case errors.Is(err, answerdesk.ErrAudioTooLarge):
		return nil, &answerdesk.Error{Code: answerdesk.ETOOLARGE, Message: fmt.Sprintf("the audio is larger than %d bytes", limit),
			Hint: "Send a shorter recording, or ask the operator to raise serve --max-audio-bytes."}
	case err != nil:
		return nil, fmt.Errorf("store the audio: %w", err)
	}
	return &answerdesk.AudioInfo{Store: kind, Key: key, ContentType: t, Size: obj.Size, SHA256: obj.SHA256}, nil
}

// errNotAudio ends the read of an upload whose first bytes are not of the type it names,
// and errEmptyAudio that of an empty one: neither reaches the store as an object (some
// S3-compatible stores refuse an empty part outright).
var (
	errNotAudio   = errors.New("the audio is not of the type it names")
	errEmptyAudio = errors.New("the audio is empty")
)

// sniffReader passes an upload through once its first bytes have shown it is of typ.
type sniffReader struct {
	r       io.Reader
	typ     string
	checked bool
	wrong   bool
	empty   bool
	head    []byte // read ahead for the check, not yet passed on
}

func (s *sniffReader) Read(p []byte) (int, error) {
	if !s.checked {
		s.checked = true
		head := make([]byte, answerdesk.SniffLength)
		n, err := io.ReadFull(s.r, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if n == 0 {
			s.empty = true
			return 0, errEmptyAudio
		}
		if !answerdesk.SniffAudio(s.typ, head[:n]) {
			s.wrong = true
			return 0, errNotAudio
		}
		s.head = head[:n]
	}
	if len(s.head) > 0 {
		n := copy(p, s.head)
		s.head = s.head[n:]
		return n, nil
	}
	return s.r.Read(p)
}

// findBySID returns the recording of account's call sid (sql.ErrNoRows when none), as the
// GET operations show it.
func (s *RecordingService) findBySID(ctx context.Context, accountID int64, sid string) (*answerdesk.CallRecording, error) {
	return s.scan(s.db.rd.QueryRowContext(ctx, `SELECT `+recordingColumns+recordingFrom+` WHERE r.account_id = ? AND r.call_sid = ?`,
		accountID, sid))
}

// findByID returns recording id as the GET operations show it, whoever asks: an ingest
// answers with what it stored, though its credential may read nothing.
func (s *RecordingService) findByID(ctx context.Context, id int64) (*answerdesk.CallRecording, error) {
	r, err := s.scan(s.db.rd.QueryRowContext(ctx, `SELECT `+recordingColumns+recordingFrom+` WHERE r.id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("load call recording %d: %w", id, err)
	}
	return r, nil
}
