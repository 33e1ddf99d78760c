package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// fastCaches maps a server built by NewPublicServer to its result cache, for Handler.
var fastCaches sync.Map // *server.MCPServer -> *resultCache

// fastCalls answers a tools/call whose result is already in the public server's cache
// without going through mcp-go's request path (a goroutine, channels and an ephemeral
// session per request, the body decoded three times, the result encoded twice): under load
// that was most of the time of a cached call. It takes only the plainest request, exactly
// as mcp-go would accept it (POST, Content-Type application/json, a supported pre-2026
// Mcp-Protocol-Version, a session ID valid for the caller, no Origin, a body of jsonrpc,
// id, method tools/call and params of name and arguments only), spends the same rate
// limit, and writes the bytes mcp-go would write. Anything else, and every cache miss,
// goes to mcp-go untouched.
//
// What mcp-go would do besides the tool middleware (logCalls, rateLimitCalls) is nothing
// for this server: it has no hooks, tool filters, input validation or session tools. A
// change that adds one to the public server must teach this path too, or keep it off.
type fastCalls struct {
	cache    *resultCache
	sessions sessionIDs
	cfg      Config
	now      func() time.Time
	logger   *slog.Logger
	served   atomic.Int64 // calls answered here (tests tell the paths apart by it)
}

// fastRequest is the only request shape taken; an unknown member sends the request to
// mcp-go (DisallowUnknownFields), so _meta, task and the like keep their full handling.
type fastRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

// serve answers r and returns true, or returns false having read nothing that the next
// handler cannot read again (the body is put back).
func (f *fastCalls) serve(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header
	if r.Method != http.MethodPost || r.Body == nil || h.Get("Origin") != "" || h.Get("Content-Type") != "application/json" {
		return false
	}
	if v := h.Get(mcpgo.HeaderProtocolVersion); v == "" || !mcpgo.IsValidProtocolVersion(v) || mcpgo.IsModernProtocol(v) {
		return false
	}
	if terminated, err := f.sessions.ResolveSessionIdManager(r).Validate(h.Get(server.HeaderKeySessionID)); err != nil || terminated {
		return false // mcp-go answers 404
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req fastRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if dec.Decode(&req) != nil || req.JSONRPC != mcpgo.JSONRPC_VERSION || req.Method != string(mcpgo.MethodToolsCall) {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false // trailing data: mcp-go's json.Unmarshal refuses it
	}
	// The id and the arguments as mcp-go decodes and re-encodes them, so the key and the
	// echoed id are the same bytes.
	var id, arguments any
	if len(req.ID) == 0 || json.Unmarshal(req.ID, &id) != nil {
		return false
	}
	switch id.(type) {
	case string, float64:
	default:
		return false
	}
	if len(req.Params.Arguments) > 0 && json.Unmarshal(req.Params.Arguments, &arguments) != nil {
		return false
	}
	args, _ := arguments.(map[string]any)
	if arguments != nil && args == nil {
		return false // not an object: the tool's own error
	}
	result, ok := f.cache.encoded(req.Params.Name, args)
	if !ok {
		return false
	}
	idJSON, err := json.Marshal(mcpgo.NewRequestId(id))
	if err != nil {
		return false
	}
	start := time.Now()
	ctx := r.Context()
	isError := false
	if f.cfg.Limiter != nil {
		if refused := spendPublic(ctx, f.cfg, f.now, f.logger); refused != nil {
			if result, err = json.Marshal(refused); err != nil {
				return false
			}
			isError = true
		}
	}
	if f.logger.Enabled(ctx, slog.LevelDebug) {
		f.logger.Log(ctx, slog.LevelDebug, "mcp tool call", "tool", req.Params.Name, "is_error", isError,
			"duration", time.Since(start), "err", nil)
	}
	out := make([]byte, 0, len(result)+len(idJSON)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, idJSON...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	out = append(out, "}\n"...)
	wh := w.Header()
	wh.Add("Vary", "Origin") // as mcp-go's CORS handling does on every response
	wh.Set("Content-Type", "application/json")
	wh.Set("Content-Length", strconv.Itoa(len(out)))
	f.served.Add(1) // before the write: a client may read the response before Write returns
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	return true
}

// errReader returns its error: the rest of a body whose read failed.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
