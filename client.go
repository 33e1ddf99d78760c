package answerdesk

import (
	"context"
	"net/netip"
)

// ClientKey is the key a client is counted under by every per-client limit (the public
// rate limit, the sign-in throttle, batch job bounds, the MCP tools): an IPv4 address
// whole, an IPv6 address cut to its /64. One customer line (or one rented server) usually
// holds a whole /64, so counting single IPv6 addresses would give one client 2^64 budgets.
// An IPv4-mapped IPv6 address counts as its IPv4 address; a value that is not an address
// is returned unchanged.
func ClientKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// PublicRateBucket is the allowance the public API /api/v1 and the public and docs MCP
// tools share: one budget per client, whichever door it uses.
const PublicRateBucket = "api/v1"

// RateKey is the rate limiter key of a client in a bucket (PublicRateBucket, or the
// sandbox's own).
func RateKey(bucket, clientKey string) string { return bucket + "|" + clientKey }

type clientKeyKey struct{}

// NewContextWithClientKey returns a copy of ctx carrying the request's ClientKey, for
// code that counts clients but never sees the HTTP request (MCP tool handlers).
func NewContextWithClientKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, clientKeyKey{}, key)
}

// ClientKeyFromContext returns the ClientKey in ctx, or "".
func ClientKeyFromContext(ctx context.Context) string {
	k, _ := ctx.Value(clientKeyKey{}).(string)
	return k
}
