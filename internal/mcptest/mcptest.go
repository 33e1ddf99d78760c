// Package mcptest is the client side of the tests of the MCP servers: connect an mcp-go
// client to an endpoint, call a tool, read a result's text. The tests of mcp, oauth and
// internal/badinput share it rather than each setting up a client of their own.
package mcptest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Connect starts an mcp-go client over Streamable HTTP on the endpoint url and initializes
// it, asking for the protocol version given (the client's own choice, the stateless core,
// when ""). The client is closed when the test ends. Requests time out after 30 seconds,
// so a server that hangs fails the test instead of the run; opts come after and may say
// otherwise (headers, another client).
func Connect(t testing.TB, url, version string, opts ...transport.StreamableHTTPCOption) (*client.Client, *mcpgo.InitializeResult) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, append([]transport.StreamableHTTPCOption{transport.WithHTTPTimeout(30 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatalf("MCP transport to %s: %v", url, err)
	}
	var copts []client.ClientOption
	if version != "" {
		copts = append(copts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, copts...)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start the MCP client of %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "answerdesk-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize %s: %v", url, err)
	}
	return c, res
}

// Call calls a tool and fails the test on a protocol error; a tool error is the result's.
func Call(t testing.TB, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// Text is the text content of a result, its parts joined by newlines.
func Text(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
