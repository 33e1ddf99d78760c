package answerdesk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// ScopeRecordingsWrite lets a credential hand over call recordings and nothing else. It is
// not among AllScopes (what OAuth grants and a full token holds): an API token is narrowed
// to it for the phone system (answerdesk token create --scope recordings:write), so that
// the credential it keeps cannot read a single message.
const ScopeRecordingsWrite = "recordings:write"

// TokenScopes are the scopes an API token may be narrowed to at creation.
var TokenScopes = []string{ScopeRecordingsWrite}

// DefaultMaxAudioBytes is the largest audio file an ingest takes (serve --max-audio-bytes).
const DefaultMaxAudioBytes = 256 << 20

// MaxCallSIDLength bounds a call_sid (Twilio's are 34 characters).
const MaxCallSIDLength = 128

// AudioTypes are the audio formats a recording may be handed over in, by the content type
// of the upload's audio part.
var AudioTypes = []string{"audio/wav", "audio/mpeg", "audio/ogg", "audio/webm", "audio/mp4"}

// audioTypeAliases are other names the same formats go by.
var audioTypeAliases = map[string]string{
	"audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav",
	"audio/mp3": "audio/mpeg", "audio/x-m4a": "audio/mp4", "audio/m4a": "audio/mp4",
}

// AudioType returns the canonical name of a content type of AudioTypes (parameters and case
// ignored: "audio/WAV; codecs=1" is audio/wav), and whether it is one.
func AudioType(contentType string) (string, bool) {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	if a, ok := audioTypeAliases[t]; ok {
		t = a
	}
	for _, a := range AudioTypes {
		if t == a {
			return t, true
		}
	}
	return "", false
}

// SniffLength is how many leading bytes SniffAudio needs.
const SniffLength = 12

// SniffAudio reports whether head, the first bytes of a file (SniffLength, or all of a
// shorter file), is of the canonical audio type t: the magic numbers of RIFF WAVE, MPEG
// audio (an ID3 tag or a frame sync), Ogg, WebM (EBML) and MP4 (an ftyp box).
func SniffAudio(t string, head []byte) bool {
	switch t {
	case "audio/wav":
		return len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WAVE"))
	case "audio/mpeg":
		return bytes.HasPrefix(head, []byte("ID3")) || (len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0)
	case "audio/ogg":
		return bytes.HasPrefix(head, []byte("OggS"))
	case "audio/webm":
		return bytes.HasPrefix(head, []byte{0x1A, 0x45, 0xDF, 0xA3})
	case "audio/mp4":
		return len(head) >= 8 && bytes.Equal(head[4:8], []byte("ftyp"))
	}
	return false
}

// RecordingIngestRequest is the metadata part of POST /api/v2/call-recordings, as sent.
type RecordingIngestRequest struct {
	AccountNumber Opt[string]      `json:"account_number" jsonschema:"Required. Number of the account the call belongs to, e.g. 1001."`
	CallSID       Opt[string]      `json:"call_sid" jsonschema:"Required. The phone system's id of the call (1 to 128 characters); the same account and call_sid again is the recording already stored."`
	StartedAt     Opt[string]      `json:"started_at" jsonschema:"Required. When the call started, ISO 8601 with a time zone, e.g. 2026-11-22T09:15:02Z."`
	CallID        Opt[json.Number] `json:"call_id" jsonschema:"Id of the call in the phone system (an integer >= 0); messages taken on the call with the same call_id find the recording."`
	DIDNumber     Opt[string]      `json:"did_number" jsonschema:"The number the caller dialled."`
	From          Opt[string]      `json:"from" jsonschema:"The caller's number."`
	AgentUsername Opt[string]      `json:"agent_username" jsonschema:"Username of the agent who took the call."`
	MessageID     Opt[json.Number] `json:"message_id" jsonschema:"Id of the message the call produced (of the same account): GET /api/v2/messages/{id}/call-recording then finds this recording."`
	CDR           json.RawMessage  `json:"cdr" jsonschema:"The call detail record: the CDR fields of a call recording (see the recording object); each is optional."`
}

// RecordingIngest is a validated RecordingIngestRequest: the recording to store (its
// AccountID still to be resolved from AccountNumber) and the message it links to.
type RecordingIngest struct {
	AccountNumber string
	Recording     CallRecording
	MessageID     int64 // 0: none
}

