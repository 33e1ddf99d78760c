// Package testapp builds a real answerdesk for tests: a fresh database (a SQLite file, or a
// new PostgreSQL database when ANSWERDESK_TEST_ENGINE=postgres; see internal/testdb), the real router
// on an httptest server, a movable clock, and a small fixture of two accounts with a user
// each and an admin. Tests make requests through HTTP and assert on what comes back.
package testapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/internal/app"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/oauth"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
	"golang.org/x/crypto/bcrypt"
)

// Clock is a settable clock shared by the store and the signer.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Start is where every test clock starts: a fixed instant, so dates in tests are stable.
var Start = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

// User is a fixture user with a working API token.
type User struct {
	*answerdesk.User
	Token string
}

// App is a running answerdesk over a fresh database.
type App struct {
	DB     *store.DB
	Server *httptest.Server
	Rest   *rest.Server
	Clock  *Clock
	Signer *answerdesk.AudioSigner

	Acme, Birch       *answerdesk.Account // accounts 1001 and 1002
	Alice, Bob, Admin User                // member of 1001, member of 1002, admin
	Messages          *store.MessageService
	Recordings        *store.RecordingService
	ToDos             *store.ToDoService
	Dispatch          *store.DispatchService
	// OAuth is the authorization server and web sign-in, mounted on Server.
	OAuth *oauth.Server
}

// New starts an App on the engine the suites run on (testdb.Engine: SQLite unless
// ANSWERDESK_TEST_ENGINE=postgres); everything is closed when the test ends.
func New(t testing.TB) *App {
	t.Helper()
	return NewOn(t, testdb.Engine())
}

// Serve starts the service on the database at dsn, served on its own address with the
// clock: an App without the fixture (no accounts or users). Called again with the same dsn
// it starts another replica on the same database, as replicas behind a load balancer are.
func Serve(t testing.TB, dsn string, clock *Clock) *App {
	t.Helper()
	return serve(t, dsn, clock, nil)
}

