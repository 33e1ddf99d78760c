package rest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listCallRecordings(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	rq, err := checked(q, answerdesk.ReadRecordingFilter(q).Validate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if rq.Sample {
		// A sample is a new random draw each time: nothing to cache or revalidate.
		list, meta, err := s.Recordings.FindCallRecordings(r.Context(), caller(r), rq)
		s.writeList(w, r, list, meta, err)
		return
	}
	s.serveRead(w, r, readSpec{window: signedURLWindow, build: func() ([]byte, string, error) {
		list, meta, err := s.Recordings.FindCallRecordings(r.Context(), caller(r), rq)
		return s.encodeList(r, list, meta, err)
	}})
}

func (s *Server) getCallRecording(w http.ResponseWriter, r *http.Request) {
	s.serveRead(w, r, readSpec{window: signedURLWindow, build: func() ([]byte, string, error) {
		return encodeOne(s.Recordings.FindCallRecording(r.Context(), caller(r), chi.URLParam(r, "id")))
	}})
}

func (s *Server) getMessageCallRecording(w http.ResponseWriter, r *http.Request) {
	s.serveRead(w, r, readSpec{window: signedURLWindow,
		build: func() ([]byte, string, error) {
			return encodeOne(s.Recordings.FindMessageCallRecording(r.Context(), caller(r), chi.URLParam(r, "id")))
		}})
}

// maxIngestBytes bounds the body of an ingest: the largest audio and room for the
// metadata and the multipart framing.
func (s *Server) maxIngestBytes() int64 {
	return cmp.Or(s.MaxAudioBytes, answerdesk.DefaultMaxAudioBytes) + maxIngestMetadata + 64<<10
}

// maxIngestMetadata bounds the metadata part of an ingest.
const maxIngestMetadata = 64 << 10

// ingestCallRecording takes a recording from the phone system: a multipart/form-data body
// whose first part is the metadata (JSON) and whose optional second part is the audio,
// streamed into the audio store as it arrives.
func (s *Server) ingestCallRecording(w http.ResponseWriter, r *http.Request) {
	mr, err := r.MultipartReader()
	if err != nil {
		s.Error(w, r, &answerdesk.Error{Code: answerdesk.EPROCESSING, Message: "the body must be multipart/form-data",
			Hint: `Send a metadata part (JSON) and, optionally, an audio part: curl -F 'metadata={...};type=application/json' -F 'audio=@call.wav;type=audio/wav'.`})
		return
	}
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "metadata" {
		s.Error(w, r, s.ingestReadErr(err, answerdesk.FieldErr("metadata", "is required, as the first part of the body")))
		return
	}
	meta, err := io.ReadAll(io.LimitReader(part, maxIngestMetadata+1))
	if err != nil {
		s.Error(w, r, s.ingestReadErr(err, nil))
		return
	}
	if len(meta) > maxIngestMetadata {
		s.Error(w, r, &answerdesk.Error{Code: answerdesk.ETOOLARGE, Message: fmt.Sprintf("the metadata part is over %d bytes", maxIngestMetadata)})
		return
	}
	in, err := answerdesk.ParseRecordingIngest(meta)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	var audio *answerdesk.AudioUpload
	switch part, err := mr.NextPart(); {
	case errors.Is(err, io.EOF):
	case err != nil:
		s.Error(w, r, s.ingestReadErr(err, nil))
		return
	case part.FormName() != "audio":
		s.Error(w, r, answerdesk.FieldErr(part.FormName(), "is not a part of this request: send metadata, then audio"))
		return
	default:
		audio = &answerdesk.AudioUpload{ContentType: part.Header.Get("Content-Type"), Body: part}
	}
	rec, err := s.Ingest.IngestCallRecording(r.Context(), caller(r), in, audio)
	if err != nil {
		s.Error(w, r, s.ingestReadErr(err, err))
		return
	}
	s.writeOne(w, r, rec, nil)
}

// ingestReadErr is the error to answer for err, met while reading an ingest's body: a body
// over the limit is a 413 and one cut off or malformed a 400; other errors give other.
func (s *Server) ingestReadErr(err, other error) error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &answerdesk.Error{Code: answerdesk.ETOOLARGE, Message: fmt.Sprintf("the request body is over %d bytes", tooBig.Limit),
			Hint: "Send a shorter recording, or ask the operator to raise serve --max-audio-bytes."}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, multipart.ErrMessageTooLarge):
		return &answerdesk.Error{Code: answerdesk.EPROCESSING, Message: "the multipart body ended before its last part did"}
	case other != nil:
		return other
	}
	return &answerdesk.Error{Code: answerdesk.EPROCESSING, Message: "the multipart body could not be read: " + err.Error()}
}

