package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/app"
	"github.com/answerdesk/answerdesk/internal/logbuf"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
)

// serveConfig is everything "answerdesk serve" can be told.
type serveConfig struct {
	addr                 string
	db                   string
	baseURL              string
	demo                 bool
	dispatchAllowPrivate bool
	oauthAllowPrivate    bool
	dbSynchronous        string
	dbMaxConns           int
	dbConnMaxLifetime    time.Duration
	demoReceiver         netip.AddrPort // with --demo: this server's own address (ownAddress)
	dispatchLease        time.Duration
	features             stringList
	publicRateLimit      int
	metricsToken         string
	metricsAddr          string
	pprofAddr            string
	signingKeyFile       string
	audioRetention       time.Duration
	recordingRetention   time.Duration
	audioStore           string
	maxAudioBytes        int64
	audioRedirect        bool
	logFormat            string
	shutdownTimeout      time.Duration
	heartbeatInterval    time.Duration
	contentDir           string
	llmURL, llmModel     string
	trustedProxies       stringList
	v1DeprecatedAt       string
	v1SunsetAt           string
	smtp                 dispatch.SMTPConfig
	twilio               dispatch.TwilioConfig
}

// The serve log's buffer: its size and how long a line may wait in it.
const (
	logBufferSize    = 64 << 10
	logFlushInterval = 100 * time.Millisecond
)

// knownFeatures are the names --feature accepts.
var knownFeatures = []string{answerdesk.FeatureAIOutboundCall}

