package rest

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// demoReceiverKeep is how many deliveries the demo receiver shows.
const demoReceiverKeep = 20

// DemoReceiver is the endpoint the demo's on-call contact pushes messages to (serve --demo):
// POST /demo/receiver takes a delivery and answers 204; GET /demo/receiver shows the last
// deliveries taken, newest first. So a new user sees dispatch work on one machine without
// any network: the demo's deliveries succeed, and their bodies can be read back.
type DemoReceiver struct {
	mu    sync.Mutex
	taken []DemoDelivery
	now   func() time.Time
}

// DemoDelivery is one delivery the demo receiver took.
type DemoDelivery struct {
	ReceivedAt     time.Time       `json:"received_at"`
	IdempotencyKey string          `json:"idempotency_key"`
	ContentType    string          `json:"content_type"`
	Body           json.RawMessage `json:"body,omitempty"`
	Text           string          `json:"text,omitempty"` // a body that is not JSON
}

// NewDemoReceiver returns an empty receiver.
func NewDemoReceiver() *DemoReceiver { return &DemoReceiver{now: time.Now} }

func (d *DemoReceiver) routes(s *Server, r chi.Router) {
	r.Post("/demo/receiver", func(w http.ResponseWriter, req *http.Request) {
		req.Body = http.MaxBytesReader(w, req.Body, MaxBodyBytes)
		body, err := readBody(req)
		if err != nil {
			s.Error(w, req, err)
			return
		}
		dd := DemoDelivery{ReceivedAt: d.now().UTC(), IdempotencyKey: req.Header.Get("Idempotency-Key"), ContentType: req.Header.Get("Content-Type")}
		if json.Valid(body) {
			dd.Body = body
		} else {
			dd.Text = string(body)
		}
		d.mu.Lock()
		d.taken = append([]DemoDelivery{dd}, d.taken...)
		if len(d.taken) > demoReceiverKeep {
			d.taken = d.taken[:demoReceiverKeep]
		}
		d.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/demo/receiver", func(w http.ResponseWriter, req *http.Request) {
		d.mu.Lock()
		taken := append([]DemoDelivery{}, d.taken...)
		d.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"data": taken})
	})
}
