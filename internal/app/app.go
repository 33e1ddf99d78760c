// Package app assembles the running answerdesk from a Config: the store and its services,
// the limiters, the OAuth server, the REST server, the MCP handlers and the background
// workers. It is the wiring of cmd/answerdesk, kept out of package main so that the tests
// (internal/testapp) build the service the same way; nothing but cmd and internal/testapp
// imports it (it is internal, and it imports every outside-facing package).
package app

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
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
	"github.com/answerdesk/answerdesk/search/llm"
	"github.com/answerdesk/answerdesk/store"
	"github.com/go-chi/chi/v5"
)

// ClientRegistrationLimit is how many OAuth client registrations and client metadata
// fetches one address may cause per hour (Config.ClientLimits).
const ClientRegistrationLimit = 30

// Config is everything the service is built from. Zero values are the defaults of
// "answerdesk serve" unless a field says otherwise.
type Config struct {
	// DB is the SQLite database file, or a PostgreSQL URL (postgres://...), created (the
	// SQLite file) and migrated on Open.
	DB string
	// DBSynchronous is the SQLite synchronous mode: "full" (default) or "normal".
	DBSynchronous string
	// DBPool sizes the database's connection pool (zero fields: the engine's defaults).
	DBPool store.Pool
	// BaseURL is the public URL of the service without a trailing slash.
	BaseURL string
	// Key signs recording audio links and MCP session ids; SecretKey (default Key)
	// encrypts stored secrets.
	Key, SecretKey []byte
	// Now is the clock of the store, the signer, the REST and OAuth servers; nil: time.Now.
	Now func() time.Time
	// Logger receives every log line (with the request_id of the request a line is about);
	// nil discards them.
	Logger *slog.Logger
	// Version is reported in the webhook User-Agent and the MCP serverInfo.
	Version string
	// PasswordCost is the bcrypt cost of new password hashes; 0: bcrypt's default.
	PasswordCost int

	// Content is the site and docs Markdown. Nil leaves out the site, the docs, the public
	// API, the batch jobs and the MCP servers (tests of the customer API start faster).
	Content fs.FS
	// Public is the public API's rate limit, trusted proxies and v1 dates; PublicRateLimit
	// requests per minute per client (0: no limit) builds its limiter.
	Public          rest.PublicConfig
	PublicRateLimit int
	// ClientLimits turns on the per-address limits of OAuth client registration and client
	// metadata fetches (ClientRegistrationLimit per hour).
	ClientLimits bool

	DispatchAllowPrivate bool // dispatch may reach loopback and private addresses
	// DemoReceiver, when valid, is this server's own listening address: /demo/receiver is
	// served, and dispatch may reach that address (and no other private one) for it.
	DemoReceiver      netip.AddrPort
	OAuthAllowPrivate bool          // client metadata may be fetched from them
	DispatchLease     time.Duration // default one minute
	Features          []string      // e.g. answerdesk.FeatureAIOutboundCall
	// AudioStore is where new recording audio goes, of kind AudioKind (answerdesk.AudioStoreFile
	// or AudioStoreS3); nil is the database. MaxAudioBytes bounds an ingested file (default
	// answerdesk.DefaultMaxAudioBytes); AudioRedirect answers audio links with the store's
	// presigned links where it can make them.
	AudioStore         answerdesk.AudioStore
	AudioKind          string
	MaxAudioBytes      int64
	AudioRedirect      bool
	AudioRetention     time.Duration // default dispatch.DefaultAudioRetention
	RecordingRetention time.Duration // default dispatch.DefaultRecordingRetention
	LLMURL, LLMModel   string
	LLMKey             string
	SMTP               dispatch.SMTPConfig
	Twilio             dispatch.TwilioConfig
	Metrics            rest.MetricsConfig

	// Heartbeat is how often the service records in the database that it runs (the
	// replicas table, which db reset-signing-key reads) and checks that the database still
	// records its signing key; when it no longer does, Failed says so. 0: never (the tests'
	// in-process services); serve sets it.
	Heartbeat time.Duration
}