func serveFlags(cfg *serveConfig, out io.Writer) *command {
	c := newCommand("serve", "[flags]", `Serve the customer API, public API, MCP servers, site and docs on one listener, and run
the background workers (dispatch, To Do scheduler, retention). The database is created
and migrated on start. SIGTERM drains in-flight requests and work, then exits 0.
Production guide: /docs/deployment.`, out)
	fs := c.fs
	fs.StringVar(&cfg.addr, "addr", ":8080", "listen address")
	fs.StringVar(&cfg.db, "db", "./data/answerdesk.db", "SQLite database file (created and migrated on start), or a PostgreSQL URL postgres://user:pass@host:5432/db?sslmode=... (the database must exist; migrated on start)")
	fs.StringVar(&cfg.dbSynchronous, "db-synchronous", "full", "full: every answered write survives a power loss; normal: fewer disk syncs, survives a process crash only")
	fs.IntVar(&cfg.dbMaxConns, "db-max-conns", 0, "database connections of this process: PostgreSQL's pool (0: 16), SQLite's read connections (0: 2 per CPU, at least 4)")
	fs.DurationVar(&cfg.dbConnMaxLifetime, "db-conn-max-lifetime", 0, "PostgreSQL: reopen each connection after this long, e.g. 30m behind a pooler or load balancer (0: never)")
	fs.StringVar(&cfg.baseURL, "base-url", "", "public URL of the service, used in links (default http://localhost:<port>)")
	fs.BoolVar(&cfg.demo, "demo", false, "load the demo data and print a demo API token")
	fs.BoolVar(&cfg.dispatchAllowPrivate, "dispatch-allow-private", false, "allow dispatch to loopback and private addresses (never link-local or cloud metadata)")
	fs.BoolVar(&cfg.oauthAllowPrivate, "oauth-allow-private", false, "allow fetching OAuth client ID metadata documents from loopback and private addresses (for testing)")
	fs.DurationVar(&cfg.dispatchLease, "dispatch-lease", time.Minute, "how long a dispatch attempt holds its delivery before another process may take it over")
	fs.Var(&cfg.features, "feature", "enable a feature (repeatable), e.g. ai-outbound-call")
	fs.IntVar(&cfg.publicRateLimit, "public-rate-limit", 60, "public API requests per minute per client (0: no limit)")
	fs.StringVar(&cfg.metricsToken, "metrics-token", "", "bearer token /metrics requires (prefer ANSWERDESK_METRICS_TOKEN); without it and --metrics-addr, /metrics answers loopback clients only")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", "", "serve /metrics on this separate listen address (e.g. 127.0.0.1:9090) instead of the main one")
	fs.StringVar(&cfg.pprofAddr, "pprof-addr", "", "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060 (off when empty; for measuring, never public)")
	fs.StringVar(&cfg.signingKeyFile, "signing-key-file", "", "file holding the key that signs links and session ids and seals stored secrets, readable by its owner only (chmod 600); every replica needs the same (default: signing.key beside the database file; with a PostgreSQL --db, ./data/signing.key; or the key itself in ANSWERDESK_SIGNING_KEY)")
	fs.DurationVar(&cfg.audioRetention, "audio-retention", dispatch.DefaultAudioRetention, "how long recording audio is kept")
	fs.DurationVar(&cfg.recordingRetention, "recording-retention", dispatch.DefaultRecordingRetention, "how long recording rows (CDR) are kept")
	fs.StringVar(&cfg.audioStore, "audio-store", answerdesk.AudioStoreDB, "where new recording audio goes: db (the database), file:///PATH (a directory; one shared directory for several replicas) or s3://BUCKET/PREFIX?region=R&endpoint=URL&path_style=true (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)")
	fs.Int64Var(&cfg.maxAudioBytes, "max-audio-bytes", answerdesk.DefaultMaxAudioBytes, "the largest audio file a recording upload may carry")
	fs.BoolVar(&cfg.audioRedirect, "audio-redirect", false, "answer audio links with a redirect to the S3 store's presigned link, which expires with the link (the audio then never passes through answerdesk)")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long SIGTERM waits for in-flight work")
	fs.DurationVar(&cfg.heartbeatInterval, "heartbeat-interval", 5*time.Second, fmt.Sprintf("how often serve records in the database that it runs (db reset-signing-key refuses while it does; it counts as stopped after %d missed) and checks that the database still records its signing key", store.StaleBeats))
	fs.StringVar(&cfg.contentDir, "content", "", "directory of site and docs Markdown to serve instead of the embedded content")
	fs.StringVar(&cfg.llmURL, "llm-url", "", "OpenAI-compatible chat endpoint that composes askQuestion answers (key in ANSWERDESK_LLM_KEY); empty: extractive answers")
	fs.StringVar(&cfg.llmModel, "llm-model", "", "model name for --llm-url")
	fs.Var(&cfg.trustedProxies, "trusted-proxy", "address or CIDR of a proxy whose X-Forwarded-For is believed (repeatable)")
	fs.StringVar(&cfg.v1DeprecatedAt, "v1-deprecated-at", "", "date (YYYY-MM-DD) public API v1 is deprecated: adds Deprecation headers")
	fs.StringVar(&cfg.v1SunsetAt, "v1-sunset-at", "", "date (YYYY-MM-DD) public API v1 stops: adds Sunset headers")
	fs.StringVar(&cfg.smtp.Host, "smtp-host", "", "SMTP server for email To Dos (empty: email goes to the outbox)")
	fs.IntVar(&cfg.smtp.Port, "smtp-port", 0, "SMTP port (default 587, 465 with --smtp-tls tls, 25 with none)")
	fs.StringVar(&cfg.smtp.Username, "smtp-username", "", "SMTP user name (turns on SMTP AUTH)")
	fs.StringVar(&cfg.smtp.Password, "smtp-password", "", "SMTP password (prefer ANSWERDESK_SMTP_PASSWORD)")
	fs.StringVar(&cfg.smtp.TLS, "smtp-tls", "starttls", "SMTP TLS policy: starttls, opportunistic, tls or none")
	fs.StringVar(&cfg.twilio.BaseURL, "twilio-base-url", dispatch.DefaultTwilioBaseURL, "base URL of the Twilio-compatible REST API")
	fs.StringVar(&cfg.twilio.AccountSID, "twilio-account-sid", "", "Twilio account SID for sms and call To Dos (empty: they go to the outbox)")
	fs.StringVar(&cfg.twilio.AuthToken, "twilio-auth-token", "", "Twilio auth token (prefer ANSWERDESK_TWILIO_AUTH_TOKEN)")
	fs.StringVar(&cfg.twilio.CallerID, "twilio-caller-id", "", "From number of calls (default: the To Do account's number)")
	return c
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	if _, err := serveFlags(&cfg, stdout).parse(args); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	// The log (one access-log line per request) is written in batches: a SIGKILL loses at
	// most logFlushInterval of lines, warnings and errors are written at once, and the
	// return below writes the rest (docs: operations, "Logs").
	logw := logbuf.New(stderr, logBufferSize, logFlushInterval)
	defer logw.Close()
	logger := newLogger(logw, cfg.logFormat)
	logger = slog.New(logbuf.FlushHandler{Handler: logger.Handler(), W: logw, Level: slog.LevelWarn})

	ln, err := listen(cfg.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if cfg.baseURL == "" {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		cfg.baseURL = "http://localhost:" + port
	}
	cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")

	if cfg.demo {
		cfg.demoReceiver = ownAddress(ln)
	}
	m, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	if cfg.demo {
		creds, err := demo.Seed(ctx, m.DB, demo.Options{ReceiverURL: "http://" + cfg.demoReceiver.String() + "/demo/receiver"})
		if err != nil {
			return fmt.Errorf("seed demo data: %w", err)
		}
		printDemo(stdout, cfg.baseURL, creds)
	} else if err := printFirstStart(ctx, stdout, m.DB, cfg); err != nil {
		return err
	}
	httpServer := &http.Server{
		Handler:           m.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          nil,
	}
	m.Start(ctx)
	// Building the search indexes and loading the content leave some 50 MB of garbage that
	// the runtime would hand back to the OS only over the next minutes: return it now, so
	// an idle server's RSS is its working set. The workers' first passes, started just
	// above, allocate beside that call; a second one a second later returns their garbage
	// too (measured: idle RSS 67-92 MB with one call, 64-76 MB with both).
	debug.FreeOSMemory()
	freeAgain := time.AfterFunc(time.Second, debug.FreeOSMemory)
	defer freeAgain.Stop()

	serveErr := make(chan error, 2)
	go func() { serveErr <- httpServer.Serve(ln) }()
	metricsServer, pprofServer, err := serveSide(cfg, m, logger, serveErr)
	if err != nil {
		m.Shutdown(context.Background())
		_ = httpServer.Close()
		return err
	}
	if pprofServer != nil {
		defer pprofServer.Close()
	}
	logger.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.baseURL, "db", store.DisplayName(cfg.db), "version", version)
	_ = logw.Flush() // whoever waits for the server to listen reads this line now

	// stopped is why serve stops other than by a signal: it is drained all the same, and
	// exits with the error.
	var stopped error
	select {
	case err := <-serveErr:
		m.Shutdown(context.Background())
		return fmt.Errorf("serve: %w", err)
	case err := <-m.Failed():
		stopped = fmt.Errorf("stopped serving: %w; start it again with the key the database records now, the other replicas' (--signing-key-file or ANSWERDESK_SIGNING_KEY)", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining requests and work")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	if metricsServer != nil {
		_ = metricsServer.Shutdown(shutdownCtx)
	}
	m.Shutdown(shutdownCtx) // the MCP session sweepers, then the workers finish their work in hand
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errors.Join(stopped, fmt.Errorf("shutdown: %w", err))
	}
	logger.Info("stopped")
	return stopped
}

