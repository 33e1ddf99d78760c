package answerdesk

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// CallRecording is a recorded call with its call detail record (the Call recordings docs page).
type CallRecording struct {
	ID            int64   `json:"id" jsonschema:"Id of the call recording."`
	CallID        int64   `json:"call_id" jsonschema:"Id of the recorded call; messages taken on this call have the same call_id."`
	CallSID       string  `json:"call_sid" jsonschema:"The telephony provider's id of the call."`
	AccountNumber string  `json:"account_number" jsonschema:"Number of the account the call belongs to, e.g. 1001."`
	DIDNumber     string  `json:"did_number" jsonschema:"The number the caller dialled."`
	From          string  `json:"from" jsonschema:"The caller's number."`
	AgentUsername *string `json:"agent_username" jsonschema:"Username of the agent who took the call."`
	StartedAt     Time    `json:"started_at" jsonschema:"When the call started; the date filters and the retention use it."`
	// Recording is a signed, expiring URL of the audio, or nil once the audio is past retention.
	Recording *string `json:"recording" jsonschema:"Signed URL of the audio (see Signed audio URLs below), valid for 15 minutes from this response and needing no API token; fetch the recording again for a fresh link. null when the audio is gone (past retention, 31 days) or was never recorded."`
	CDR       CDR     `json:"cdr" jsonschema:"The call detail record: who took the call, where it went and how long each stage lasted."`

	// AccountID and HasAudio are for the services, not the API.
	AccountID int64 `json:"-"`
	HasAudio  bool  `json:"-"`
}

// CDR is a call detail record.
type CDR struct {
	ID                int64   `json:"id" jsonschema:"Id of the call detail record."`
	UniqueCallID      int64   `json:"unique_call_id" jsonschema:"Unique id of the call in the telephony system."`
	AgentID           *int64  `json:"agent_id" jsonschema:"Id of the agent who answered; null when no agent did."`
	OriginalCallID    *int64  `json:"original_call_id" jsonschema:"For a transferred call, the id of the call it was transferred from; otherwise null."`
	CallType          string  `json:"call_type" jsonschema:"Kind of call: InboundCall for an ordinary incoming call to one of your numbers."`
	StartClient       *string `json:"start_client" jsonschema:"Where the call started, e.g. pstn (the phone network)."`
	EndClient         *string `json:"end_client" jsonschema:"Where the call ended, e.g. ai_assistant or agent."`
	CallerID          string  `json:"callerid" jsonschema:"The caller's number (caller ID)."`
	NumberDialed      string  `json:"number_dialed" jsonschema:"The number the caller dialed."`
	DID               string  `json:"did" jsonschema:"The phone number (DID) the call came in on."`
	AgentName         *string `json:"agent_name" jsonschema:"Name of the agent who answered, e.g. AI Receptionist."`
	SkillName         *string `json:"skill_name" jsonschema:"Name of the skill (queue) that handled the call; the list's skill_name filter matches it."`
	SkillID           *string `json:"skill_id" jsonschema:"Id of the skill."`
	WhoHungUp         *string `json:"who_hung_up" jsonschema:"Which party ended the call, e.g. caller or agent."`
	ConnectionSec     int64   `json:"connection_sec" jsonschema:"Seconds the call lasted, from its start to its end."`
	IVRSec            int64   `json:"ivr_sec" jsonschema:"Seconds in the automated phone menu (IVR) before the queue."`
	WaitSec           int64   `json:"wait_sec" jsonschema:"Seconds the caller waited in the queue before an agent answered."`
	TalkSec           int64   `json:"talk_sec" jsonschema:"Seconds the caller and the agent talked."`
	HoldSec           int64   `json:"hold_sec" jsonschema:"Seconds the caller was on hold."`
	TransferSec       int64   `json:"transfer_sec" jsonschema:"Seconds spent transferring the call."`
	WrapSec           int64   `json:"wrap_sec" jsonschema:"Seconds of the agent's wrap-up after the call (after-call work)."`
	ConferenceSec     int64   `json:"conference_sec" jsonschema:"Seconds in a conference (three-way) call."`
	ConferenceTalkSec int64   `json:"conference_talk_sec" jsonschema:"Seconds talking in a conference call."`
	StartTime         Time    `json:"start_time" jsonschema:"When the call started."`
	AgentAnswerTime   *Time   `json:"agent_answer_time" jsonschema:"When an agent answered; null when no agent did."`
	EndTime           *Time   `json:"end_time" jsonschema:"When the call ended."`
	HangUpTime        *Time   `json:"hang_up_time" jsonschema:"When the call was hung up."`
	CallCreatedAt     Time    `json:"call_created_at" jsonschema:"When the telephony system created the call's record."`
	IsOrphaned        bool    `json:"is_orphaned" jsonschema:"true when the call lost its agent or queue before it was handled."`
}

// RecordingFilter is a request for one page of call recordings, as the caller gave it.
type RecordingFilter struct {
	AccountID string
	SkillName string
	FromDate  string
	ToDate    string
	Sample    bool
	Page      *int
	PageSize  *int
}