// Main is the assembled service. Open builds it, Start runs its background workers, Close
// stops them and releases the database and the search indexes.
type Main struct {
	Config Config

	DB         *store.DB
	Signer     *answerdesk.AudioSigner
	Messages   *store.MessageService
	Recordings *store.RecordingService
	ToDos      *store.ToDoService
	Dispatch   *store.DispatchService
	Users      *store.UserService
	Tokens     *store.TokenService
	Grants     *store.OAuthStore
	Jobs       *store.BatchJobs
	OAuth      *oauth.Server
	Rest       *rest.Server
	// MCP are the MCP handlers by path, built before the REST server's handler.
	MCP map[string]http.Handler
	// Handler serves everything: the REST server's router.
	Handler http.Handler

	Site, Sandbox       *content.Site
	Index, SandboxIndex *search.Index

	Scheduler  *dispatch.Scheduler
	Dispatcher *dispatch.Dispatcher
	Batches    *dispatch.BatchRunner
	Retention  *dispatch.Retention
	// Fetcher fetches the recordings Twilio's callbacks announce; nil without a Twilio auth token.
	Fetcher *dispatch.RecordingFetcher

	stopWork context.CancelFunc
	workers  sync.WaitGroup

	// replica is this process's row in the replicas table, nil without Config.Heartbeat.
	replica  *store.Replica
	stopBeat context.CancelFunc
	beating  sync.WaitGroup
	failed   chan error
}

// Open builds the service from cfg. On error everything opened so far is closed.
func Open(ctx context.Context, cfg Config) (_ *Main, err error) {
	cfg = cfg.withDefaults()
	m := &Main{Config: cfg, failed: make(chan error, 1)}
	defer func() {
		if err != nil {
			_ = m.Close()
		}
	}()
	if err := m.openDB(ctx, cfg); err != nil {
		return nil, err
	}
	m.openServices(cfg)
	if err := m.openWorkers(cfg); err != nil {
		return nil, err
	}
	m.openOAuth(cfg)
	m.openREST(cfg)
	if err := m.openTwilio(cfg); err != nil {
		return nil, err
	}
	m.OAuth.ClientAddress = m.Rest.ClientAddress // sign-in throttles honour the trusted proxies
	m.Batches = &dispatch.BatchRunner{Store: m.Jobs, Execute: m.Rest.ExecuteBatch, Logger: cfg.Logger}
	if cfg.Content != nil {
		if err := m.openPublic(cfg); err != nil {
			return nil, err
		}
	}
	m.Handler = m.Rest.Handler()
	return m, nil
}

// withDefaults is cfg with its zero values given their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// Every line logged with a request's context names its request id.
	cfg.Logger = slog.New(answerdesk.NewLogHandler(cfg.Logger.Handler()))
	if cfg.SecretKey == nil {
		cfg.SecretKey = cfg.Key
	}
	if cfg.DispatchLease == 0 {
		cfg.DispatchLease = time.Minute
	}
	if cfg.AudioRetention == 0 {
		cfg.AudioRetention = dispatch.DefaultAudioRetention
	}
	if cfg.RecordingRetention == 0 {
		cfg.RecordingRetention = dispatch.DefaultRecordingRetention
	}
	return cfg
}

// clock is cfg.Now, or time.Now.
func (cfg Config) clock() func() time.Time {
	if cfg.Now == nil {
		return time.Now
	}
	return cfg.Now
}

// openDB opens the database, checks that it was first served with this key, records this
// replica and opens the sealed secrets.
func (m *Main) openDB(ctx context.Context, cfg Config) error {
	opts := []store.Option{store.WithPool(cfg.DBPool)}
	if cfg.DBSynchronous != "" {
		opts = append(opts, store.WithSynchronous(cfg.DBSynchronous))
	}
	var err error
	if m.DB, err = store.Open(ctx, cfg.DB, opts...); err != nil {
		return err
	}
	if cfg.Now != nil {
		m.DB.Now = cfg.Now
	}
	// Before anything is served: a replica with another key would hand out links and
	// session ids the others refuse, and could not open the secrets they sealed.
	if err := m.DB.CheckSigningKey(ctx, cfg.Key); err != nil {
		return err
	}
	if cfg.Heartbeat > 0 {
		if m.replica, err = m.DB.RegisterReplica(ctx, cfg.Key, cfg.Heartbeat); err != nil {
			return fmt.Errorf("record this replica: %w", err)
		}
	}
	if m.DB.Secrets, err = answerdesk.NewSecretBox(cfg.SecretKey); err != nil {
		return err
	}
	return nil
}