// listen opens the service's listener, saying what to do when the address is taken.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: the address is in use by another process; choose another with --addr (or ANSWERDESK_ADDR), e.g. --addr :8081", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (change it with --addr)", addr, err)
	}
	return ln, nil
}

// openApp opens the service the flags describe: its key, public API, audio store and
// database.
func openApp(ctx context.Context, cfg serveConfig, logger *slog.Logger) (*app.Main, error) {
	key, keySource, err := signingKey(cfg)
	if err != nil {
		return nil, err
	}
	public, err := publicConfig(cfg)
	if err != nil {
		return nil, err
	}
	audioStore, audioKind, err := openAudioStore(ctx, cfg.audioStore)
	if err != nil {
		return nil, usagef("--audio-store: %v", err)
	}
	// The store's URL carries no secret (S3 credentials come from the environment), so it
	// is logged whole: an operator sees where new audio goes.
	logger.Info("recording audio store", "kind", audioKind, "store", cfg.audioStore, "redirect", cfg.audioRedirect)
	acfg := app.Config{
		AudioStore: audioStore, AudioKind: audioKind, MaxAudioBytes: cfg.maxAudioBytes, AudioRedirect: cfg.audioRedirect,
		DB: cfg.db, DBSynchronous: cfg.dbSynchronous, DBPool: store.Pool{MaxConns: cfg.dbMaxConns, MaxLifetime: cfg.dbConnMaxLifetime}, BaseURL: cfg.baseURL, Key: key, Logger: logger, Version: version,
		Content: content.Embedded(), Public: public, PublicRateLimit: cfg.publicRateLimit, ClientLimits: true,
		DispatchAllowPrivate: cfg.dispatchAllowPrivate, DemoReceiver: cfg.demoReceiver, OAuthAllowPrivate: cfg.oauthAllowPrivate,
		DispatchLease: cfg.dispatchLease, Features: cfg.features,
		AudioRetention: cfg.audioRetention, RecordingRetention: cfg.recordingRetention,
		LLMURL: cfg.llmURL, LLMModel: cfg.llmModel, LLMKey: os.Getenv("ANSWERDESK_LLM_KEY"),
		SMTP: cfg.smtp, Twilio: cfg.twilio,
		Metrics:   rest.MetricsConfig{Token: cfg.metricsToken, Separate: cfg.metricsAddr != ""},
		Heartbeat: cfg.heartbeatInterval,
	}
	if cfg.contentDir != "" {
		acfg.Content = os.DirFS(cfg.contentDir)
	}
	m, err := app.Open(ctx, acfg)
	if errors.Is(err, store.ErrSigningKeyMismatch) {
		return nil, fmt.Errorf("%w (the key from %s): every replica on one database must start with the key the database was "+
			"first served with, from --signing-key-file or ANSWERDESK_SIGNING_KEY; copy that key file (or value) "+
			"from a replica that runs, or from where the database was first served, and start again "+
			"(stored webhook credentials are sealed with it); only if that key is lost for good, "+
			"stop every replica and run answerdesk db reset-signing-key --yes to let a new one in", err, keySource)
	}
	return m, err
}

