package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/internal/mcptest"
	"github.com/answerdesk/answerdesk/search"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The shipped content and its index, built once for every test of the package.
var (
	loadOnce sync.Once
	testSite *content.Site
	testIx   *search.Index
	loadErr  error
)

func shipped(t testing.TB) (*content.Site, *search.Index) {
	t.Helper()
	loadOnce.Do(func() {
		testSite, loadErr = content.Load(content.Embedded())
		if loadErr == nil {
			testIx, loadErr = search.Build(testSite.Pages)
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return testSite, testIx
}

// testConfig is a Config over the shipped content with the given base URL.
func testConfig(t testing.TB, base string) Config {
	site, ix := shipped(t)
	return Config{Site: site, Index: ix, BaseURL: base, Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// served is an MCP server behind Handler on an httptest server.
type served struct {
	srv   *httptest.Server
	url   string // the endpoint
	cfg   Config
	cache *resultCache // the public server's result cache; nil on the docs server
}

// serve mounts the public or docs server (kind) at /mcp/<kind>. The base URL is the test
// server's own URL unless cfg.BaseURL is set by mutate.
func serve(t testing.TB, kind string, mutate func(*Config)) *served {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	cfg := testConfig(t, base)
	if mutate != nil {
		mutate(&cfg)
	}
	path := "/mcp/" + kind
	var cache *resultCache
	switch kind {
	case "public":
		ps := NewPublicServer(cfg)
		if c, ok := fastCaches.Load(ps); ok {
			cache = c.(*resultCache)
		}
		srv.Config.Handler = Handler(ps, path, cfg)
	case "docs":
		srv.Config.Handler = Handler(NewDocsServer(cfg), path, cfg)
	default:
		t.Fatalf("unknown server %q", kind)
	}
	srv.Start()
	t.Cleanup(func() {
		if s, ok := srv.Config.Handler.(interface{ Shutdown(context.Context) error }); ok {
			_ = s.Shutdown(context.Background())
		}
		srv.Close()
	})
	return &served{srv: srv, url: srv.URL + path, cfg: cfg, cache: cache}
}

// connect starts an initialized mcp-go client over Streamable HTTP. With legacy set it
// uses the initialize handshake of protocol 2025-11-25 (sessions) instead of the
// stateless 2026-07-28 core.
func (s *served) connect(t testing.TB, legacy bool) *client.Client {
	c, _ := s.connectInit(t, legacy)
	return c
}

// connectInit is connect, with the initialize result.
func (s *served) connectInit(t testing.TB, legacy bool) (*client.Client, *mcpgo.InitializeResult) {
	t.Helper()
	return connectURL(t, s.url, legacy)
}

// connectWith connects to the endpoint url as connect does, with extra transport options.
func connectWith(t testing.TB, url string, legacy bool, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, _ := connectURL(t, url, legacy, opts...)
	return c
}

// connectURL starts an initialized mcp-go client on the endpoint url (see connect), closed
// when the test ends, and returns it with the initialize result.
func connectURL(t testing.TB, url string, legacy bool, opts ...transport.StreamableHTTPCOption) (*client.Client, *mcpgo.InitializeResult) {
	t.Helper()
	version := ""
	if legacy {
		version = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	}
	return mcptest.Connect(t, url, version, opts...)
}

func TestMain(m *testing.M) {
	validateOutput = true // every structured result is checked against its output schema
	os.Exit(m.Run())
}

// listTools lists the server's tools and returns them with their names, sorted.
func listTools(t testing.TB, c *client.Client) ([]mcpgo.Tool, []string) {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(res.Tools))
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return res.Tools, names
}

// call calls a tool and fails the test on a protocol error; text is the text content of a
// result. They are mcptest's, under the short names these tests use.
var (
	call = mcptest.Call
	text = mcptest.Text
)

// structured decodes a result's structured content into v, failing on a tool error.
func structured(t testing.TB, res *mcpgo.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	if res.StructuredContent == nil {
		t.Fatalf("no structured content; text: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode structured content %s: %v", b, err)
	}
}

// wantToolError asserts a tool error whose message contains every fragment.
func wantToolError(t testing.TB, res *mcpgo.CallToolResult, fragments ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got a result: %s", text(res))
	}
	msg := text(res)
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("tool error %q does not contain %q", msg, f)
		}
	}
}