// openServices makes the domain services over the database.
func (m *Main) openServices(cfg Config) {
	now := cfg.clock()
	m.Signer = &answerdesk.AudioSigner{Key: cfg.Key, BaseURL: cfg.BaseURL, TTL: 15 * time.Minute, Now: now}
	m.Messages = store.NewMessageService(m.DB)
	m.Recordings = store.NewRecordingService(m.DB, m.Signer)
	m.Recordings.Audio, m.Recordings.AudioKind, m.Recordings.MaxAudioBytes, m.Recordings.Now = cfg.AudioStore, cfg.AudioKind, cfg.MaxAudioBytes, now
	m.ToDos = store.NewToDoService(m.DB)
	m.ToDos.AIOutboundCall = slices.Contains(cfg.Features, answerdesk.FeatureAIOutboundCall)
	m.Dispatch = store.NewDispatchService(m.DB)
	m.Dispatch.ReplayLimiter = store.NewRateLimiter(m.DB, "dispatch-replay", answerdesk.ReplayRateLimit, answerdesk.ReplayRateWindow)
	m.Users = store.NewUserService(m.DB)
	m.Users.Cost = cfg.PasswordCost
	m.Tokens = store.NewTokenService(m.DB)
	m.Grants = store.NewOAuthStore(m.DB)
	m.Jobs = store.NewBatchJobs(m.DB)
}

// openWorkers makes the To Do scheduler, the dispatcher and the retention job, each woken
// by the services whose writes give it work.
func (m *Main) openWorkers(cfg Config) error {
	logger := cfg.Logger
	var err error
	if m.Scheduler, err = newScheduler(cfg, m.ToDos, logger); err != nil {
		return err
	}
	m.ToDos.OnCreate = m.Scheduler.Wake
	if cfg.DispatchAllowPrivate {
		logger.Warn("dispatch may reach loopback and private addresses (--dispatch-allow-private)")
	}
	var self []netip.AddrPort
	if cfg.DemoReceiver.IsValid() {
		self = append(self, cfg.DemoReceiver)
		logger.Info("dispatch may reach this server's own address for the demo receiver", "addr", cfg.DemoReceiver.String())
	}
	m.Dispatcher = &dispatch.Dispatcher{Queue: m.Dispatch, Client: dispatch.NewWebhookClient(cfg.Version, cfg.DispatchAllowPrivate, self...),
		Lease: cfg.DispatchLease, Logger: logger}
	m.Dispatch.OnChange = m.Dispatcher.Wake
	m.Messages.OnCreate = m.Dispatcher.Wake
	m.Retention = &dispatch.Retention{Service: m.Recordings, AudioAge: cfg.AudioRetention, RowAge: cfg.RecordingRetention,
		Interval: time.Hour, Now: cfg.clock(), Logger: logger, Expired: m.Grants}
	return nil
}