// serveSide starts the listeners beside the service's: /metrics on --metrics-addr (its
// end reported on serveErr) and the profiler on --pprof-addr (loopback only; it may stop
// without stopping the service). On an error, nothing of them is left open.
func serveSide(cfg serveConfig, m *app.Main, logger *slog.Logger, serveErr chan<- error) (metricsServer, pprofServer *http.Server, err error) {
	if cfg.metricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen on --metrics-addr %s: %w", cfg.metricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", m.Rest.MetricsHandler())
		metricsServer = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { serveErr <- metricsServer.Serve(mln) }()
		logger.Info("serving metrics", "addr", mln.Addr().String())
	}
	if cfg.pprofAddr != "" {
		pln, err := net.Listen("tcp", cfg.pprofAddr)
		if err == nil && !isLoopbackListener(pln) {
			// "localhost" is resolved by the system (hosts file, DNS): what was bound decides.
			_ = pln.Close()
			err = fmt.Errorf("%s is not a loopback address", pln.Addr())
		}
		if err != nil {
			if metricsServer != nil {
				_ = metricsServer.Close()
			}
			return nil, nil, fmt.Errorf("listen on --pprof-addr %s: %w", cfg.pprofAddr, err)
		}
		pprofServer = &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = pprofServer.Serve(pln) }() // a profiler that stops is no reason to stop serving
		logger.Info("serving pprof", "addr", pln.Addr().String())
	}
	return metricsServer, pprofServer, nil
}