// serve is Serve; a non-nil site also serves the public API, the site and the three MCP
// servers from that content, with the public rate limit off (tests send many requests).
func serve(t testing.TB, dsn string, clock *Clock, site fs.FS) *App {
	t.Helper()
	server := httptest.NewUnstartedServer(nil)
	// The service is assembled as "answerdesk serve" assembles it (internal/app), without
	// the content, the MCP servers and the workers: tests mount and run what they need.
	m, err := app.Open(context.Background(), app.Config{
		DB:           dsn,
		BaseURL:      "http://" + server.Listener.Addr().String(),
		Key:          []byte("test-signing-key-0123456789abcdef"),
		SecretKey:    []byte("test-key-material-0123456789abcdef"),
		Now:          clock.Now,
		PasswordCost: bcrypt.MinCost,
		Version:      "test",
		Content:      site,
	})
	if err != nil {
		server.Close()
		t.Fatalf("open the app: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	a := &App{DB: m.DB, Clock: clock, Server: server, Rest: m.Rest, Signer: m.Signer, Messages: m.Messages,
		Recordings: m.Recordings, ToDos: m.ToDos, Dispatch: m.Dispatch, OAuth: m.OAuth}
	server.Config.Handler = m.Handler
	server.Start()
	t.Cleanup(server.Close)
	return a
}

// OpenStore opens a fresh database of the engine (testdb.SQLite or testdb.Postgres), named
// name within the test, without a service on it; it is closed when the test ends. (The
// tests inside packages store and rest cannot import this package: they open their own.)
func OpenStore(t testing.TB, engine, name string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), testdb.DSN(t, engine, name))
	if err != nil {
		t.Fatalf("open the database: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// NewOn starts an App on a fresh database of the engine (testdb.SQLite or testdb.Postgres).
func NewOn(t testing.TB, engine string) *App {
	t.Helper()
	return newOn(t, engine, nil)
}

// NewPublic is New with the shipped content: the public API /api/v1 (and its sandbox and
// batch), the site and docs, and the three MCP servers (/mcp/public, /mcp/docs, and
// /mcp/account, which takes the fixture users' tokens) are served too.
func NewPublic(t testing.TB) *App {
	t.Helper()
	return newOn(t, testdb.Engine(), content.Embedded())
}

func newOn(t testing.TB, engine string, site fs.FS) *App {
	t.Helper()
	ctx := context.Background()
	clock := &Clock{now: Start}
	a := serve(t, testdb.DSN(t, engine, "answerdesk.db"), clock, site)
	db := a.DB
	var err error
	if a.Acme, err = db.CreateAccount(ctx, "1001", "Acme Plumbing", "America/New_York"); err != nil {
		t.Fatal(err)
	}
	if a.Birch, err = db.CreateAccount(ctx, "1002", "Birch Dental", "America/Chicago"); err != nil {
		t.Fatal(err)
	}
	// The numbers, domains and blacklist of the demo data (the demo data Getting started describes).
	for _, step := range []func() error{
		func() error {
			_, err := db.AddPhoneNumber(ctx, a.Acme.ID, "+15550101001", true, "asst_acme")
			return err
		},
		func() error { _, err := db.AddPhoneNumber(ctx, a.Birch.ID, "+15550101002", true, ""); return err },
		func() error { _, err := db.AddSendingDomain(ctx, a.Acme.ID, "acme.example"); return err },
		func() error { _, err := db.AddSendingDomain(ctx, a.Birch.ID, "birch.example"); return err },
		func() error { return db.BlacklistEmail(ctx, a.Acme.ID, "blocked@acme.example") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	a.Alice = a.NewUser(t, "alice@acme.example", false, "1001")
	a.Bob = a.NewUser(t, "bob@birch.example", false, "1002")
	a.Admin = a.NewUser(t, "admin@answerdesk.example", true)
	return a
}

// Mount serves an MCP handler at path (the servers are built by the tests, so that package
// mcp's own tests can use this package) and rebuilds the router.
func (a *App) Mount(path string, h http.Handler) {
	if a.Rest.MCP == nil {
		a.Rest.MCP = map[string]http.Handler{}
	}
	a.Rest.MCP[path] = h
	a.Server.Config.Handler = a.Rest.Handler()
}

// OpenDB opens another store handle on the App's database, as another process (a replica,
// the command line) has one, with the App's clock and secrets; it is closed when the test
// ends.
func (a *App) OpenDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), a.DB.Path())
	if err != nil {
		t.Fatalf("open another handle on the database: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.Now = a.Clock.Now
	db.Secrets = a.DB.Secrets
	return db
}

// NewUser creates a user who is a member of the accounts, with an API token.
func (a *App) NewUser(t testing.TB, email string, admin bool, accounts ...string) User {
	t.Helper()
	ctx := context.Background()
	users := store.NewUserService(a.DB)
	users.Cost = bcrypt.MinCost
	u, err := users.CreateUser(ctx, &answerdesk.UserCreate{Email: email, Password: "test-password", Admin: admin, AccountNumbers: accounts})
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	_, plain, err := store.NewTokenService(a.DB).CreateToken(ctx, u.ID, "test")
	if err != nil {
		t.Fatalf("create token: %v", err)
	}
	return User{User: u, Token: plain}
}

// Caller returns the caller a user's token stands for.
func (a *App) Caller(t testing.TB, u User) *answerdesk.Caller {
	t.Helper()
	c, err := store.NewTokenService(a.DB).AuthenticateToken(context.Background(), u.Token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CreateOnCallContact creates an on-call contact as u from the JSON body of a create
// request.
func (a *App) CreateOnCallContact(t testing.TB, u User, body string) *answerdesk.OnCallContact {
	t.Helper()
	in, err := answerdesk.ParseOnCallContactCreate([]byte(body))
	if err != nil {
		t.Fatalf("parse on-call contact: %v", err)
	}
	c, err := a.Dispatch.CreateOnCallContact(context.Background(), a.Caller(t, u), in)
	if err != nil {
		t.Fatalf("create on-call contact: %v", err)
	}
	return c
}

// CreateToDo creates a To Do as u from the JSON body of a create request.
func (a *App) CreateToDo(t testing.TB, u User, body string) *answerdesk.ToDo {
	t.Helper()
	req, err := answerdesk.ParseToDoCreate([]byte(body))
	if err != nil {
		t.Fatalf("parse To Do: %v", err)
	}
	td, err := a.ToDos.CreateToDo(context.Background(), a.Caller(t, u), req)
	if err != nil {
		t.Fatalf("create To Do: %v", err)
	}
	return td
}

// CreateMessage creates a message as u at the given time through the store, with the given
// JSON fields of a create request.
func (a *App) CreateMessage(t testing.TB, u User, at time.Time, fields map[string]any) *answerdesk.Message {
	t.Helper()
	if _, ok := fields["content"]; !ok {
		fields["content"] = "Test message"
	}
	raw, _ := json.Marshal(fields)
	req, err := answerdesk.ParseMessageCreate(raw)
	if err != nil {
		t.Fatalf("parse message: %v", err)
	}
	return a.createMessage(t, u, at, req)
}

func (a *App) createMessage(t testing.TB, u User, at time.Time, req *answerdesk.MessageCreate) *answerdesk.Message {
	t.Helper()
	saved := a.Clock.Now()
	a.Clock.Set(at)
	defer a.Clock.Set(saved)
	m, err := a.Messages.CreateMessage(context.Background(), a.Caller(t, u), req)
	if err != nil {
		t.Fatalf("create message: %v", err)
	}
	return m
}

// CreateCall creates a recording of a call on u's account, with audio when withAudio, and
// a message that belongs to the call.
func (a *App) CreateCall(t testing.TB, u User, account *answerdesk.Account, at time.Time, skill string, withAudio bool) (*answerdesk.CallRecording, *answerdesk.Message) {
	t.Helper()
	callID := at.UnixMilli()
	rec := &answerdesk.CallRecording{
		AccountID: account.ID, CallID: callID, CallSID: fmt.Sprintf("CA%032x", callID),
		DIDNumber: "+15550101001", From: "+15555550123", StartedAt: answerdesk.NewTime(at),
		CDR: answerdesk.CDR{ID: callID, UniqueCallID: callID, CallType: "InboundCall", CallerID: "+15555550123",
			NumberDialed: "+15550101001", DID: "+15550101001", SkillName: &skill, TalkSec: 60, WaitSec: 5,
			ConnectionSec: 65, StartTime: answerdesk.NewTime(at), CallCreatedAt: answerdesk.NewTime(at)},
	}
	var audio *answerdesk.Audio
	if withAudio {
		audio = &answerdesk.Audio{ContentType: "audio/wav", Data: []byte("RIFF\x24\x00\x00\x00WAVEfmt test audio bytes for range requests")}
	}
	if err := a.DB.CreateCallRecording(context.Background(), rec, audio); err != nil {
		t.Fatalf("create recording: %v", err)
	}
	req, err := answerdesk.ParseMessageCreate([]byte(`{"content":"Caller asked for a callback","origin":"CALL","account_number":"` + account.Number + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.CallID = &callID
	return rec, a.createMessage(t, u, at.Add(2*time.Minute), req)
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("response body is not JSON (%v): %s", err, r.Body)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request with an optional bearer token and body (a string is sent as is,
// anything else as JSON) and returns the response.
func (a *App) Do(t testing.TB, method, path, token string, body any) *Response {
	t.Helper()
	return a.DoWith(t, method, path, token, body, nil)
}

// DoWith is Do with more request headers (conditional requests, content negotiation),
// set after Do's own.
func (a *App) DoWith(t testing.TB, method, path, token string, body any, header http.Header) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.Server.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for name, values := range header {
		req.Header[http.CanonicalHeaderKey(name)] = values
	}
	resp, err := a.Server.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}