// openOAuth makes the authorization server of the account MCP server and of sign-in.
func (m *Main) openOAuth(cfg Config) {
	m.OAuth = &oauth.Server{
		Store: m.Grants, Sessions: store.NewSessionStore(m.DB), Users: m.Users, Tokens: m.Tokens,
		Issuer:             cfg.BaseURL,
		HTTPClient:         oauth.NewMetadataClient(cfg.OAuthAllowPrivate),
		SignInLimit:        store.NewRateLimiter(m.DB, "sign-in-email-address", answerdesk.SignInLimitPerEmailAndAddress, answerdesk.SignInWindow),
		SignInAddressLimit: store.NewRateLimiter(m.DB, "sign-in-address", answerdesk.SignInLimitPerAddress, answerdesk.SignInWindow),
		SignInEmailLimit:   store.NewRateLimiter(m.DB, "sign-in-email", answerdesk.SignInLimitPerEmail, answerdesk.SignInWindow),
		Logger:             cfg.Logger,
		Now:                cfg.Now,
	}
	if cfg.ClientLimits {
		m.OAuth.MetadataLimit = store.NewRateLimiter(m.DB, "oauth-client-metadata", ClientRegistrationLimit, time.Hour)
		m.OAuth.RegisterLimit = store.NewRateLimiter(m.DB, "oauth-client-registration", ClientRegistrationLimit, time.Hour)
	}
}

// openREST makes the HTTP server over the services.
func (m *Main) openREST(cfg Config) {
	m.Rest = &rest.Server{
		DemoReceiver:  demoReceiver(cfg),
		Messages:      m.Messages,
		Recordings:    m.Recordings,
		Ingest:        m.Recordings,
		MaxAudioBytes: cfg.MaxAudioBytes,
		AudioStores:   m.Recordings.AudioStore,
		AudioRedirect: cfg.AudioRedirect,
		ToDos:         m.ToDos,
		Dispatch:      m.Dispatch,
		Tokens:        m.Tokens,
		Accounts:      store.NewAccountService(m.DB),
		Admin:         store.NewAdminService(m.DB, m.Users),
		Bearer:        m.OAuth,
		Mounts:        []func(chi.Router){m.OAuth.Routes},
		Session:       m.OAuth.CurrentSession,
		Grants:        m.Grants,
		Signer:        m.Signer,
		Versions:      m.DB,
		RemoteStore:   m.DB.Postgres(),
		Ready:         m.DB.Ready,
		BaseURL:       cfg.BaseURL,
		Logger:        cfg.Logger,
		Now:           cfg.Now,
		MetricsConfig: cfg.Metrics,
	}
}

// openTwilio, when Twilio's auth token is configured, makes the fetcher of recordings its
// callbacks announce and the hook that takes them.
func (m *Main) openTwilio(cfg Config) error {
	if cfg.Twilio.AuthToken == "" {
		return nil
	}
	base := cmp.Or(cfg.Twilio.BaseURL, dispatch.DefaultTwilioBaseURL)
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("twilio base URL %q: %w", base, err)
	}
	fetches := store.NewRecordingFetches(m.DB)
	m.Fetcher = &dispatch.RecordingFetcher{Queue: fetches, Ingest: m.Recordings,
		Client:     dispatch.NewFetchClient(cfg.Version, cfg.DispatchAllowPrivate),
		AccountSID: cfg.Twilio.AccountSID, AuthToken: cfg.Twilio.AuthToken, Now: cfg.clock(), Logger: cfg.Logger}
	m.Rest.Twilio = rest.TwilioHooks{AuthToken: cfg.Twilio.AuthToken, MediaHost: u.Host, Fetches: fetches, OnFetch: m.Fetcher.Wake}
	return nil
}