// publicConfig is the public API's configuration from the flags (the rate limiter itself is
// built by app.Open from --public-rate-limit).
func publicConfig(cfg serveConfig) (rest.PublicConfig, error) {
	var pc rest.PublicConfig
	for _, p := range cfg.trustedProxies {
		prefix, err := parseProxy(p)
		if err != nil {
			return pc, fmt.Errorf("--trusted-proxy %q: not an address or CIDR", p)
		}
		pc.TrustedProxies = append(pc.TrustedProxies, prefix)
	}
	for _, d := range []struct {
		flag, value string
		into        *time.Time
	}{{"--v1-deprecated-at", cfg.v1DeprecatedAt, &pc.DeprecatedAt}, {"--v1-sunset-at", cfg.v1SunsetAt, &pc.SunsetAt}} {
		if d.value == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", d.value)
		if err != nil {
			return pc, fmt.Errorf("%s %q: want YYYY-MM-DD", d.flag, d.value)
		}
		*d.into = t
	}
	return pc, nil
}

func printDemo(w io.Writer, baseURL string, d *demo.Credentials) {
	fmt.Fprintf(w, `
answerdesk demo is ready at %[1]s

  Demo API token (owner@acme.example, account 1001):
    %[2]s
  Admin API token (admin@answerdesk.example):
    %[3]s
  Demo users (password %[4]s): owner@acme.example, owner@birch.example,
  admin@answerdesk.example

  Try:  curl -H "Authorization: Bearer %[2]s" "%[1]s/api/v2/messages?page_size=2"

  MCP servers (Streamable HTTP):
    %[1]s/mcp/public
    %[1]s/mcp/docs
    %[1]s/mcp/account   (OAuth 2.1: sign in with a demo user, or send the API token)

  Application keys (create and revoke API tokens): %[1]s/settings/keys

`, baseURL, d.Token, d.AdminToken, d.Password)
}

// signingKeyEnv holds the signing key itself, for platforms that hand secrets over as
// environment variables rather than files.
const signingKeyEnv = "ANSWERDESK_SIGNING_KEY"

// signingKey is the key serve signs and seals with, and where it came from: the
// ANSWERDESK_SIGNING_KEY value, or --signing-key-file (default signing.key beside a SQLite
// database, created on first start).
func signingKey(cfg serveConfig) (key []byte, source string, err error) {
	if v, ok := os.LookupEnv(signingKeyEnv); ok {
		if cfg.signingKeyFile != "" {
			return nil, "", usagef("serve: both %s and --signing-key-file are set: keep one", signingKeyEnv)
		}
		if len(v) < 32 {
			return nil, "", usagef("serve: %s: want at least 32 characters (e.g. from openssl rand -hex 32), have %d", signingKeyEnv, len(v))
		}
		return []byte(v), signingKeyEnv, nil
	}
	keyFile := cfg.signingKeyFile
	switch {
	case keyFile != "":
	case store.IsPostgresURL(cfg.db):
		// A URL has no directory to keep the key beside. Replicas must share it: one that
		// made its own is refused by the database's key fingerprint (app.Open).
		keyFile = filepath.Join("data", "signing.key")
	default:
		keyFile = filepath.Join(filepath.Dir(cfg.db), "signing.key")
	}
	key, err = loadOrCreateKey(keyFile)
	return key, keyFile, err
}

// loadOrCreateKey reads the signing key file, or creates it when there is none. A key file
// that group or others may read or change is refused (exit 2), as ssh refuses such a
// private key: whoever reads the key can forge audio links and MCP session ids and open
// the stored webhook credentials (docs: security, "Backups and the signing key").
func loadOrCreateKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createKey(path)
	}
	return key, err
}

// readKey reads an existing key file and checks its mode and length.
func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", path, err)
	}
	// Windows has no such mode bits (Go reports 0666 for every writable file).
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, usagef("serve: signing key file %s has mode %04o: group or others may read or change it, and the key signs links and "+
			"seals stored secrets; run  chmod 600 %s  (readable by the service's user only) and start again", path, perm, path)
	}
	key, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", path, err)
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("signing key %s: want at least 32 bytes, have %d", path, len(key))
	}
	return key, nil
}

