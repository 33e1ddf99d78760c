package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/answerdesk/answerdesk"
)

// BatchJobs implements answerdesk.BatchJobStore.
type BatchJobs struct{ db *DB }

// NewBatchJobs returns the batch job store over db.
func NewBatchJobs(db *DB) *BatchJobs { return &BatchJobs{db: db} }

var _ answerdesk.BatchJobStore = (*BatchJobs)(nil)

// CreateBatchJob stores a pending job under an unguessable id, in the same transaction as
// the check of the client's quota, so concurrent requests cannot overshoot it. The client
// is stored hashed: the table needs to group a client's jobs, not to know its address.
func (s *BatchJobs) CreateBatchJob(ctx context.Context, client string, sandbox bool, requests []answerdesk.BatchRequest, now time.Time) (*answerdesk.BatchJob, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	job := &answerdesk.BatchJob{ID: "job_" + base64.RawURLEncoding.EncodeToString(b), Sandbox: sandbox, Status: answerdesk.BatchPending,
		Requests: requests, CreatedAt: now, ExpiresAt: now.Add(answerdesk.BatchJobTTL)}
	reqs, _ := json.Marshal(requests)
	sum := sha256.Sum256([]byte("batch-client:" + client))
	clientHash := hex.EncodeToString(sum[:16])
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		var (
			held      int
			heldBytes int64
			oldest    *int64
		)
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(size), 0), min(expires_at) FROM batch_jobs WHERE client = ? AND expires_at > ?`,
			clientHash, now.UnixMilli()).Scan(&held, &heldBytes, &oldest); err != nil {
			return fmt.Errorf("count batch jobs: %w", err)
		}
		oldestExpiry := now
		if oldest != nil {
			oldestExpiry = time.UnixMilli(*oldest)
		}
		if err := answerdesk.CheckBatchJobQuota(held, heldBytes, oldestExpiry, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO batch_jobs (id, sandbox, status, requests, created_at, expires_at, client, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			job.ID, sandbox, job.Status, string(reqs), now.UnixMilli(), job.ExpiresAt.UnixMilli(), clientHash, len(reqs)); err != nil {
			return fmt.Errorf("create batch job: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return job, nil
}

func scanBatchJob(sc scanner) (*answerdesk.BatchJob, error) {
	var j answerdesk.BatchJob
	var reqs string
	var resps *string
	var created, expires int64
	if err := sc.Scan(&j.ID, &j.Sandbox, &j.Status, &reqs, &resps, &created, &expires); err != nil {
		return nil, err
	}
	j.CreatedAt, j.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
	if err := json.Unmarshal([]byte(reqs), &j.Requests); err != nil {
		return nil, fmt.Errorf("decode batch job %s: %w", j.ID, err)
	}
	if resps != nil {
		if err := json.Unmarshal([]byte(*resps), &j.Responses); err != nil {
			return nil, fmt.Errorf("decode batch job %s: %w", j.ID, err)
		}
	}
	return &j, nil
}

const batchColumns = `id, sandbox, status, requests, responses, created_at, expires_at`

// FindBatchJob returns an unexpired job.
func (s *BatchJobs) FindBatchJob(ctx context.Context, id string, now time.Time) (*answerdesk.BatchJob, error) {
	if !answerdesk.ValidText(id) {
		// No job has such an id; PostgreSQL would refuse the query (NUL, invalid UTF-8).
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no batch job %s (jobs are kept 24 hours)", answerdesk.Quote(id))
	}
	j, err := scanBatchJob(s.db.rd.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM batch_jobs WHERE id = ? AND expires_at > ?`, id, now.UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no batch job %s (jobs are kept 24 hours)", answerdesk.Quote(id))
	}
	if err != nil {
		return nil, fmt.Errorf("load batch job: %w", err)
	}
	return j, nil
}

// ClaimBatchJobs leases pending jobs.
func (s *BatchJobs) ClaimBatchJobs(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.BatchJob, error) {
	var jobs []*answerdesk.BatchJob
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		jobs = nil
		rows, err := tx.QueryContext(ctx, `SELECT `+batchColumns+` FROM batch_jobs WHERE status = 'pending'
			AND (lease_until IS NULL OR lease_until <= ?) AND expires_at > ? ORDER BY created_at LIMIT ?`+s.db.d.claim(""), now.UnixMilli(), now.UnixMilli(), limit)
		if err != nil {
			return fmt.Errorf("find pending batch jobs: %w", err)
		}
		for rows.Next() {
			j, err := scanBatchJob(rows)
			if err != nil {
				rows.Close()
				return err
			}
			jobs = append(jobs, j)
		}
		rows.Close()
		for _, j := range jobs {
			if _, err := tx.ExecContext(ctx, `UPDATE batch_jobs SET lease_until = ? WHERE id = ?`, now.Add(lease).UnixMilli(), j.ID); err != nil {
				return fmt.Errorf("lease batch job: %w", err)
			}
		}
		return rows.Err()
	})
	return jobs, err
}

// CompleteBatchJob stores a job's responses.
func (s *BatchJobs) CompleteBatchJob(ctx context.Context, id string, responses []answerdesk.BatchResponse, now time.Time) error {
	b, _ := json.Marshal(responses)
	_, err := s.db.write.ExecContext(ctx, `UPDATE batch_jobs SET status = 'done', responses = ?, size = length(requests) + ?, lease_until = NULL WHERE id = ?`, string(b), len(b), id)
	if err != nil {
		return fmt.Errorf("complete batch job %s: %w", id, err)
	}
	return nil
}

// PurgeBatchJobs deletes expired jobs.
func (s *BatchJobs) PurgeBatchJobs(ctx context.Context, now time.Time) (int, error) {
	res, err := s.db.write.ExecContext(ctx, `DELETE FROM batch_jobs WHERE expires_at <= ?`, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("purge batch jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