// ParseRecordingIngest reads and checks the metadata of an ingest.
func ParseRecordingIngest(body []byte) (*RecordingIngest, error) {
	var in RecordingIngestRequest
	if err := decodeBody(body, &in, errNotObject); err != nil {
		return nil, err
	}
	var v ValidationErrors
	out := &RecordingIngest{}
	r := &out.Recording
	required := func(field string, o Opt[string], max int) string {
		switch {
		case o.Wrong != "":
			v.Add(field, "must be a string")
		case !o.Set || strings.TrimSpace(o.Value) == "":
			v.Add(field, "is required")
		case len(o.Value) > max:
			v.Add(field, fmt.Sprintf("must be at most %d characters", max))
		}
		return strings.TrimSpace(o.Value)
	}
	optional := func(field string, o Opt[string]) string {
		if o.Wrong != "" {
			v.Add(field, "must be a string")
		} else if len(o.Value) > MaxStringLength {
			v.Add(field, fmt.Sprintf("must be at most %d characters", MaxStringLength))
		}
		return o.Value
	}
	integer := func(field string, o Opt[json.Number]) int64 {
		if !o.Has() {
			return 0
		}
		n, err := o.Value.Int64()
		if o.Wrong != "" || err != nil || n < 0 {
			v.Add(field, "must be an integer >= 0")
		}
		return n
	}
	out.AccountNumber = required("account_number", in.AccountNumber, MaxAccountNumberLength)
	r.CallSID = required("call_sid", in.CallSID, MaxCallSIDLength)
	if s := required("started_at", in.StartedAt, 64); s != "" && !v.Has("started_at") {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			v.Add("started_at", "must be an ISO 8601 time with a time zone, e.g. 2026-11-22T09:15:02Z")
		}
		r.StartedAt = NewTime(t)
	}
	r.CallID = integer("call_id", in.CallID)
	out.MessageID = integer("message_id", in.MessageID)
	r.DIDNumber = optional("did_number", in.DIDNumber)
	r.From = optional("from", in.From)
	if u := optional("agent_username", in.AgentUsername); in.AgentUsername.Set {
		r.AgentUsername = &u
	}
	d := &r.CDR
	if len(in.CDR) > 0 && string(in.CDR) != "null" {
		wrong, ok := decodeRequest(in.CDR, d)
		if !ok {
			v.Add("cdr", "must be an object")
		}
		for _, w := range wrong {
			v.Add("cdr."+w.Field, "has the wrong type ("+w.Message+")")
		}
		for name, s := range map[string]*string{"call_type": &d.CallType, "callerid": &d.CallerID, "number_dialed": &d.NumberDialed, "did": &d.DID} {
			if len(*s) > MaxStringLength {
				v.Add("cdr."+name, fmt.Sprintf("must be at most %d characters", MaxStringLength))
			}
		}
		for name, s := range map[string]*string{"start_client": d.StartClient, "end_client": d.EndClient, "agent_name": d.AgentName,
			"skill_name": d.SkillName, "skill_id": d.SkillID, "who_hung_up": d.WhoHungUp} {
			if s != nil && len(*s) > MaxStringLength {
				v.Add("cdr."+name, fmt.Sprintf("must be at most %d characters", MaxStringLength))
			}
		}
		for name, n := range map[string]int64{"connection_sec": d.ConnectionSec, "ivr_sec": d.IVRSec, "wait_sec": d.WaitSec,
			"talk_sec": d.TalkSec, "hold_sec": d.HoldSec, "transfer_sec": d.TransferSec, "wrap_sec": d.WrapSec,
			"conference_sec": d.ConferenceSec, "conference_talk_sec": d.ConferenceTalkSec, "id": d.ID, "unique_call_id": d.UniqueCallID} {
			if n < 0 {
				v.Add("cdr."+name, "must be an integer >= 0")
			}
		}
	}
	// What a CDR always has, from the recording when the phone system leaves it out.
	if d.CallType == "" {
		d.CallType = "InboundCall"
	}
	if d.CallerID == "" {
		d.CallerID = r.From
	}
	if d.DID == "" {
		d.DID = r.DIDNumber
	}
	if d.NumberDialed == "" {
		d.NumberDialed = r.DIDNumber
	}
	if d.StartTime.IsZero() {
		d.StartTime = r.StartedAt
	}
	if d.CallCreatedAt.IsZero() {
		d.CallCreatedAt = r.StartedAt
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := RefuseNUL(body); err != nil {
		return nil, err
	}
	return out, nil
}

// AudioUpload is the audio part of an ingest: its declared content type and its bytes,
// read as they arrive.
type AudioUpload struct {
	ContentType string
	Body        io.Reader
}

// AudioInfo is where a recording's audio is and what it is.
type AudioInfo struct {
	RecordingID int64
	Store       string // the kind of store that holds it: db, file or s3
	Key         string
	ContentType string
	Size        int64
	SHA256      string
	ModTime     time.Time
}

// RecordingIngestService takes recordings from the phone system.
type RecordingIngestService interface {
	// IngestCallRecording stores the recording in, with its audio when audio is not nil,
	// and returns it as the GET operations show it. The same account and call_sid again
	// returns the recording stored first and stores nothing.
	IngestCallRecording(ctx context.Context, c *Caller, in *RecordingIngest, audio *AudioUpload) (*CallRecording, error)
}