// createKey makes a key file of 32 random bytes with mode 0600 at path. The key is written
// to a temporary file (0600 from the start) and hard-linked into place, so a file at path
// is never overwritten nor a symlink there followed, and replicas that start together on
// one key file all read the one key that was linked first, complete.
func createKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create signing key directory: %w", err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	tmp, err := os.CreateTemp(dir, ".signing.key-")
	if err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(key)
	if err := errors.Join(err, tmp.Chmod(0o600), tmp.Sync(), tmp.Close()); err != nil {
		return nil, fmt.Errorf("write signing key %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readKey(path) // another process made it first
	} else if err != nil {
		return nil, fmt.Errorf("write signing key %s: %w", path, err)
	}
	return key, nil
}

// validate checks every flag value before anything starts, so a typo stops serve at once
// (exit 2) with a message naming the flag instead of surfacing later or never.
func (cfg *serveConfig) validate() error {
	bad := func(flag, value, want string) error {
		return usagef("serve: --%s %q: %s", flag, value, want)
	}
	if _, _, err := net.SplitHostPort(cfg.addr); err != nil {
		return bad("addr", cfg.addr, "want host:port or :port, e.g. :8080 or 127.0.0.1:8080")
	}
	if cfg.maxAudioBytes <= 0 {
		return bad("max-audio-bytes", strconv.FormatInt(cfg.maxAudioBytes, 10), "want a number of bytes above 0, e.g. 268435456 (256 MiB)")
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return bad("base-url", cfg.baseURL, "want an absolute http(s) URL such as https://answerdesk.example.com")
		}
	}
	if !slices.Contains([]string{"text", "json"}, cfg.logFormat) {
		return bad("log-format", cfg.logFormat, "want text or json")
	}
	if !slices.Contains([]string{"full", "normal"}, strings.ToLower(cfg.dbSynchronous)) {
		return bad("db-synchronous", cfg.dbSynchronous, "want full or normal")
	}
	if cfg.dbMaxConns < 0 || cfg.dbMaxConns > 1000 {
		return bad("db-max-conns", strconv.Itoa(cfg.dbMaxConns), "want 0 (the default) to 1000")
	}
	if cfg.dbConnMaxLifetime < 0 {
		return bad("db-conn-max-lifetime", cfg.dbConnMaxLifetime.String(), "want a duration of 0 (never) or more, e.g. 30m")
	}
	if !slices.Contains([]string{"starttls", "opportunistic", "tls", "none"}, cfg.smtp.TLS) {
		return bad("smtp-tls", cfg.smtp.TLS, "want starttls, opportunistic, tls or none")
	}
	if cfg.smtp.Port < 0 || cfg.smtp.Port > 65535 {
		return bad("smtp-port", fmt.Sprint(cfg.smtp.Port), "want a port from 1 to 65535")
	}
	if u, err := url.Parse(cfg.twilio.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("twilio-base-url", cfg.twilio.BaseURL, "want an absolute http(s) URL")
	}
	if cfg.llmURL != "" {
		if u, err := url.Parse(cfg.llmURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("llm-url", cfg.llmURL, "want an absolute http(s) URL")
		}
	}
	if cfg.publicRateLimit < 0 {
		return bad("public-rate-limit", fmt.Sprint(cfg.publicRateLimit), "want 0 (no limit) or more")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"dispatch-lease", cfg.dispatchLease}, {"audio-retention", cfg.audioRetention}, {"recording-retention", cfg.recordingRetention}, {"shutdown-timeout", cfg.shutdownTimeout}, {"heartbeat-interval", cfg.heartbeatInterval}} {
		if d.v <= 0 {
			return bad(d.name, d.v.String(), "want a positive duration such as 30s or 744h")
		}
	}
	for _, f := range cfg.features {
		if !slices.Contains(knownFeatures, f) {
			return bad("feature", f, "want one of "+strings.Join(knownFeatures, ", "))
		}
	}
	for _, p := range cfg.trustedProxies {
		if _, err := parseProxy(p); err != nil {
			return bad("trusted-proxy", p, "want an IP address or a CIDR such as 10.0.0.0/8")
		}
	}
	for _, d := range []struct{ name, v string }{{"v1-deprecated-at", cfg.v1DeprecatedAt}, {"v1-sunset-at", cfg.v1SunsetAt}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse("2006-01-02", d.v); err != nil {
			return bad(d.name, d.v, "want a date YYYY-MM-DD")
		}
	}
	if cfg.pprofAddr != "" && !loopbackAddr(cfg.pprofAddr) {
		return bad("pprof-addr", cfg.pprofAddr, "want a loopback address such as 127.0.0.1:6060 or [::1]:6060: profiles show the process's internals")
	}
	if cfg.contentDir != "" {
		if info, err := os.Stat(cfg.contentDir); err != nil || !info.IsDir() {
			return bad("content", cfg.contentDir, "want an existing directory")
		}
	}
	return nil
}

