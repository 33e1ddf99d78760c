package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example/v1":                     "https://api.example/v1/chat/completions",
		"https://api.example/v1/":                    "https://api.example/v1/chat/completions",
		"https://api.example/v1/chat/completions":    "https://api.example/v1/chat/completions",
		"http://localhost:11434/v1/chat/completions": "http://localhost:11434/v1/chat/completions",
	} {
		if got := (&Client{URL: in}).Endpoint(); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestCompleteErrors(t *testing.T) {
	for name, c := range map[string]struct {
		status int
		body   string
		want   string
	}{
		"status":     {http.StatusTooManyRequests, `{"error":"slow down"}`, "answered 429"},
		"no_choices": {http.StatusOK, `{"choices":[]}`, "no answer"},
		"not_json":   {http.StatusOK, `<html>`, "decode response"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			_, err := (&Client{URL: srv.URL, HTTP: srv.Client()}).Complete(context.Background(), []Message{{Role: "user", Content: "hi"}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}
