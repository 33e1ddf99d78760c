package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// RecordingService implements answerdesk.CallRecordingService, RecordingIngestService and
// RetentionService.
type RecordingService struct {
	db     *DB
	signer *answerdesk.AudioSigner

	// Audio is the store new audio goes to, of kind AudioKind; nil (or AudioKind "db") is
	// the database's own. Audio already stored stays where its row says, and is read from
	// there (AudioStore).
	Audio     answerdesk.AudioStore
	AudioKind string
	// MaxAudioBytes bounds an ingested audio file (default answerdesk.DefaultMaxAudioBytes).
	MaxAudioBytes int64
	// Now is the clock of the orphan sweep (default time.Now).
	Now func() time.Time
}

// NewRecordingService returns the recording service over db; signer makes the audio URLs.
// New audio goes to the database until Audio is set.
func NewRecordingService(db *DB, signer *answerdesk.AudioSigner) *RecordingService {
	return &RecordingService{db: db, signer: signer}
}

var (
	_ answerdesk.CallRecordingService   = (*RecordingService)(nil)
	_ answerdesk.RecordingIngestService = (*RecordingService)(nil)
	_ answerdesk.RetentionService       = (*RecordingService)(nil)
)

// newAudio returns the store new audio goes to, and its kind.
func (s *RecordingService) newAudio() (answerdesk.AudioStore, string) {
	kind := s.AudioKind
	if s.Audio == nil || kind == "" {
		kind = answerdesk.AudioStoreDB
	}
	return s.AudioStore(kind), kind
}

// AudioStore returns the store of the given kind: the database's own, or the configured
// one; nil when audio of that kind cannot be reached with this configuration.
func (s *RecordingService) AudioStore(kind string) answerdesk.AudioStore {
	if kind == answerdesk.AudioStoreDB {
		return NewAudioStore(s.db)
	}
	if s.Audio != nil && kind == s.AudioKind {
		return s.Audio
	}
	return nil
}

const recordingColumns = `r.id, r.account_id, a.number, r.call_id, r.call_sid, r.did_number, r.from_number,
	r.agent_username, r.started_at, r.has_audio, r.cdr_id, r.unique_call_id, r.agent_id, r.original_call_id,
	r.call_type, r.start_client, r.end_client, r.callerid, r.number_dialed, r.did, r.agent_name, r.skill_name,
	r.skill_id, r.who_hung_up, r.connection_sec, r.ivr_sec, r.wait_sec, r.talk_sec, r.hold_sec,
	r.transfer_sec, r.wrap_sec, r.conference_sec, r.conference_talk_sec, r.start_time,
	r.agent_answer_time, r.end_time, r.hang_up_time, r.call_created_at, r.is_orphaned`

func (s *RecordingService) scan(sc scanner) (*answerdesk.CallRecording, error) {
	var r answerdesk.CallRecording
	d := &r.CDR
	var started, startTime, callCreated int64
	var answer, end, hangUp *int64
	err := sc.Scan(&r.ID, &r.AccountID, &r.AccountNumber, &r.CallID, &r.CallSID, &r.DIDNumber, &r.From,
		&r.AgentUsername, &started, &r.HasAudio, &d.ID, &d.UniqueCallID, &d.AgentID, &d.OriginalCallID,
		&d.CallType, &d.StartClient, &d.EndClient, &d.CallerID, &d.NumberDialed, &d.DID, &d.AgentName, &d.SkillName,
		&d.SkillID, &d.WhoHungUp, &d.ConnectionSec, &d.IVRSec, &d.WaitSec, &d.TalkSec, &d.HoldSec,
		&d.TransferSec, &d.WrapSec, &d.ConferenceSec, &d.ConferenceTalkSec, &startTime,
		&answer, &end, &hangUp, &callCreated, &d.IsOrphaned)
	if err != nil {
		return nil, err
	}
	r.StartedAt, d.StartTime, d.CallCreatedAt = fromMS(started), fromMS(startTime), fromMS(callCreated)
	d.AgentAnswerTime, d.EndTime, d.HangUpTime = msPtr(answer), msPtr(end), msPtr(hangUp)
	if r.HasAudio && s.signer != nil {
		u := s.signer.URL(r.ID)
		r.Recording = &u
	}
	return &r, nil
}

func (s *RecordingService) query(ctx context.Context, query string, args ...any) ([]*answerdesk.CallRecording, error) {
	rows, err := s.db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list call recordings: %w", err)
	}
	defer rows.Close()
	list := []*answerdesk.CallRecording{}
	for rows.Next() {
		r, err := s.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan call recording: %w", err)
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list call recordings: %w", err)
	}
	return list, nil
}