// ReadRecordingFilter reads the parameters of a call recording list
// (GET /api/v2/call-recordings, list_call_recordings).
func ReadRecordingFilter(p Params) RecordingFilter {
	f := RecordingFilter{
		AccountID: p.ID("account_id"), SkillName: p.Text("skill_name"),
		FromDate: p.Text("from_date"), ToDate: p.Text("to_date"),
		Page: p.Int("page"), PageSize: p.Int("page_size"),
	}
	if b := p.Bool("sample"); b != nil {
		f.Sample = *b
	}
	return f
}

// Call recording list limits.
const (
	DefaultRecordingPageSize = 50
	MaxRecordingPageSize     = 200
)

// RecordingQuery is a validated RecordingFilter.
type RecordingQuery struct {
	AccountID int64 // 0 when not filtered
	SkillName string
	Since     int64 // unix ms inclusive, 0 unbounded
	Until     int64 // unix ms exclusive, 0 unbounded
	Sample    bool
	Paging
}

// Validate checks every filter value and returns the query it describes.
func (f RecordingFilter) Validate() (RecordingQuery, error) {
	var v ValidationErrors
	q := RecordingQuery{SkillName: f.SkillName, Sample: f.Sample}
	if f.AccountID != "" {
		id, ok := ParseID(f.AccountID)
		if !ok {
			v.Add("account_id", "must be a positive integer account id")
		} else {
			q.AccountID = id
		}
	}
	if len(f.SkillName) > MaxStringLength {
		v.Add("skill_name", fmt.Sprintf("must be at most %d characters", MaxStringLength))
	}
	q.Since, q.Until = DateRange(&v, "from_date", f.FromDate, "to_date", f.ToDate)
	q.Paging = CheckPaging(&v, f.Page, f.PageSize, DefaultRecordingPageSize, MaxRecordingPageSize)
	return q, v.Err()
}

// Audio is a small audio file held in memory: the demo data's, stored as they are made.
type Audio struct {
	RecordingID int64
	ContentType string
	Data        []byte
	ModTime     time.Time
}

// CallRecordingService reads call recordings. Every method but Audio is scoped to the caller.
type CallRecordingService interface {
	// FindCallRecordings returns one page (or, with Sample, a random sample) of recordings.
	FindCallRecordings(ctx context.Context, c *Caller, q RecordingQuery) ([]*CallRecording, PageMeta, error)
	// FindCallRecording returns one recording by id.
	FindCallRecording(ctx context.Context, c *Caller, id string) (*CallRecording, error)
	// FindMessageCallRecording returns the recording of the message's call.
	FindMessageCallRecording(ctx context.Context, c *Caller, messageIDOrUUID string) (*CallRecording, error)
	// RecordingAudio returns where the audio of a recording is. The caller is authorized by
	// a signed URL (AudioSigner), so it takes none.
	RecordingAudio(ctx context.Context, recordingID int64) (*AudioInfo, error)
}

// RetentionService removes recording data past its retention.
type RetentionService interface {
	// PurgeRecordings deletes audio of recordings started before audioBefore and whole
	// recordings started before rowsBefore, returning how many of each it removed.
	PurgeRecordings(ctx context.Context, audioBefore, rowsBefore time.Time) (audio, rows int, err error)
	// SweepAudio deletes stored audio that no recording names (left by an upload cut off
	// or a crash), returning how many objects it deleted.
	SweepAudio(ctx context.Context) (int, error)
}

// AudioSigner signs and checks the expiring audio URLs of recordings, so the audio can be
// fetched by a player that holds no API token.
type AudioSigner struct {
	Key     []byte
	BaseURL string // e.g. https://api.example.com, no trailing slash
	TTL     time.Duration
	Now     func() time.Time
}

func (s *AudioSigner) mac(id int64, expires int64) string {
	h := hmac.New(sha256.New, s.Key)
	fmt.Fprintf(h, "recording-audio:%d:%d", id, expires)
	return hex.EncodeToString(h.Sum(nil))
}

// URL returns the signed audio URL of recording id, valid for TTL.
func (s *AudioSigner) URL(id int64) string {
	exp := s.Now().Add(s.TTL).Unix()
	q := url.Values{"expires": {strconv.FormatInt(exp, 10)}, "signature": {s.mac(id, exp)}}
	return fmt.Sprintf("%s/recordings/%d/audio?%s", s.BaseURL, id, q.Encode())
}

// Verify checks the expires and signature query values of an audio URL for recording id.
func (s *AudioSigner) Verify(id int64, expires, signature string) error {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return &Error{Code: EFORBIDDEN, Message: "the audio link is malformed"}
	}
	want := s.mac(id, exp)
	if !hmac.Equal([]byte(want), []byte(signature)) {
		return &Error{Code: EFORBIDDEN, Message: "the audio link signature is not valid"}
	}
	if s.Now().Unix() > exp {
		return &Error{Code: EFORBIDDEN, Message: "the audio link has expired", Hint: "fetch the recording again for a fresh link"}
	}
	return nil
}
