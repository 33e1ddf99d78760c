package rest

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the Prometheus metrics of the HTTP server, in a registry of their own so that
// tests can make as many servers as they like.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// series caches each label set's counter and histogram (WithLabelValues hashes the
	// labels and takes a lock on every call): by seriesKey, of *series.
	series sync.Map
}

// seriesKey is one request series' labels.
type seriesKey struct {
	route, method string
	status        int
}

// series is the counter and histogram of one seriesKey.
type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// NewMetrics returns a registry with the HTTP metrics and the Go runtime collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "answerdesk_http_requests_total",
			Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "answerdesk_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
	}
	m.Registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// middleware records each request under its route pattern (never the raw path, which would
// make one series per id).
func (m *Metrics) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// The access log has wrapped w already; one wrapper serves both.
		ww, ok := w.(middleware.WrapResponseWriter)
		if !ok {
			ww = middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		}
		next.ServeHTTP(ww, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if p := rc.RoutePattern(); p != "" {
				route = p
			}
		}
		m.observe(seriesKey{route, r.Method, ww.Status()}, time.Since(start))
	})
}

// observe counts one request of series k that took d.
func (m *Metrics) observe(k seriesKey, d time.Duration) {
	v, ok := m.series.Load(k)
	if !ok {
		if !cachedMethods[k.method] { // any text a client sends: not kept here
			m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)).Inc()
			m.latency.WithLabelValues(k.route, k.method).Observe(d.Seconds())
			return
		}
		// Bounded: routes are patterns, the methods those below, statuses few.
		v, _ = m.series.LoadOrStore(k, &series{
			requests: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)),
			latency:  m.latency.WithLabelValues(k.route, k.method),
		})
	}
	s := v.(*series)
	s.requests.Inc()
	s.latency.Observe(d.Seconds())
}

// cachedMethods are the methods whose series observe keeps.
var cachedMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true}
