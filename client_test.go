package answerdesk_test

import (
	"testing"

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
