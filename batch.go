package answerdesk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Public API batch limits (the Public API docs page).
const (
	MaxBatchRequests = 10
	BatchJobTTL      = 24 * time.Hour
)

// Bounds of what one client (a ClientKey: an IPv4 address, an IPv6 /64) may hold in
// asynchronous batch jobs. Jobs are kept 24 hours, and a job's stored responses are about
// a hundred times its request: without bounds one client at the allowed request rate
// stored over a gigabyte a day.
const (
	// MaxBatchJobsPerClient is how many unexpired jobs a client may hold at once.
	MaxBatchJobsPerClient = 20
	// MaxBatchJobBytesPerClient is how many bytes (requests and responses) a client's
	// unexpired jobs may hold; a new job is refused once they hold this much.
	MaxBatchJobBytesPerClient = 4 << 20
	// MaxBatchJobResponseBytes bounds the stored responses of one job: the largest
	// operation bodies are replaced by a payload_too_large error until the rest fit.
	MaxBatchJobResponseBytes = 256 << 10
)

// BatchQuotaError refuses a new job of a client that holds as many jobs or bytes as it
// may; the public API answers it 429 rate_limited with Retry-After.
type BatchQuotaError struct {
	Message    string
	RetryAfter time.Duration // until the client's oldest job expires
}

func (e *BatchQuotaError) Error() string { return e.Message }

// CheckBatchJobQuota decides whether a client holding held unexpired jobs of heldBytes,
// the oldest expiring at oldestExpiry, may create one more.
func CheckBatchJobQuota(held int, heldBytes int64, oldestExpiry, now time.Time) error {
	var why string
	switch {
	case held >= MaxBatchJobsPerClient:
		why = fmt.Sprintf("this client holds %d batch jobs, the most it may hold at once", held)
	case heldBytes >= MaxBatchJobBytesPerClient:
		why = fmt.Sprintf("this client's batch jobs hold %d KiB, the most they may hold is %d KiB", heldBytes>>10, MaxBatchJobBytesPerClient>>10)
	default:
		return nil
	}
	retry := max(oldestExpiry.Sub(now), time.Second)
	return &BatchQuotaError{RetryAfter: retry,
		Message: why + " (jobs are kept 24 hours); send the batch without Prefer: respond-async, or retry when the oldest job expires"}
}

// CapBatchResponses bounds the stored responses of one job to max bytes (as JSON): while
// they are larger, the largest operation body is replaced by a payload_too_large error
// object (status 413) saying to call that operation directly.
func CapBatchResponses(resps []BatchResponse, max int) []BatchResponse {
	size := func() int {
		b, _ := json.Marshal(resps)
		return len(b)
	}
	for size() > max {
		largest := -1
		for i, r := range resps {
			if r.Status != 413 && (largest < 0 || len(r.Body) > len(resps[largest].Body)) {
				largest = i
			}
		}
		if largest < 0 {
			break
		}
		body, _ := json.Marshal(map[string]any{"status": 413, "code": "payload_too_large",
			"message": fmt.Sprintf("this operation's response is too large to keep in an asynchronous batch job (at most %d KiB per job)", max>>10),
			"hint":    "Call this operation directly, or in a batch without Prefer: respond-async."})
		resps[largest] = BatchResponse{ID: resps[largest].ID, Status: 413, Body: body}
	}
	return resps
}

// BatchRequest is one GET operation of a batch, relative to the public API's base.
type BatchRequest struct {
	ID     string            `json:"id" jsonschema:"Your identifier of the operation, unique in the batch; its response carries it."`
	Method string            `json:"method" jsonschema:"Always GET (upper case): the public API is read-only."`
	Path   string            `json:"path" jsonschema:"Path of the operation relative to the API's base (/api/v1, or /api/sandbox/v1 in the sandbox), starting with /, e.g. /company. A plain path: no query string (use query), no fragment, no %-escapes, backslashes, empty, . or .. segments, and not /batch or a path under it (batches do not nest)."`
	Query  map[string]string `json:"query,omitempty" jsonschema:"Query parameters of the operation, name to value (values are strings, e.g. {\"limit\": \"5\"}). The operation validates them as it would in a direct request: an unknown one makes that operation a 400."`
}

// BatchResponse is one operation's answer.
type BatchResponse struct {
	ID     string          `json:"id" jsonschema:"The id of the operation."`
	Status int             `json:"status" jsonschema:"HTTP status of the operation."`
	Body   json.RawMessage `json:"body" jsonschema:"JSON body of the operation's response: the documented response body of that operation, or an Error. In the sandbox every operation body carries \"sandbox\": true, as the batch's own body does."`
}

