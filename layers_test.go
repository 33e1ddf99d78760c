package answerdesk_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportLayers holds the packages to the layers ARCHITECTURE.md draws: the domain (this
// package) imports no other package of the module; the packages for one outside concern
// never import the store, internal/app or one another's HTTP or MCP side; only the
// wiring (internal/app, cmd/answerdesk), the demo generator and the test and load tools
// import the store.
func TestImportLayers(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/answerdesk/answerdesk"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		for _, imp := range f[1:] {
			if rest, ok := strings.CutPrefix(imp, mod); ok {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(rest, "/"))
			}
		}
	}
	if len(imports[""]) > 0 {
		t.Errorf("the domain package imports %v", imports[""])
	}
	mayImportStore := []string{"store", "internal/app", "cmd/answerdesk", "demo", "internal/testapp", "internal/cmd/loadgen"}
	concerns := []string{"rest", "mcp", "dispatch", "oauth", "search", "content", "public", "ratelimit", "audiodir", "s3"}
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch {
			case imp == "store" && !slices.Contains(mayImportStore, pkg):
				t.Errorf("%s imports store: only the wiring reaches the database", pkg)
			case imp == "internal/app" && pkg != "cmd/answerdesk" && pkg != "internal/testapp":
				t.Errorf("%s imports internal/app", pkg)
			case slices.Contains(concerns, pkg) && slices.Contains([]string{"rest", "mcp", "dispatch", "oauth"}, imp):
				t.Errorf("%s imports %s: the two meet only in internal/app", pkg, imp)
			}
		}
	}
}