// openPublic loads the content, builds the search indexes and the MCP servers, and gives
// them to the REST server.
func (m *Main) openPublic(cfg Config) error {
	var err error
	if m.Site, err = content.Load(cfg.Content); err != nil {
		return err
	}
	if m.Sandbox, err = content.Load(content.Sandbox()); err != nil {
		return err
	}
	start := time.Now()
	if m.Index, err = search.Build(m.Site.Pages); err != nil {
		return fmt.Errorf("build the search index: %w", err)
	}
	if m.SandboxIndex, err = search.Build(m.Sandbox.Pages); err != nil {
		return fmt.Errorf("build the sandbox search index: %w", err)
	}
	cfg.Logger.Info("search index built", "pages", len(m.Site.Pages), "duration", time.Since(start).Round(time.Millisecond))
	public := cfg.Public
	if cfg.PublicRateLimit > 0 {
		public.Limit = cfg.PublicRateLimit
		// Every /api/v1 and public MCP request spends it. Replicas on PostgreSQL share it
		// through the database; on SQLite there is one process, and counting in the database
		// would queue each public request behind the single writer connection (behind a
		// retention purge, say), so it counts in memory.
		if m.DB.Postgres() {
			public.Limiter = store.NewRateLimiter(m.DB, "public", cfg.PublicRateLimit, time.Minute)
		} else {
			public.Limiter = &ratelimit.Memory{Limit: cfg.PublicRateLimit, Window: time.Minute}
		}
	}
	// MCP session IDs are signed with a key derived from the key file, so every replica
	// sharing it (and this one after a restart) accepts them.
	sessionKey := hmac.New(sha256.New, cfg.Key)
	sessionKey.Write([]byte("answerdesk mcp session ids"))
	// One answerer for askQuestion and the docs pages' "Ask the docs" box.
	asker := &search.Asker{Index: m.Index, BaseURL: cfg.BaseURL, Logger: cfg.Logger}
	if cfg.LLMURL != "" {
		asker.LLM = &llm.Client{URL: cfg.LLMURL, Model: cfg.LLMModel, Key: cfg.LLMKey}
	}
	mcfg := mcp.Config{Site: m.Site, Index: m.Index, BaseURL: cfg.BaseURL, Logger: cfg.Logger, Version: cfg.Version,
		SessionKey: sessionKey.Sum(nil), Limiter: public.Limiter, Asker: asker}
	acfg := mcfg
	acfg.Authenticate = m.Rest.RequireBearer("/mcp/account")
	// The map is complete before the REST server builds its router from it.
	m.MCP = map[string]http.Handler{
		"/mcp/public": mcp.Handler(mcp.NewPublicServer(mcfg), "/mcp/public", mcfg),
		"/mcp/docs":   mcp.Handler(mcp.NewDocsServer(mcfg), "/mcp/docs", mcfg),
		"/mcp/account": mcp.Handler(mcp.NewAccountServer(acfg,
			mcp.AccountServices{Messages: m.Messages, Recordings: m.Recordings, ToDos: m.ToDos, API: rest.OpenAPIV2()}), "/mcp/account", acfg),
	}
	m.Rest.MCP = m.MCP
	m.Rest.Site, m.Rest.Sandbox = m.Site, m.Sandbox
	m.Rest.Search, m.Rest.SandboxSearch = m.Index, m.SandboxIndex
	m.Rest.Asker = asker
	m.Rest.Public = public
	m.Rest.Jobs = m.Jobs
	m.Rest.OnBatchJob = m.Batches.Wake
	return nil
}

// Start runs the background workers (retention, the To Do scheduler, dispatch, batch jobs)
// until Close. They run on a context of their own so that a shutdown drains requests first.
func (m *Main) Start(ctx context.Context) {
	workCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	m.stopWork = stop
	m.workers.Go(func() { m.Retention.Run(workCtx) })
	m.workers.Go(func() { m.Scheduler.Run(workCtx) })
	m.workers.Go(func() { m.Dispatcher.Run(workCtx) })
	if m.Fetcher != nil {
		m.workers.Go(func() { m.Fetcher.Run(workCtx) })
	}
	if m.Rest.Jobs != nil {
		m.workers.Go(func() { m.Batches.Run(workCtx) })
	}
	if m.replica != nil {
		// Its own context: the heartbeat goes on while the workers drain, so that a
		// replica finishing its work still counts as running.
		beatCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		m.stopBeat = stop
		m.beating.Go(func() { m.beat(beatCtx, m.replica) })
	}
}

// Failed receives, at most once, why the service must stop serving: the database no
// longer records the signing key it serves with (store.ErrSigningKeyChanged), so whatever
// it sealed now, replicas started with the recorded key could not open. The caller shuts
// down as on SIGTERM and exits with an error.
func (m *Main) Failed() <-chan error { return m.failed }