// recordingAudio serves a recording's audio to whoever holds an unexpired signed link,
// streamed from its store with Range support (players seek) through http.ServeContent, or,
// with AudioRedirect and a store that can presign, as a redirect to the store itself with a
// link that expires with this one.
func (s *Server) recordingAudio(w http.ResponseWriter, r *http.Request) {
	id, ok := answerdesk.ParseID(chi.URLParam(r, "id"))
	if !ok {
		s.Error(w, r, answerdesk.Errorf(answerdesk.ENOTFOUND, "no such recording"))
		return
	}
	q := r.URL.Query()
	if err := s.Signer.Verify(id, q.Get("expires"), q.Get("signature")); err != nil {
		s.Error(w, r, err)
		return
	}
	a, err := s.Recordings.RecordingAudio(r.Context(), id)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	st := s.AudioStores(a.Store)
	if st == nil {
		s.Error(w, r, fmt.Errorf("the audio of recording %d is in a %s store, which this server is not configured with (serve --audio-store)", id, a.Store))
		return
	}
	if s.AudioRedirect {
		expires, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
		ttl := time.Unix(expires, 0).Sub(s.Now())
		link, err := st.PresignGet(r.Context(), a.Key, a.ContentType, ttl)
		if err == nil {
			w.Header().Set("Cache-Control", "private, no-store")
			http.Redirect(w, r, link, http.StatusFound)
			return
		}
		if !errors.Is(err, answerdesk.ErrPresignUnsupported) {
			s.Error(w, r, fmt.Errorf("presign the audio of recording %d: %w", id, err))
			return
		}
	}
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Cache-Control", "private, max-age=900")
	if a.SHA256 != "" {
		w.Header().Set("ETag", `"`+a.SHA256+`"`)
	}
	http.ServeContent(w, r, "recording-"+strconv.FormatInt(id, 10)+audioExtension(a.ContentType), a.ModTime,
		&storeSeeker{ctx: r.Context(), store: st, key: a.Key, size: a.Size})
}

// audioExtension is the file extension of an audio type.
func audioExtension(t string) string {
	switch t {
	case "audio/mpeg":
		return ".mp3"
	case "audio/ogg":
		return ".ogg"
	case "audio/webm":
		return ".webm"
	case "audio/mp4":
		return ".m4a"
	}
	return ".wav"
}

// storeSeeker is an object of an audio store as the io.ReadSeeker http.ServeContent reads:
// a seek only moves the position, and a read streams from the store from there, so a Range
// request fetches only what it serves (plus what one read of the store returns at once).
type storeSeeker struct {
	ctx       context.Context
	store     answerdesk.AudioStore
	key       string
	size, pos int64
	rc        io.ReadCloser
}

func (s *storeSeeker) Seek(offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = s.pos + offset
	case io.SeekEnd:
		pos = s.size + offset
	}
	if pos < 0 {
		return 0, errors.New("seek before the start of the audio")
	}
	if pos != s.pos && s.rc != nil {
		s.rc.Close()
		s.rc = nil
	}
	s.pos = pos
	return pos, nil
}

func (s *storeSeeker) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		s.close()
		return 0, io.EOF
	}
	if s.rc == nil {
		rc, err := s.store.Open(s.ctx, s.key, s.pos, -1)
		if err != nil {
			return 0, err
		}
		s.rc = rc
	}
	n, err := s.rc.Read(p)
	s.pos += int64(n)
	if err != nil {
		s.close()
	}
	return n, err
}

func (s *storeSeeker) close() {
	if s.rc != nil {
		s.rc.Close()
		s.rc = nil
	}
}
