package answerdesk_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
)

func TestClientKey(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ipv4_counts_whole", "203.0.113.7", "203.0.113.7"},
		{"ipv6_counts_per_64", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{"ipv6_same_64_same_key", "2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"ipv6_other_64_other_key", "2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"ipv4_mapped_counts_as_ipv4", "::ffff:203.0.113.7", "203.0.113.7"},
		{"zone_is_dropped", "fe80::1%eth0", "fe80::/64"},
		{"not_an_address_unchanged", "pipe", "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := answerdesk.ClientKey(tt.in); got != tt.want {
				t.Fatalf("ClientKey(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckBatchJobQuota(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	oldest := now.Add(3 * time.Hour)
	tests := []struct {
		name      string
		held      int
		heldBytes int64
		refused   bool
	}{
		{"first_job", 0, 0, false},
		{"one_below_the_count", answerdesk.MaxBatchJobsPerClient - 1, 1 << 20, false},
		{"at_the_count", answerdesk.MaxBatchJobsPerClient, 1 << 20, true},
		{"below_the_bytes", 3, answerdesk.MaxBatchJobBytesPerClient - 1, false},
		{"at_the_bytes", 3, answerdesk.MaxBatchJobBytesPerClient, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answerdesk.CheckBatchJobQuota(tt.held, tt.heldBytes, oldest, now)
			var qe *answerdesk.BatchQuotaError
			if got := errors.As(err, &qe); got != tt.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, tt.refused)
			}
			if tt.refused && qe.RetryAfter != 3*time.Hour {
				t.Fatalf("RetryAfter %v, want until the oldest job expires (3h)", qe.RetryAfter)
			}
		})
	}
}

func TestCapBatchResponses(t *testing.T) {
	body := func(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("x", n) + `"`) }
	tests := []struct {
		name     string
		sizes    []int
		max      int
		replaced []string
	}{
		{"under_the_cap_unchanged", []int{100, 200}, 1 << 10, nil},
		{"the_largest_goes_first", []int{100, 3000, 800}, 2 << 10, []string{"1"}},
		{"as_many_as_needed", []int{1500, 1500, 1500}, 3 << 10, []string{"0", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []answerdesk.BatchResponse
			for i, n := range tt.sizes {
				in = append(in, answerdesk.BatchResponse{ID: strconv.Itoa(i), Status: 200, Body: body(n)})
			}
			out := answerdesk.CapBatchResponses(in, tt.max)
			if b, _ := json.Marshal(out); len(b) > tt.max {
				t.Fatalf("%d bytes, want at most %d", len(b), tt.max)
			}
			var replaced []string
			for _, r := range out {
				if r.Status == 413 {
					replaced = append(replaced, r.ID)
					if !strings.Contains(string(r.Body), "payload_too_large") {
						t.Fatalf("replacement body %s", r.Body)
					}
				}
			}
			if strings.Join(replaced, ",") != strings.Join(tt.replaced, ",") {
				t.Fatalf("replaced %v, want %v", replaced, tt.replaced)
			}
		})
	}
}
