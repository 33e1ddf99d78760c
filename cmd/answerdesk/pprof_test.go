package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The profiler answers loopback hosts only (DNS rebinding) and never the command line,
// which may hold secrets.
func TestPprofMux(t *testing.T) {
	h := pprofMux()
	for _, tc := range []struct {
		host, path string
		want       int
	}{
		{"127.0.0.1:6060", "/debug/pprof/", http.StatusOK},
		{"[::1]:6060", "/debug/pprof/", http.StatusOK},
		{"localhost:6060", "/debug/pprof/", http.StatusOK},
		{"rebind.attacker.example:6060", "/debug/pprof/", http.StatusForbidden},
		{"rebind.attacker.example:6060", "/debug/pprof/cmdline", http.StatusForbidden},
		{"10.0.0.5:6060", "/debug/pprof/", http.StatusForbidden},
		{"127.0.0.1:6060", "/debug/pprof/cmdline", http.StatusNotFound},
	} {
		r := httptest.NewRequest(http.MethodGet, "http://"+tc.host+tc.path, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("GET %s with Host %s: %d, want %d", tc.path, tc.host, w.Code, tc.want)
		}
	}
}