// parseProxy parses a --trusted-proxy value: a CIDR, or one address.
func parseProxy(p string) (netip.Prefix, error) {
	prefix, err := netip.ParsePrefix(p)
	if err == nil {
		return prefix, nil
	}
	addr, err := netip.ParseAddr(p)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(addr, addr.BitLen()), nil
}

// printFirstStart tells an operator who starts serve on an empty database (no user yet)
// what to do next, with commands they can paste.
func printFirstStart(ctx context.Context, w io.Writer, db *store.DB, cfg serveConfig) error {
	_, meta, err := store.NewAdminService(db, nil).FindUsers(ctx, answerdesk.SystemCaller(), answerdesk.Paging{Page: 1, PageSize: 1})
	if err != nil {
		return fmt.Errorf("count users: %w", err)
	}
	if meta.Total > 0 {
		return nil
	}
	// A PostgreSQL URL is shown without its password (and quoted: it holds ? and &).
	dbArg := store.DisplayName(cfg.db)
	if strings.ContainsAny(dbArg, " '\"?&") {
		dbArg = "'" + strings.ReplaceAll(dbArg, "'", `'\''`) + "'"
	}
	fmt.Fprintf(w, `
answerdesk is running at %[1]s with an empty database (%[2]s).
Nothing can use it until it has an account, a user and a token. In another terminal:

  1. An account, with the number its SMS To Dos send from and its email-sending domain:
       answerdesk account create --db %[2]s --number 1001 --name "Your Company" \
         --time-zone America/New_York --sms-number +15555550100 --sending-domain example.com
  2. A user, a member of that account (the password is read from standard input):
       echo 'a long passphrase' | answerdesk user create --db %[2]s \
         --email you@example.com --password-stdin --account 1001
     (add --admin for an operator who provisions through the admin API)
  3. An API token for that user, printed alone:
       answerdesk token create --db %[2]s --user you@example.com
  4. Use it:
       curl -H "Authorization: Bearer ak_..." %[1]s/api/v2/me

  Just trying it out? answerdesk serve --demo loads demo data instead.
  Running it for real: %[1]s/docs/deployment

`, cfg.baseURL, dbArg)
	return nil
}

// pprofMux serves net/http/pprof's handlers, registered here rather than on
// http.DefaultServeMux so that no other listener serves them by accident. The command line
// is not served (it may hold --smtp-password or a database URL's password), and a request
// whose Host is not loopback is refused: a page in a browser on this machine could
// otherwise reach the listener through DNS rebinding.
func pprofMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); host != "localhost" && (err != nil || !ip.IsLoopback()) {
			http.Error(w, "forbidden: the profiler answers loopback hosts only", http.StatusForbidden)
			return
		}
		if r.URL.Path == "/debug/pprof/cmdline" {
			http.NotFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// isLoopbackListener reports whether ln listens on a loopback address.
func isLoopbackListener(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// loopbackAddr reports whether addr is host:port with a loopback IP (or localhost) host.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// ownAddress is the address at which this process reaches its own listener: the listener's
// address, or 127.0.0.1 at its port when it listens on every address (Go's "tcp" listener
// on ":port" takes IPv4 too, and IPv6 may be off).
func ownAddress(ln net.Listener) netip.AddrPort {
	ap, err := netip.ParseAddrPort(ln.Addr().String())
	if err != nil {
		return netip.AddrPort{}
	}
	if ap.Addr().IsUnspecified() {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}
