package answerdesk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Public API batch limits (SERVICE.md §8).
const (
	MaxBatchRequests = 10
	BatchJobTTL      = 24 * time.Hour
)

// BatchRequest is one GET operation of a batch, relative to the public API's base.
type BatchRequest struct {
	ID     string            `json:"id"`
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Query  map[string]string `json:"query,omitempty"`
}

// BatchResponse is one operation's answer.
type BatchResponse struct {
	ID     string          `json:"id"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// ParseBatch reads a batch body. The error names the offending field as "requests[i].x";
// the public API answers it with 400 rest_invalid_param.
func ParseBatch(body []byte) ([]BatchRequest, error) {
	var in struct {
		Requests []json.RawMessage `json:"requests"`
	}
	bad := func(field, msg string) error {
		return &Error{Code: EINVALID, Message: "invalid parameter " + field + ": " + msg, Fields: []FieldError{{Field: field, Message: msg}}}
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, bad("requests", `the body must be a JSON object {"requests": [...]}`)
	}
	if len(in.Requests) == 0 || len(in.Requests) > MaxBatchRequests {
		return nil, bad("requests", fmt.Sprintf("must hold 1 to %d operations", MaxBatchRequests))
	}
	out := make([]BatchRequest, len(in.Requests))
	seen := map[string]bool{}
	for i, raw := range in.Requests {
		p := fmt.Sprintf("requests[%d]", i)
		r := &out[i]
		if err := json.Unmarshal(raw, r); err != nil {
			return nil, bad(p, `must be {"id": string, "method": "GET", "path": string, "query": {string: string}}`)
		}
		switch {
		case r.ID == "" || len(r.ID) > 100:
			return nil, bad(p+".id", "is required, at most 100 characters")
		case seen[r.ID]:
			return nil, bad(p+".id", "must be unique in the batch")
		case r.Method != "GET":
			return nil, bad(p+".method", `must be "GET": the public API is read-only`)
		}
		seen[r.ID] = true
		if err := checkBatchPath(r.Path); err != "" {
			return nil, bad(p+".path", err)
		}
		if len(r.Query) > 20 {
			return nil, bad(p+".query", "must have at most 20 parameters")
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
	CreateBatchJob(ctx context.Context, sandbox bool, requests []BatchRequest, now time.Time) (*BatchJob, error)
	// FindBatchJob returns an unexpired job, or ENOTFOUND.
	FindBatchJob(ctx context.Context, id string, now time.Time) (*BatchJob, error)
	ClaimBatchJobs(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*BatchJob, error)
	CompleteBatchJob(ctx context.Context, id string, responses []BatchResponse, now time.Time) error
	// PurgeBatchJobs deletes expired jobs.
	PurgeBatchJobs(ctx context.Context, now time.Time) (int, error)
}