// recordingWhere builds the WHERE clause of a recording list.
func recordingWhere(c *answerdesk.Caller, q answerdesk.RecordingQuery) (string, []any) {
	cond, args := visibility(c, "account_id")
	conds := []string{cond}
	if q.AccountID != 0 {
		conds, args = append(conds, "account_id = ?"), append(args, q.AccountID)
	}
	if q.SkillName != "" {
		conds, args = append(conds, "skill_name = ?"), append(args, q.SkillName)
	}
	if q.Since != 0 {
		conds, args = append(conds, "started_at >= ?"), append(args, q.Since)
	}
	if q.Until != 0 {
		conds, args = append(conds, "started_at < ?"), append(args, q.Until)
	}
	return strings.Join(conds, " AND "), args
}

const recordingFrom = ` FROM call_recordings r JOIN accounts a ON a.id = r.account_id`

// FindCallRecordings returns one page of the caller's recordings, newest first, or with
// Sample, up to PageSize recordings drawn uniformly at random from the filtered set.
func (s *RecordingService) FindCallRecordings(ctx context.Context, c *answerdesk.Caller, q answerdesk.RecordingQuery) ([]*answerdesk.CallRecording, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeRecordingsRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	where, args := recordingWhere(c, q)
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM call_recordings WHERE `+where, args...).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count call recordings: %w", err)
	}
	if q.Sample {
		// A sample has no pages: it is one draw from the whole filtered set.
		list, err := s.query(ctx, `SELECT `+recordingColumns+recordingFrom+` WHERE r.id IN (
			SELECT id FROM call_recordings WHERE `+where+` ORDER BY random() LIMIT `+strconv.Itoa(q.PageSize)+`)
			ORDER BY r.started_at DESC, r.id DESC`, args...)
		return list, answerdesk.PageMeta{Page: 1, PageSize: q.PageSize, Total: total}, err
	}
	meta := answerdesk.NewPageMeta(q.Page, q.PageSize, total)
	if q.Offset() >= total {
		return []*answerdesk.CallRecording{}, meta, nil
	}
	list, err := s.query(ctx, `SELECT `+recordingColumns+recordingFrom+` JOIN (
		SELECT id FROM call_recordings WHERE `+where+` ORDER BY started_at DESC, id DESC `+pageClause(q.Paging)+`
	) p ON p.id = r.id ORDER BY r.started_at DESC, r.id DESC`, append(args, q.Offset())...)
	return list, meta, err
}

func recordingNotFound(id string) error {
	return answerdesk.Errorf(answerdesk.ENOTFOUND, "no call recording %s", answerdesk.Quote(id))
}

// FindCallRecording returns one recording by id.
func (s *RecordingService) FindCallRecording(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.CallRecording, error) {
	if err := c.RequireScope(answerdesk.ScopeRecordingsRead); err != nil {
		return nil, err
	}
	n, ok := answerdesk.ParseID(id)
	if !ok {
		return nil, recordingNotFound(id)
	}
	vis, args := visibility(c, "r.account_id")
	r, err := s.scan(s.db.rd.QueryRowContext(ctx, `SELECT `+recordingColumns+recordingFrom+` WHERE r.id = ? AND `+vis, append([]any{n}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, recordingNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("load call recording %d: %w", n, err)
	}
	return r, nil
}

// FindMessageCallRecording returns the recording of the message's call. It reads the
// message and the recording, so it needs both messages:read and recordings:read.
func (s *RecordingService) FindMessageCallRecording(ctx context.Context, c *answerdesk.Caller, messageID string) (*answerdesk.CallRecording, error) {
	if err := c.RequireScope(answerdesk.ScopeRecordingsRead); err != nil {
		return nil, err
	}
	m, err := (&MessageService{db: s.db}).FindMessage(ctx, c, messageID)
	if err != nil {
		return nil, err
	}
	notFound := answerdesk.Errorf(answerdesk.ENOTFOUND, "message %s has no call recording", messageID)
	// The recording the phone system linked to the message, else the one of its call.
	var callID any
	if m.CallID != nil {
		callID = *m.CallID
	}
	r, err := s.scan(s.db.rd.QueryRowContext(ctx, `SELECT `+recordingColumns+recordingFrom+`
		WHERE r.account_id = ? AND (r.message_id = ? OR r.call_id = ?)
		ORDER BY CASE WHEN r.message_id = ? THEN 0 ELSE 1 END, r.id LIMIT 1`, m.AccountID, m.ID, callID, m.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, fmt.Errorf("load recording of message %d: %w", m.ID, err)
	}
	return r, nil
}

// RecordingAudio returns where the audio of a recording is, or ENOTFOUND once it is past
// retention (or was never recorded).
func (s *RecordingService) RecordingAudio(ctx context.Context, recordingID int64) (*answerdesk.AudioInfo, error) {
	a := answerdesk.AudioInfo{RecordingID: recordingID}
	var started int64
	var sha *string
	err := s.db.rd.QueryRowContext(ctx, `SELECT audio_store, audio_key, audio_type, audio_size, audio_sha256, started_at
		FROM call_recordings WHERE id = ? AND has_audio = 1 AND audio_key IS NOT NULL`, recordingID).
		Scan(&a.Store, &a.Key, &a.ContentType, &a.Size, &sha, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "recording %d has no audio", recordingID)
	}
	if err != nil {
		return nil, fmt.Errorf("load audio of recording %d: %w", recordingID, err)
	}
	if sha != nil {
		a.SHA256 = *sha
	}
	a.ModTime = time.UnixMilli(started).UTC()
	return &a, nil
}

// PurgeRecordings deletes audio of recordings started before audioBefore and whole
// recordings started before rowsBefore; audio counts the recordings that lost their audio
// and stay. The rows go first: audio in another store is
// deleted once no row names it, so a crash in between leaves an object no row names,
// which SweepAudio removes, and never a row naming an object that is gone.
func (s *RecordingService) PurgeRecordings(ctx context.Context, audioBefore, rowsBefore time.Time) (audio, rows int, err error) {
	type object struct{ store, key string }
	var gone []object
	// READ COMMITTED on PostgreSQL: each statement is self-contained and safe to repeat (a
	// second replica purging at once deletes nothing more), and every row it changes bumps its
	// account's data version, which message writes bump all the time; under SERIALIZABLE the
	// purge lost to them until its retries ran out, and old audio stayed.
	err = s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		gone = gone[:0]
		// Every audio that goes: past its own retention, or with its row.
		q, err := tx.QueryContext(ctx, `SELECT audio_store, audio_key FROM call_recordings
			WHERE audio_key IS NOT NULL AND started_at < ?`, max(audioBefore.UnixMilli(), rowsBefore.UnixMilli()))
		if err != nil {
			return fmt.Errorf("find old audio: %w", err)
		}
		for q.Next() {
			var o object
			if err := q.Scan(&o.store, &o.key); err != nil {
				q.Close()
				return fmt.Errorf("find old audio: %w", err)
			}
			gone = append(gone, o)
		}
		q.Close()
		if err := q.Err(); err != nil {
			return fmt.Errorf("find old audio: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM call_recordings WHERE started_at < ?`, rowsBefore.UnixMilli())
		if err != nil {
			return fmt.Errorf("delete old recordings: %w", err)
		}
		n, _ := res.RowsAffected()
		rows = int(n)
		res, err = tx.ExecContext(ctx, `UPDATE call_recordings SET has_audio = 0, audio_store = NULL, audio_key = NULL, audio_type = NULL,
			audio_size = NULL, audio_sha256 = NULL WHERE started_at < ? AND audio_key IS NOT NULL`, audioBefore.UnixMilli())
		if err != nil {
			return fmt.Errorf("mark audio removed: %w", err)
		}
		n, _ = res.RowsAffected()
		audio = int(n)
		// The database's own objects go in the same transaction.
		for _, o := range gone {
			if o.store == answerdesk.AudioStoreDB {
				if _, err := tx.ExecContext(ctx, `DELETE FROM audio_objects WHERE key = ?`, o.key); err != nil {
					return fmt.Errorf("delete audio %s: %w", o.key, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var errs []error
	for _, o := range gone { // the rows that named them are gone: these are orphans now
		if o.store == answerdesk.AudioStoreDB {
			continue
		}
		if st := s.AudioStore(o.store); st != nil {
			if err := st.Delete(ctx, o.key); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return audio, rows, errors.Join(errs...)
}

// AudioSweepGrace is how old an object no recording names must be before SweepAudio
// deletes it: an upload in progress is stored before its row is written.
const AudioSweepGrace = time.Hour

// SweepAudio deletes the objects of the configured store (and the database's own) that no
// recording names and that are older than AudioSweepGrace: those of an upload cut off, a
// crash between storing and recording, or a purge whose deletion failed. It returns how
// many it deleted.
func (s *RecordingService) SweepAudio(ctx context.Context) (int, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	stores := []string{answerdesk.AudioStoreDB}
	if _, kind := s.newAudio(); kind != answerdesk.AudioStoreDB {
		stores = append(stores, kind)
	}
	deleted := 0
	for _, kind := range stores {
		st := s.AudioStore(kind)
		err := st.List(ctx, func(o answerdesk.AudioObjectInfo) error {
			if now().Sub(o.ModTime) < AudioSweepGrace {
				return nil
			}
			var named bool
			if err := s.db.rd.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM call_recordings WHERE audio_store = ? AND audio_key = ?)`,
				kind, o.Key).Scan(&named); err != nil {
				return fmt.Errorf("sweep audio %s: %w", o.Key, err)
			}
			if named {
				return nil
			}
			if err := st.Delete(ctx, o.Key); err != nil {
				return err
			}
			deleted++
			return nil
		})
		if err != nil {
			return deleted, fmt.Errorf("sweep the %s audio store: %w", kind, err)
		}
	}
	return deleted, nil
}
