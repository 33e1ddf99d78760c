package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
	"github.com/mark3labs/mcp-go/server"
)

// snapshotBase is the base URL the snapshots are made with (tool descriptions show it).
const snapshotBase = "https://answerdesk.example"

// definitionsOnly are services for building the account server only to read its tool
// definitions (snapshots); no tool is called.
var definitionsOnly = AccountServices{Messages: &store.MessageService{}, Recordings: &store.RecordingService{}, ToDos: &store.ToDoService{}, API: rest.OpenAPIV2()}

// TestToolSnapshots compares every tool definition (what a model sees in tools/list) and
// each server's instructions with the golden files in testdata/tools. Run with
// UPDATE_SNAPSHOTS=1 to rewrite them after an intended change, and review the diff.
func TestToolSnapshots(t *testing.T) {
	cfg := testConfig(t, snapshotBase)
	update := os.Getenv("UPDATE_SNAPSHOTS") != ""
	dir := filepath.Join("testdata", "tools")
	want := map[string]bool{}
	for _, srv := range []struct {
		name string
		s    *server.MCPServer
		inst string
	}{
		{"public", NewPublicServer(cfg), publicInstructions},
		{"docs", NewDocsServer(cfg), docsInstructions},
		{"account", NewAccountServer(cfg, definitionsOnly), accountInstructions},
	} {
		for name, tool := range srv.s.ListTools() {
			got, err := json.MarshalIndent(tool.Tool, "", "  ")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			file := name + ".json"
			want[file] = true
			snapshot(t, filepath.Join(dir, file), append(got, '\n'), update)
		}
		file := srv.name + "_instructions.md"
		want[file] = true
		snapshot(t, filepath.Join(dir, file), []byte(srv.inst+"\n"), update)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if update {
				_ = os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("%s: no such tool any more; run UPDATE_SNAPSHOTS=1 go test ./mcp -run TestToolSnapshots to remove it", e.Name())
		}
	}
}

func snapshot(t *testing.T, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v; run UPDATE_SNAPSHOTS=1 go test ./mcp -run TestToolSnapshots to create it", path, err)
		return
	}
	if !bytes.Equal(old, got) {
		t.Errorf("%s drifted from the snapshot (what models see changed); review and run UPDATE_SNAPSHOTS=1 go test ./mcp -run TestToolSnapshots\n%s",
			path, firstDiff(string(old), string(got)))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n  snapshot: " + x + "\n  now:      " + y
		}
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestToolDefinitions checks what every tool of the public and docs servers must have: a
// description, described arguments, an object output schema, and explicit read-only
// annotations. TestAccountToolDefinitions checks the account server's.
func TestToolDefinitions(t *testing.T) {
	cfg := testConfig(t, snapshotBase)
	for _, s := range []*server.MCPServer{NewPublicServer(cfg), NewDocsServer(cfg)} {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range s.ListTools() {
				if !yield(n) {
					return
				}
			}
		})
		for _, name := range names {
			tool := s.ListTools()[name].Tool
			t.Run(name, func(t *testing.T) {
				if len(tool.Description) < 80 {
					t.Errorf("description too short for a model: %q", tool.Description)
				}
				for arg, p := range tool.InputSchema.Properties {
					if d, _ := p.(map[string]any)["description"].(string); d == "" {
						t.Errorf("argument %s has no description", arg)
					}
				}
				if tool.InputSchema.AdditionalProperties != false {
					t.Errorf("input schema allows unknown arguments")
				}
				if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
					t.Errorf("no output schema: %+v", tool.OutputSchema)
				}
				a := tool.Annotations
				if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
					a.OpenWorldHint == nil || *a.OpenWorldHint || a.IdempotentHint == nil || !*a.IdempotentHint || a.Title == "" {
					t.Errorf("annotations: %+v", a)
				}
			})
		}
	}
}
