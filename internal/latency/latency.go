// Package latency measures operations one at a time in benchmarks and reports their rate
// and latency percentiles, so that benchmarks of different packages (MCP tools, REST, the
// OAuth-authenticated account server) report comparable figures.
package latency

import (
	"slices"
	"testing"
	"time"
)

// Measure runs op once to warm up (connections, prepared statements, caches), then b.N
// times one at a time, and reports the rate under the unit rate (for example "calls/s")
// and the p50 and p99 latency in milliseconds.
func Measure(b *testing.B, rate string, op func()) {
	b.Helper()
	op()
	var lat []time.Duration
	start := time.Now()
	for b.Loop() {
		t0 := time.Now()
		op()
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), rate)
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}
