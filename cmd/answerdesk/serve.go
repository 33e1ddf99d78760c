package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/mcp"
	"github.com/answerdesk/answerdesk/oauth"
	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/search"
	"github.com/answerdesk/answerdesk/store"
	"github.com/go-chi/chi/v5"
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
	dispatchLease        time.Duration
	features             stringList
	publicRateLimit      int
	metricsToken         string
	metricsAddr          string
	signingKeyFile       string
	audioRetention       time.Duration
	recordingRetention   time.Duration
	logFormat            string
	shutdownTimeout      time.Duration
	contentDir           string
	llmURL, llmModel     string
	trustedProxies       stringList
	v1DeprecatedAt       string
	v1SunsetAt           string
	smtp                 dispatch.SMTPConfig
	twilio               dispatch.TwilioConfig
}

// knownFeatures are the names --feature accepts.
var knownFeatures = []string{answerdesk.FeatureAIOutboundCall}

func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&cfg.addr, "addr", ":8080", "listen address")
	fs.StringVar(&cfg.db, "db", "./data/answerdesk.db", "SQLite database file (created and migrated on start)")
	fs.StringVar(&cfg.dbSynchronous, "db-synchronous", "full", "full: every answered write survives a power loss; normal: fewer disk syncs, survives a process crash only")
	fs.StringVar(&cfg.baseURL, "base-url", "", "public URL of the service, used in links (default http://localhost:<port>)")
	fs.BoolVar(&cfg.demo, "demo", false, "load the demo data and print a demo API token")
	fs.BoolVar(&cfg.dispatchAllowPrivate, "dispatch-allow-private", false, "allow dispatch to loopback and private addresses")
	fs.BoolVar(&cfg.oauthAllowPrivate, "oauth-allow-private", false, "allow fetching OAuth client ID metadata documents from loopback and private addresses (for testing)")
	fs.DurationVar(&cfg.dispatchLease, "dispatch-lease", time.Minute, "how long a dispatch attempt holds its delivery before another process may take it over")
	fs.Var(&cfg.features, "feature", "enable a feature (repeatable), e.g. ai-outbound-call")
	fs.IntVar(&cfg.publicRateLimit, "public-rate-limit", 60, "public API requests per minute per client (0: no limit)")
	fs.StringVar(&cfg.metricsToken, "metrics-token", "", "bearer token /metrics requires (prefer ANSWERDESK_METRICS_TOKEN); without it and --metrics-addr, /metrics answers loopback clients only")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", "", "serve /metrics on this separate listen address (e.g. 127.0.0.1:9090) instead of the main one")
	fs.StringVar(&cfg.signingKeyFile, "signing-key-file", "", "file holding the key that signs recording audio links (default: signing.key beside the database)")
	fs.DurationVar(&cfg.audioRetention, "audio-retention", dispatch.DefaultAudioRetention, "how long recording audio is kept")
	fs.DurationVar(&cfg.recordingRetention, "recording-retention", dispatch.DefaultRecordingRetention, "how long recording rows (CDR) are kept")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long SIGTERM waits for in-flight work")
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
	return fs
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := serveFlags(&cfg)
	fs.SetOutput(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	for _, f := range cfg.features {
		if !slices.Contains(knownFeatures, f) {
			return fmt.Errorf("serve: unknown --feature %q (known: %s)", f, strings.Join(knownFeatures, ", "))
		}
	}
	logger := newLogger(stderr, cfg.logFormat)

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	defer ln.Close()
	if cfg.baseURL == "" {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		cfg.baseURL = "http://localhost:" + port
	}
	cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")

	db, err := store.Open(ctx, cfg.db, store.WithSynchronous(cfg.dbSynchronous))
	if err != nil {
		return err
	}
	defer db.Close()

	keyFile := cfg.signingKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(filepath.Dir(cfg.db), "signing.key")
	}
	key, err := loadOrCreateKey(keyFile)
	if err != nil {
		return err
	}
	signer := &answerdesk.AudioSigner{Key: key, BaseURL: cfg.baseURL, TTL: 15 * time.Minute, Now: time.Now}
	if db.Secrets, err = answerdesk.NewSecretBox(key); err != nil {
		return err
	}
	if cfg.demo {
		demo, err := store.Seed(ctx, db, store.SeedOptions{})
		if err != nil {
			return fmt.Errorf("seed demo data: %w", err)
		}
		printDemo(stdout, cfg.baseURL, demo)
	}
	recordings := store.NewRecordingService(db, signer)
	toDos := store.NewToDoService(db)
	toDos.AIOutboundCall = slices.Contains(cfg.features, answerdesk.FeatureAIOutboundCall)
	scheduler, err := newScheduler(cfg, toDos, logger)
	if err != nil {
		return err
	}
	toDos.OnCreate = scheduler.Wake
	if cfg.dispatchAllowPrivate {
		logger.Warn("dispatch may reach loopback and private addresses (--dispatch-allow-private)")
	}
	dispatchService := store.NewDispatchService(db)
	dispatcher := &dispatch.Dispatcher{Queue: dispatchService, Client: dispatch.NewWebhookClient(version, cfg.dispatchAllowPrivate),
		Lease: cfg.dispatchLease, Logger: logger}
	dispatchService.OnChange = dispatcher.Wake
	dispatchService.ReplayLimiter = &ratelimit.Memory{Limit: answerdesk.ReplayRateLimit, Window: answerdesk.ReplayRateWindow}
	messages := store.NewMessageService(db)
	messages.OnCreate = dispatcher.Wake
	site, public, err := loadPublic(cfg)
	if err != nil {
		return err
	}
	sandbox, err := content.Load(content.Sandbox())
	if err != nil {
		return err
	}
	jobs := store.NewBatchJobs(db)
	start := time.Now()
	index, err := search.Build(site.Pages)
	if err != nil {
		return fmt.Errorf("build the search index: %w", err)
	}
	defer index.Close()
	sandboxIndex, err := search.Build(sandbox.Pages)
	if err != nil {
		return fmt.Errorf("build the sandbox search index: %w", err)
	}
	defer sandboxIndex.Close()
	logger.Info("search index built", "pages", len(site.Pages), "duration", time.Since(start).Round(time.Millisecond))
	// MCP session IDs are signed with a key derived from the key file, so every replica
	// sharing it (and this one after a restart) accepts them.
	sessionKey := hmac.New(sha256.New, key)
	sessionKey.Write([]byte("answerdesk mcp session ids"))
	mcfg := mcp.Config{Site: site, Index: index, BaseURL: cfg.baseURL, Logger: logger, Version: version, SessionKey: sessionKey.Sum(nil), Limiter: public.Limiter,
		LLMURL: cfg.llmURL, LLMModel: cfg.llmModel, LLMKey: os.Getenv("ANSWERDESK_LLM_KEY")}
	mcpHandlers := map[string]http.Handler{
		"/mcp/public": mcp.Handler(mcp.NewPublicServer(mcfg), "/mcp/public", mcfg),
		"/mcp/docs":   mcp.Handler(mcp.NewDocsServer(mcfg), "/mcp/docs", mcfg),
	}
	tokens := store.NewTokenService(db)
	sessions := store.NewSessionStore(db)
	oauthStore := store.NewOAuthStore(db)
	authServer := &oauth.Server{
		Store: oauthStore, Sessions: sessions, Users: store.NewUserService(db), Tokens: tokens,
		Issuer:     cfg.baseURL,
		HTTPClient: oauth.NewMetadataClient(cfg.oauthAllowPrivate),
		// Failed sign-ins per 15 minutes: 10 per email from one address, 50 per address,
		// 100 per email from anywhere: enough for typos, too few to guess a password.
		SignInLimit:        &ratelimit.Memory{Limit: 10, Window: 15 * time.Minute},
		SignInAddressLimit: &ratelimit.Memory{Limit: 50, Window: 15 * time.Minute},
		SignInEmailLimit:   &ratelimit.Memory{Limit: 100, Window: 15 * time.Minute},
		MetadataLimit:      &ratelimit.Memory{Limit: 30, Window: time.Hour},
		RegisterLimit:      &ratelimit.Memory{Limit: 30, Window: time.Hour},
		Logger:             logger,
	}
	srv := &rest.Server{
		MCP:           mcpHandlers,
		Bearer:        authServer,
		Mounts:        []func(chi.Router){authServer.Routes},
		Session:       authServer.CurrentSession,
		Grants:        oauthStore,
		Site:          site,
		Sandbox:       sandbox,
		Search:        index,
		SandboxSearch: sandboxIndex,
		Public:        public,
		Jobs:          jobs,
		Messages:      messages,
		Recordings:    recordings,
		ToDos:         toDos,
		Dispatch:      dispatchService,
		Tokens:        tokens,
		Accounts:      store.NewAccountService(db),
		Signer:        signer,
		Ready:         db.Ready,
		BaseURL:       cfg.baseURL,
		Logger:        logger,
		MetricsConfig: rest.MetricsConfig{Token: cfg.metricsToken, Separate: cfg.metricsAddr != ""},
	}
	authServer.ClientAddress = srv.ClientAddress // sign-in throttles honour --trusted-proxy
	acfg := mcfg
	acfg.Authenticate = srv.RequireBearer("/mcp/account")
	mcpHandlers["/mcp/account"] = mcp.Handler(mcp.NewAccountServer(acfg,
		mcp.AccountServices{Messages: messages, Recordings: recordings, ToDos: toDos}), "/mcp/account", acfg)
	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          nil,
	}

	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	retention := &dispatch.Retention{Service: recordings, AudioAge: cfg.audioRetention, RowAge: cfg.recordingRetention,
		Interval: time.Hour, Now: time.Now, Logger: logger, Expired: oauthStore}
	workers.Go(func() { retention.Run(workCtx) })
	workers.Go(func() { scheduler.Run(workCtx) })
	workers.Go(func() { dispatcher.Run(workCtx) })
	batches := &dispatch.BatchRunner{Store: jobs, Execute: srv.ExecuteBatch, Logger: logger}
	srv.OnBatchJob = batches.Wake
	workers.Go(func() { batches.Run(workCtx) })

	serveErr := make(chan error, 2)
	go func() { serveErr <- httpServer.Serve(ln) }()
	var metricsServer *http.Server
	if cfg.metricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			stopWork()
			workers.Wait()
			_ = httpServer.Close()
			return fmt.Errorf("listen on --metrics-addr %s: %w", cfg.metricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.MetricsHandler())
		metricsServer = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { serveErr <- metricsServer.Serve(mln) }()
		logger.Info("serving metrics", "addr", mln.Addr().String())
	}
	logger.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.baseURL, "db", cfg.db, "version", version)

	select {
	case err := <-serveErr:
		stopWork()
		workers.Wait()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining requests and work")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	if metricsServer != nil {
		_ = metricsServer.Shutdown(shutdownCtx)
	}
	for _, h := range mcpHandlers { // stop the MCP servers' idle-session sweepers
		if sd, ok := h.(interface{ Shutdown(context.Context) error }); ok {
			_ = sd.Shutdown(shutdownCtx)
		}
	}
	stopWork()
	workers.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// loadPublic loads the site content and the public API's configuration.