// ParseBatch reads a batch body, decoded as every request body is (decodeRequest). The
// error names the offending field as "requests[i].x";
// the public API answers it with 400 rest_invalid_param.
func ParseBatch(body []byte) ([]BatchRequest, error) {
	var in struct {
		Requests []json.RawMessage `json:"requests"`
	}
	wrong, ok := decodeRequest(body, &in)
	if !ok {
		// Malformed JSON is a processing error in both APIs (the Errors docs page); a JSON object
		// that breaks the batch's rules is a bad parameter of the public API.
		return nil, &Error{Code: EPROCESSING, Message: `the batch body must be a JSON object {"requests": [...]}`}
	}
	if len(wrong) > 0 {
		return nil, FieldErr("requests", `the body must be a JSON object {"requests": [...]}`)
	}
	// The operations' ids and query values are text like any other (a job stores them).
	var e *Error
	if errors.As(RefuseNUL(body), &e) && len(e.Fields) > 0 {
		return nil, FieldErr(e.Fields[0].Field, e.Fields[0].Message)
	}
	if len(in.Requests) == 0 || len(in.Requests) > MaxBatchRequests {
		return nil, FieldErr("requests", fmt.Sprintf("must hold 1 to %d operations", MaxBatchRequests))
	}
	out := make([]BatchRequest, len(in.Requests))
	seen := map[string]bool{}
	for i, raw := range in.Requests {
		p := fmt.Sprintf("requests[%d]", i)
		r := &out[i]
		if wrong, ok := decodeRequest(raw, r); !ok || len(wrong) > 0 {
			return nil, FieldErr(p, `must be {"id": string, "method": "GET", "path": string, "query": {string: string}}`)
		}
		switch {
		case r.ID == "" || len(r.ID) > 100:
			return nil, FieldErr(p+".id", "is required, at most 100 characters")
		case seen[r.ID]:
			return nil, FieldErr(p+".id", "must be unique in the batch")
		case r.Method != "GET":
			return nil, FieldErr(p+".method", `must be "GET": the public API is read-only`)
		}
		seen[r.ID] = true
		if err := checkBatchPath(r.Path); err != "" {
			return nil, FieldErr(p+".path", err)
		}
		if len(r.Query) > 20 {
			return nil, FieldErr(p+".query", "must have at most 20 parameters")
		}
	}
	return out, nil
}

// checkBatchPath keeps an operation inside the API: a clean absolute path, no query string
// (that goes in "query"), nothing that climbs out, and no batch inside a batch.
func checkBatchPath(p string) string {
	switch {
	case !strings.HasPrefix(p, "/") || len(p) > 200:
		return `must be a path relative to /api/v1 starting with "/", e.g. "/company"`
	case strings.ContainsAny(p, "?#\\%") || strings.Contains(p, "//"):
		return `must be a plain path; put parameters in "query"`
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return "must not climb out of /api/v1"
		}
	}
	if u, err := url.Parse(p); err != nil || u.Path != p {
		return "is not a valid path"
	}
	if p == "/batch" || strings.HasPrefix(p, "/batch/") {
		return "must not be a batch: batches do not nest"
	}
	return ""
}

// Batch job statuses.
const (
	BatchPending = "pending"
	BatchDone    = "done"
)

// BatchJob is an asynchronous batch.
type BatchJob struct {
	ID        string
	Sandbox   bool
	Status    string
	Requests  []BatchRequest
	Responses []BatchResponse
	CreatedAt time.Time
	ExpiresAt time.Time
}

// BatchJobStore keeps asynchronous batch jobs (durable, so a restart finishes them).
type BatchJobStore interface {
	// CreateBatchJob stores a pending job of client (a ClientKey), or refuses it with a
	// *BatchQuotaError when the client's unexpired jobs are over CheckBatchJobQuota.
	CreateBatchJob(ctx context.Context, client string, sandbox bool, requests []BatchRequest, now time.Time) (*BatchJob, error)
	// FindBatchJob returns an unexpired job, or ENOTFOUND.
	FindBatchJob(ctx context.Context, id string, now time.Time) (*BatchJob, error)
	ClaimBatchJobs(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*BatchJob, error)
	CompleteBatchJob(ctx context.Context, id string, responses []BatchResponse, now time.Time) error
	// PurgeBatchJobs deletes expired jobs.
	PurgeBatchJobs(ctx context.Context, now time.Time) (int, error)
}
