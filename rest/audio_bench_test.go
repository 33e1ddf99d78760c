package rest_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// benchAudioSize is the recording the audio benchmarks move: an hour and a half of 8 kHz
// 16-bit mono WAV is about 100 MiB.
const benchAudioSize = 100 << 20

// benchDownloaders is how many players fetch the recording at once.
const benchDownloaders = 32

// BenchmarkRecordingAudio ingests a 100 MiB recording (MB/s) and then has 32 clients
// download it at once, from each audio store and from Go's http.ServeContent over a
// local file (the ceiling), in the same run: MB/s of all of them together, and the
// process's peak RSS while they ran (ANSWERDESK_TEST_ENGINE chooses the database). The
// process is the server and its 32 clients; the S3 server runs in a process of its own.
func BenchmarkRecordingAudio(b *testing.B) {
	app := testapp.New(b)
	stores := benchAudioStores(b, app)

	// The ceiling: the same bytes from a local file through http.ServeContent.
	path := filepath.Join(b.TempDir(), "ceiling.wav")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := wavStream(benchAudioSize)
	if _, err := io.Copy(f, body); err != nil {
		b.Fatal(err)
	}
	f.Close()
	ceiling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "audio/wav")
		http.ServeContent(w, r, "ceiling.wav", time.Time{}, f)
	}))
	b.Cleanup(ceiling.Close)
	b.Run("ceiling_servecontent_file", func(b *testing.B) { benchDownloads(b, ceiling.URL) })

	for _, st := range stores {
		app.Recordings.Audio, app.Recordings.AudioKind = st.store, st.kind
		var link string
		b.Run("ingest_"+st.kind, func(b *testing.B) {
			rss := watchRSS()
			for i := 0; b.Loop(); i++ {
				link = benchIngest(b, app, st.kind+"-"+strconv.Itoa(i))
			}
			b.ReportMetric(float64(benchAudioSize)/(1<<20)/b.Elapsed().Seconds()*float64(b.N), "MiB/s")
			b.ReportMetric(float64(rss.stop())/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(rss.heap.Load())/(1<<20), "peak-heap-MiB")
		})
		b.Run("download_"+st.kind, func(b *testing.B) { benchDownloads(b, link) })
	}
}

// benchStore is an audio store the benchmark runs against.
type benchStore struct {
	kind  string
	store answerdesk.AudioStore
}

// benchIngest uploads benchAudioSize bytes as call sid and returns the signed link.
func benchIngest(b *testing.B, app *testapp.App, sid string) string {
	body, _ := wavStream(benchAudioSize)
	status, got := streamIngest(b, app, sid, body)
	if status != 200 || got.Recording == nil {
		b.Fatalf("ingest: %d", status)
	}
	return *got.Recording
}

// benchDownloads has benchDownloaders clients fetch url whole at once, each iteration.
func benchDownloads(b *testing.B, url string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchDownloaders}}
	rss := watchRSS()
	var moved atomic.Int64
	for b.Loop() {
		var wg sync.WaitGroup
		for range benchDownloaders {
			wg.Go(func() {
				resp, err := client.Get(url)
				if err != nil {
					b.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != benchAudioSize {
					b.Errorf("downloaded %d bytes, want %d", n, benchAudioSize)
				}
				moved.Add(n)
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(moved.Load())/(1<<20)/b.Elapsed().Seconds(), "MiB/s")
	b.ReportMetric(float64(rss.stop())/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(rss.heap.Load())/(1<<20), "peak-heap-MiB")
}

// rssWatch samples the process's resident set size (VmRSS) and keeps its peak.
type rssWatch struct {
	peak atomic.Int64
	heap atomic.Int64 // the Go heap's part: HeapSys - HeapReleased
	done chan struct{}
	wg   sync.WaitGroup
}

func watchRSS() *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	w.wg.Go(func() {
		for {
			if n := readRSS(); n > w.peak.Load() {
				w.peak.Store(n)
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if n := int64(m.HeapSys - m.HeapReleased); n > w.heap.Load() {
				w.heap.Store(n)
			}
			select {
			case <-w.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	return w
}

func (w *rssWatch) stop() int64 {
	close(w.done)
	w.wg.Wait()
	return w.peak.Load()
}

// readRSS is VmRSS of /proc/self/status in bytes, 0 where there is none.
func readRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
