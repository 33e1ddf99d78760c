package mcp

import (
	"context"
	"encoding/json"

	"github.com/answerdesk/answerdesk/internal/lru"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// publicResultBytes is the budget of the public server's cache of tool results.
const publicResultBytes = 8 << 20

// resultCache keeps the results of tools whose answer depends on nothing but the binary's
// content and the call's arguments (the public server's), least recently used first out
// over a byte budget. A result is kept with its structured content encoded once
// (json.RawMessage), so a repeated call neither runs the tool nor encodes the content again.
// Tool errors are never kept.
type resultCache struct{ lru *lru.Cache[*cachedResult] }

type cachedResult struct {
	res *mcpgo.CallToolResult
	enc []byte // res as mcp-go encodes it in a response (for fastCalls)
}

func newResultCache(budget int) *resultCache {
	return &resultCache{lru.New[*cachedResult](int64(budget))}
}

// cached returns st with its handler answering from c, keyed by the tool and its arguments.
func (c *resultCache) cached(st server.ServerTool) server.ServerTool {
	next, name := st.Handler, st.Tool.Name
	st.Handler = func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		key, err := resultKey(name, req.GetArguments())
		if err != nil {
			return next(ctx, req)
		}
		if res, ok := c.get(key); ok {
			return res, nil
		}
		res, err := next(ctx, req)
		if err != nil || res == nil || res.IsError {
			return res, err
		}
		return c.put(key, res), nil
	}
	return st
}

// resultKey is the cache key of a call of tool with args.
func resultKey(tool string, args map[string]any) (string, error) {
	b, err := json.Marshal(args) // map keys sorted: one key per argument set
	if err != nil {
		return "", err
	}
	return tool + "\x00" + string(b), nil
}

// encoded returns the cached result of a call as it appears in a JSON-RPC response.
func (c *resultCache) encoded(tool string, args map[string]any) ([]byte, bool) {
	key, err := resultKey(tool, args)
	if err != nil {
		return nil, false
	}
	r, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	return r.enc, true
}

func (c *resultCache) get(key string) (*mcpgo.CallToolResult, bool) {
	r, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	return r.res, true
}

// put keeps res with its structured content encoded and returns what it keeps.
func (c *resultCache) put(key string, res *mcpgo.CallToolResult) *mcpgo.CallToolResult {
	kept := *res
	cost := len(key) + 256
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return res // the server reports it when it encodes the result
		}
		kept.StructuredContent = json.RawMessage(raw)
		cost += len(raw)
	}
	enc, err := json.Marshal(&kept)
	if err != nil {
		return res
	}
	cost += len(enc)
	for _, ct := range res.Content {
		if t, ok := ct.(mcpgo.TextContent); ok {
			cost += len(t.Text)
		}
	}
	c.lru.Put(key, &cachedResult{res: &kept, enc: enc}, int64(cost)) // not kept over the whole budget
	return &kept
}