func loadPublic(cfg serveConfig) (*content.Site, rest.PublicConfig, error) {
	var pc rest.PublicConfig
	fsys := content.Embedded()
	if cfg.contentDir != "" {
		fsys = os.DirFS(cfg.contentDir)
	}
	site, err := content.Load(fsys)
	if err != nil {
		return nil, pc, err
	}
	if cfg.publicRateLimit < 0 {
		return nil, pc, errors.New("--public-rate-limit must be 0 (no limit) or more")
	}
	if cfg.publicRateLimit > 0 {
		pc.Limit = cfg.publicRateLimit
		pc.Limiter = &ratelimit.Memory{Limit: cfg.publicRateLimit, Window: time.Minute}
	}
	for _, p := range cfg.trustedProxies {
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return nil, pc, fmt.Errorf("--trusted-proxy %q: not an address or CIDR", p)
			}
			prefix = netip.PrefixFrom(addr, addr.BitLen())
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
			return nil, pc, fmt.Errorf("%s %q: want YYYY-MM-DD", d.flag, d.value)
		}
		*d.into = t
	}
	return site, pc, nil
}

// newScheduler builds the To Do scheduler with a channel per configured provider; without
// one, deliveries go to the outbox (recorded and logged), so the demo works with nothing set up.
func newScheduler(cfg serveConfig, queue answerdesk.ToDoQueue, logger *slog.Logger) (*dispatch.Scheduler, error) {
	s := &dispatch.Scheduler{Queue: queue, Outbox: dispatch.NewOutboxChannel(logger), Logger: logger}
	if cfg.smtp.Host != "" {
		ch, err := dispatch.NewSMTPChannel(cfg.smtp)
		if err != nil {
			return nil, fmt.Errorf("smtp: %w", err)
		}
		s.Email = ch
		logger.Info("email To Dos go over SMTP", "host", cfg.smtp.Host, "tls", cfg.smtp.TLS)
	}
	if cfg.twilio.AccountSID != "" {
		ch, err := dispatch.NewTwilioChannel(cfg.twilio)
		if err != nil {
			return nil, fmt.Errorf("twilio: %w", err)
		}
		s.SMS, s.Voice = ch, ch
		logger.Info("sms and call To Dos go over the Twilio API", "base_url", cfg.twilio.BaseURL)
	}
	return s, nil
}

func printDemo(w io.Writer, baseURL string, d *store.Demo) {
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

// loadOrCreateKey reads the signing key file, creating it with 32 random bytes and mode
// 0600 on first start.
func loadOrCreateKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err == nil {
		if len(key) < 32 {
			return nil, fmt.Errorf("signing key %s: want at least 32 bytes, have %d", path, len(key))
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	key = make([]byte, 32)
	_, _ = rand.Read(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create signing key directory: %w", err)
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	return key, nil
}