// beat renews the replica's row every Config.Heartbeat until ctx ends, and reports on
// Failed when the database's signing key is no longer the replica's. A beat that fails
// otherwise (the database unreachable) is logged and tried again at the next tick: the row
// then expires, and a key forgotten meanwhile is found at the first beat that gets through.
func (m *Main) beat(ctx context.Context, r *store.Replica) {
	logger := m.Config.Logger
	t := time.NewTicker(m.Config.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := m.DB.Beat(ctx, r)
		switch {
		case errors.Is(err, store.ErrSigningKeyChanged):
			logger.Error("stopping: the signing key changed under this replica; it must not seal secrets with a key that the replicas started since cannot open",
				"error", err, "replica", r.ID)
			select {
			case m.failed <- err:
			default:
			}
			return
		case err != nil && ctx.Err() == nil:
			logger.Warn("replica heartbeat failed; trying again", "error", err, "replica", r.ID)
		}
	}
}

// Shutdown stops the MCP servers' idle-session sweepers and the workers, waiting for them
// (the workers finish the work in hand) or until ctx ends.
func (m *Main) Shutdown(ctx context.Context) {
	for _, h := range m.MCP {
		if sd, ok := h.(interface{ Shutdown(context.Context) error }); ok {
			_ = sd.Shutdown(ctx)
		}
	}
	if m.stopWork != nil {
		m.stopWork()
		m.workers.Wait()
		m.stopWork = nil
	}
	if m.stopBeat != nil {
		m.stopBeat()
		m.beating.Wait()
		m.stopBeat = nil
	}
	m.removeReplica(ctx)
}

// removeReplica deletes this process's row in the replicas table, if it has one: it has
// stopped serving, and no longer holds up db reset-signing-key.
func (m *Main) removeReplica(ctx context.Context) {
	if m.replica == nil {
		return
	}
	// The drain may have used up ctx: the row still goes (it would hold up a reset for
	// StaleBeats heartbeats).
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.DB.RemoveReplica(rctx, m.replica); err != nil {
		m.Config.Logger.Warn("could not remove this replica's heartbeat row; it expires by itself", "error", err, "replica", m.replica.ID)
	}
	m.replica = nil
}

// Close shuts down what Shutdown does, then closes the search indexes and the database.
func (m *Main) Close() error {
	m.Shutdown(context.Background())
	var errs []error
	for _, ix := range []*search.Index{m.Index, m.SandboxIndex} {
		if ix != nil {
			errs = append(errs, ix.Close())
		}
	}
	if m.DB != nil {
		errs = append(errs, m.DB.Close())
	}
	return errors.Join(errs...)
}

// newScheduler builds the To Do scheduler with a channel per configured provider; without
// one, deliveries go to the outbox (recorded and logged), so the demo works with nothing set up.
func newScheduler(cfg Config, queue answerdesk.ToDoQueue, logger *slog.Logger) (*dispatch.Scheduler, error) {
	s := &dispatch.Scheduler{Queue: queue, Outbox: dispatch.NewOutboxChannel(logger), Logger: logger}
	if cfg.SMTP.Host != "" {
		ch, err := dispatch.NewSMTPChannel(cfg.SMTP)
		if err != nil {
			return nil, fmt.Errorf("smtp: %w", err)
		}
		s.Email = ch
		logger.Info("email To Dos go over SMTP", "host", cfg.SMTP.Host, "tls", cfg.SMTP.TLS)
	}
	if cfg.Twilio.AccountSID != "" {
		ch, err := dispatch.NewTwilioChannel(cfg.Twilio)
		if err != nil {
			return nil, fmt.Errorf("twilio: %w", err)
		}
		s.SMS, s.Voice = ch, ch
		logger.Info("sms and call To Dos go over the Twilio API", "base_url", cfg.Twilio.BaseURL)
	}
	return s, nil
}

// demoReceiver is the demo receiver when cfg asks for one, else nil.
func demoReceiver(cfg Config) *rest.DemoReceiver {
	if !cfg.DemoReceiver.IsValid() {
		return nil
	}
	return rest.NewDemoReceiver()
}
