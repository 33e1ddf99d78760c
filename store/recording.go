package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// RecordingService implements answerdesk.CallRecordingService and RetentionService.
type RecordingService struct {
	db     *DB
	signer *answerdesk.AudioSigner
}

// NewRecordingService returns the recording service over db; signer makes the audio URLs.
func NewRecordingService(db *DB, signer *answerdesk.AudioSigner) *RecordingService {
	return &RecordingService{db: db, signer: signer}
}

var (
	_ answerdesk.CallRecordingService = (*RecordingService)(nil)
	_ answerdesk.RetentionService     = (*RecordingService)(nil)
)

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
			SELECT id FROM call_recordings WHERE `+where+` ORDER BY random() LIMIT ?)
			ORDER BY r.started_at DESC, r.id DESC`, append(args, q.PageSize)...)
		return list, answerdesk.PageMeta{Page: 1, PageSize: q.PageSize, Total: total}, err
	}
	meta := answerdesk.NewPageMeta(q.Page, q.PageSize, total)
	if q.Offset() >= total {
		return []*answerdesk.CallRecording{}, meta, nil
	}
	list, err := s.query(ctx, `SELECT `+recordingColumns+recordingFrom+` JOIN (
		SELECT id FROM call_recordings WHERE `+where+` ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?
	) p ON p.id = r.id ORDER BY r.started_at DESC, r.id DESC`, append(args, q.PageSize, q.Offset())...)
	return list, meta, err
}

func recordingNotFound(id string) error {
	return answerdesk.Errorf(answerdesk.ENOTFOUND, "no call recording %q", id)
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
	if m.CallID == nil {
		return nil, notFound
	}
	r, err := s.scan(s.db.rd.QueryRowContext(ctx, `SELECT `+recordingColumns+recordingFrom+`
		WHERE r.call_id = ? AND r.account_id = ? ORDER BY r.id LIMIT 1`, *m.CallID, m.AccountID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, fmt.Errorf("load recording of message %d: %w", m.ID, err)
	}
	return r, nil
}

// RecordingAudio returns the audio of a recording, or ENOTFOUND once it is past retention.
func (s *RecordingService) RecordingAudio(ctx context.Context, recordingID int64) (*answerdesk.Audio, error) {
	a := answerdesk.Audio{RecordingID: recordingID}
	var created int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT content_type, data, created_at FROM recording_audio WHERE recording_id = ?`, recordingID).
		Scan(&a.ContentType, &a.Data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "recording %d has no audio", recordingID)
	}
	if err != nil {
		return nil, fmt.Errorf("load audio of recording %d: %w", recordingID, err)
	}
	a.ModTime = time.UnixMilli(created).UTC()
	return &a, nil
}

// PurgeRecordings deletes audio of recordings started before audioBefore and whole
// recordings started before rowsBefore.
func (s *RecordingService) PurgeRecordings(ctx context.Context, audioBefore, rowsBefore time.Time) (audio, rows int, err error) {
	// READ COMMITTED on PostgreSQL: each statement is self-contained and safe to repeat (a
	// second replica purging at once deletes nothing more), and every row it changes bumps its
	// account's data version, which message writes bump all the time; under SERIALIZABLE the
	// purge lost to them until its retries ran out, and old audio stayed.
	err = s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM call_recordings WHERE started_at < ?`, rowsBefore.UnixMilli())
		if err != nil {
			return fmt.Errorf("delete old recordings: %w", err)
		}
		n, _ := res.RowsAffected()
		rows = int(n)
		res, err = tx.ExecContext(ctx, `DELETE FROM recording_audio WHERE recording_id IN (
			SELECT id FROM call_recordings WHERE started_at < ? AND has_audio = 1)`, audioBefore.UnixMilli())
		if err != nil {
			return fmt.Errorf("delete old audio: %w", err)
		}
		n, _ = res.RowsAffected()
		audio = int(n)
		_, err = tx.ExecContext(ctx, `UPDATE call_recordings SET has_audio = 0 WHERE started_at < ? AND has_audio = 1`, audioBefore.UnixMilli())
		if err != nil {
			return fmt.Errorf("mark audio removed: %w", err)
		}
		return nil
	})
	return audio, rows, err
}
