package answerdesk

import "net/netip"

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
