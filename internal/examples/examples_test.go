package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/app"
	"golang.org/x/crypto/bcrypt"
)

// docsOrigin is the address the examples name ($BASE, and the demo's --base-url): curl
// connects to the test's server instead, with the Host the examples send.
const docsOrigin = "localhost:8080"

// lineHeader carries the line of the script a curl ran from, so the server's recorder
// knows which example an exchange belongs to.
const lineHeader = "X-Example-Line"

// pages are the Markdown files whose shell blocks are examples, relative to this package.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../content/data/docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, docs...)
}

// TestExamples runs the shell examples of every page, each page top to bottom in a fresh
// demo as a reader would, and checks every curl's answer against its expectation.
func TestExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the examples run with %s: %v", tool, err)
			}
			t.Skipf("the examples run with %s, which is missing: %v", tool, err)
		}
	}
	var mu sync.Mutex
	var ran, skipped, skippedCurl int
	t.Cleanup(func() {
		t.Logf("examples: %d curl commands ran; %d commands skipped, %d of them curl", ran, skipped, skippedCurl)
	})
	for _, path := range pages(t) {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parsePage(string(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range blocks {
			if b.skip != "" {
				t.Logf("%s:%d: block of %d commands skipped: %s", name, b.line, len(b.commands), b.skip)
			}
			for _, c := range b.commands {
				if c.skip == "" {
					continue
				}
				if b.skip == "" {
					t.Logf("%s:%d skipped: %s", name, c.start, c.skip)
				}
				skipped++
				if c.curl {
					skippedCurl++
				}
			}
		}
		if !slices.ContainsFunc(blocks, func(b *block) bool { return b.skip == "" }) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runPage(t, name, blocks)
			mu.Lock()
			ran += r
			mu.Unlock()
		})
	}
}

// TestParsePage pins the convention on small pages.
func TestParsePage(t *testing.T) {
	for _, c := range []struct {
		name, page string
		want       []string // per command: curl, status, checks, skip
		err        string
	}{
		{"trailing status", "```sh\ncurl \"$BASE/x\"   # 404, account 1002's\n```\n",
			[]string{"curl=true status=404 checks=[] skip="}, ""},
		{"default and continued lines", "```sh\n# a comment\nID=$(curl -s \\\n  -d '{\n \"a\": 1}' \"$BASE/y\" | first_id)\n```\n",
			[]string{"curl=true status=0 checks=[] skip="}, ""},
		{"expect comment", "```sh\ncurl \"$BASE/a\"\ncurl \"$BASE/b\"\n```\n<!-- expect\n/b: 422 code=invalid_parameter data.name=\"Acme Plumbing\"\n/a: skip, needs a host\n-->\n",
			[]string{"curl=true status=0 checks=[] skip=needs a host", "curl=true status=422 checks=[code=invalid_parameter data.name=Acme Plumbing] skip="}, ""},
		{"block skipped", "```sh\nmake run\n```\n\n<!-- expect: skip, builds the binary -->\n", []string{"curl=false status=0 checks=[] skip=builds the binary"}, ""},
		{"ambiguous key", "```sh\ncurl \"$BASE/a\"\ncurl \"$BASE/ab\"\n```\n<!-- expect\n/a: 200\n-->\n", nil, "names 2 commands"},
		{"quoted hash", "```sh\ncurl -d '{\"q\": \"# 500\"}' \"$BASE/a\"\n```\n", []string{"curl=true status=0 checks=[] skip="}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			blocks, err := parsePage(c.page)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range blocks {
				for _, cmd := range b.commands {
					skip := cmd.skip
					if skip == "" {
						skip = b.skip
					}
					got = append(got, fmt.Sprintf("curl=%t status=%d checks=%v skip=%s", cmd.curl, cmd.status, cmd.checks, skip))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestVerify checks that an answer unlike its example's text fails the example.
func TestVerify(t *testing.T) {
	body := []byte(`{"data": [{"id": 501, "status": "delivered", "attempts": [{"http_status": 204}]}], "meta": {"total": 1}}`)
	header := http.Header{"Location": {"/api/v1/batch/jobs/job_1"}}
	for _, c := range []struct {
		name   string
		spec   string // the expectation, as after "KEY: "
		status int    // the answer's
		fails  int    // how many problems
	}{
		{"a success by default", "", 200, 0},
		{"an error where a success is expected", "", 404, 1},
		{"the status named", "404", 404, 0},
		{"another status than named", "404", 200, 1},
		{"facts", "data.0.status=delivered data.0.attempts.0.http_status=204 data.#=1 meta.total=1", 200, 0},
		{"a wrong fact", "data.0.status=failed", 200, 1},
		{"a missing property", "data.0.uuid=x data.3.id=1", 200, 2},
		{"a header", "header.Location~/batch/jobs/ header.Location=/api/v1/batch/jobs/job_1", 202, 0},
		{"a missing header", "header.ETag~W/", 200, 1},
		{"whose it is", "404 admin.data.account_id=2", 404, 0},
		{"whose it is not", "404 admin.data.account_id=1", 404, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := &command{}
			if err := cmd.parseChecks(c.spec); err != nil {
				t.Fatal(err)
			}
			asAdmin := func(e exchange) (exchange, error) {
				return exchange{status: 200, body: []byte(`{"data": {"id": 499, "account_id": 2}}`)}, nil
			}
			problems := cmd.verify(exchange{status: c.status, header: header, body: body}, asAdmin)
			if len(problems) != c.fails {
				t.Errorf("problems %q, want %d", problems, c.fails)
			}
		})
	}
}

// block is a shell block of a page.
type block struct {
	line     int    // of its opening fence
	skip     string // why it does not run
	commands []*command
}

// command is one shell command of a block: a line, or several joined by quotes,
// parentheses or a trailing backslash.
type command struct {
	start, end int // its first and last line in the page
	text       string
	curl       bool // it runs curl
	status     int  // the status it must answer; 0: any success
	checks     []check
	skip       string // why it does not run
}

// check is one fact an answer must show: PATH=VALUE or PATH~TEXT.
type check struct {
	path     string
	contains bool
	value    string
}

func (c check) String() string {
	op := "="
	if c.contains {
		op = "~"
	}
	return c.path + op + c.value
}

var (
	fence        = regexp.MustCompile("^```(\\S*)\\s*$")
	statusNote   = regexp.MustCompile(`^#\s*(\d{3})\b`)
	runsCurl     = regexp.MustCompile(`(?:^|\$\(|\|)\s*curl\s`)
	assignment   = regexp.MustCompile(`^[A-Za-z_]\w*=`)
	functionDef  = regexp.MustCompile(`^[A-Za-z_]\w*\(\)\s*\{`)
	checkPattern = regexp.MustCompile(`^([^=~\s]+)([=~])("(?:[^"\\]|\\.)*"|\S*)`)
)

// parsePage reads the shell blocks of a Markdown page and the expectations after them.
func parsePage(src string) ([]*block, error) {
	lines := strings.Split(src, "\n")
	var blocks []*block
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if m[1] != "sh" {
			i = end
			continue
		}
		b := &block{line: i + 1, commands: splitCommands(lines[i+1:end], i+2)}
		if err := b.expect(lines[end+1:]); err != nil {
			return nil, fmt.Errorf("block at line %d: %w", b.line, err)
		}
		blocks = append(blocks, b)
		i = end
	}
	return blocks, nil
}

// splitCommands splits a block's lines into commands; first is the page line of lines[0].
// A comment at the end of a command's line stays in its text (bash ignores it), and one
// that starts with a status sets the command's status.
func splitCommands(lines []string, first int) []*command {
	var out []*command
	var cur *command
	var single, double bool
	depth := 0
	for n, line := range lines {
		if cur == nil {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cur = &command{start: first + n}
		}
		comment := ""
		for j := 0; j < len(line); j++ {
			c := line[j]
			switch {
			case single:
				single = c != '\''
			case c == '\\' && j+1 < len(line):
				j++
			case double:
				double = c != '"'
			case c == '\'':
				single = true
			case c == '"':
				double = true
			case c == '(':
				depth++
			case c == ')':
				depth--
			case c == '#' && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t'):
				comment = strings.TrimSpace(line[j:])
				j = len(line)
			}
		}
		cur.text += line + "\n"
		if m := statusNote.FindStringSubmatch(comment); m != nil {
			cur.status, _ = strconv.Atoi(m[1])
		}
		if single || double || depth > 0 || strings.HasSuffix(strings.TrimRight(line, " \t"), "\\") {
			continue
		}
		cur.end = first + n
		cur.curl = runsCurl.MatchString(strings.TrimSpace(cur.text))
		out = append(out, cur)
		cur = nil
	}
	if cur != nil {
		cur.end = first + len(lines) - 1
		out = append(out, cur)
	}
	return out
}

// expect reads the expectation comment that may follow the block (after blank lines).
func (b *block) expect(after []string) error {
	i := 0
	for i < len(after) && strings.TrimSpace(after[i]) == "" {
		i++
	}
	if i == len(after) || !strings.HasPrefix(after[i], "<!-- expect") {
		return nil
	}
	head := strings.TrimPrefix(after[i], "<!-- expect")
	if rest, ok := strings.CutPrefix(head, ":"); ok {
		rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "-->"))
		reason, ok := strings.CutPrefix(rest, "skip,")
		if !ok {
			return fmt.Errorf("<!-- expect: %s -->: a one-line expectation is \"skip, REASON\"", rest)
		}
		b.skip = strings.TrimSpace(reason)
		for _, c := range b.commands {
			c.skip = b.skip
		}
		return nil
	}
	for _, line := range after[i+1:] {
		if strings.TrimSpace(line) == "-->" {
			return nil
		}
		key, spec, ok := splitExpectation(line)
		if !ok {
			return fmt.Errorf("expectation %q is not KEY: CHECKS", line)
		}
		var hits []*command
		for _, c := range b.commands {
			if strings.Contains(c.text, key) {
				hits = append(hits, c)
			}
		}
		if len(hits) != 1 {
			return fmt.Errorf("expectation key %q names %d commands of the block, not one", key, len(hits))
		}
		if err := hits[0].parseChecks(strings.TrimSpace(spec)); err != nil {
			return fmt.Errorf("expectation %q: %w", line, err)
		}
	}
	return fmt.Errorf("the expectation comment has no closing -->")
}

// splitExpectation splits "KEY: CHECKS" at the first ": " that checks follow, so that a
// key may hold ": " itself (a piece of JSON).
func splitExpectation(line string) (key, spec string, ok bool) {
	for i := 0; ; {
		j := strings.Index(line[i:], ": ")
		if j < 0 {
			return "", "", false
		}
		key, spec = line[:i+j], strings.TrimSpace(line[i+j+2:])
		if fields := strings.Fields(spec); len(fields) > 0 {
			n, err := strconv.Atoi(fields[0])
			if strings.HasPrefix(spec, "skip,") || err == nil && n >= 100 && n < 600 || checkPattern.MatchString(spec) {
				return key, spec, true
			}
		}
		i += j + 2
	}
}

// parseChecks reads "skip, REASON" or a list of checks.
func (c *command) parseChecks(spec string) error {
	if reason, ok := strings.CutPrefix(spec, "skip,"); ok {
		c.skip = strings.TrimSpace(reason)
		return nil
	}
	for spec = strings.TrimSpace(spec); spec != ""; spec = strings.TrimSpace(spec) {
		if n, err := strconv.Atoi(strings.Fields(spec)[0]); err == nil && n >= 100 && n < 600 {
			c.status = n
			spec = strings.TrimPrefix(spec, strings.Fields(spec)[0])
			continue
		}
		m := checkPattern.FindStringSubmatch(spec)
		if m == nil {
			return fmt.Errorf("%q is neither a status nor PATH=VALUE", strings.Fields(spec)[0])
		}
		value := m[3]
		if strings.HasPrefix(value, `"`) {
			var err error
			if value, err = strconv.Unquote(value); err != nil {
				return fmt.Errorf("%s: %w", m[0], err)
			}
		}
		c.checks = append(c.checks, check{path: m[1], contains: m[2] == "~", value: value})
		spec = spec[len(m[0]):]
	}
	return nil
}

// runPage runs the page's examples in one bash script, in order, against a fresh demo, and
// checks each curl's answers; it returns how many curl commands ran.
func runPage(t *testing.T, name string, blocks []*block) (ran int) {
	t.Helper()
	srv := startDemo(t, needsContent(blocks))
	var script strings.Builder
	// Every curl goes to the test's server with the Host the examples name, and says which
	// line of the script it runs from; -q keeps a user's .curlrc out.
	fmt.Fprintf(&script, "curl() { command curl -q --no-progress-meter --connect-to %s:%s -H \"%s: ${BASH_LINENO[0]}\" \"$@\"; }\n",
		docsOrigin, srv.addr, lineHeader)
	lineOf := []*command{nil, nil} // script line (1-based) -> command
	for _, b := range blocks {
		for _, c := range b.commands {
			switch {
			case c.skip != "":
				continue
			case !c.curl && !assignment.MatchString(c.text) && !functionDef.MatchString(c.text) && !strings.HasPrefix(c.text, "export "):
				t.Errorf("%s:%d: %q is not curl, an assignment or a function; mark it <!-- expect ... skip, REASON --> if it cannot run against the demo",
					name, c.start, firstLine(c.text))
				continue
			}
			script.WriteString(c.text)
			for range strings.Count(c.text, "\n") {
				lineOf = append(lineOf, c)
			}
		}
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "BASE=http://"+docsOrigin, "TOKEN="+srv.creds.Token, "ADMIN="+srv.creds.AdminToken)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		t.Fatalf("%s: the examples did not finish: %v\n%s", name, err, out.String())
	}

	exchanges := srv.rec.taken()
	byCommand := map[*command][]exchange{}
	for _, e := range exchanges {
		if e.line <= 0 || e.line >= len(lineOf) {
			t.Errorf("%s: an exchange from script line %d, which is no example's", name, e.line)
			continue
		}
		byCommand[lineOf[e.line]] = append(byCommand[lineOf[e.line]], e)
	}
	for _, b := range blocks {
		for _, c := range b.commands {
			if c.skip != "" || !c.curl {
				continue
			}
			ran++
			es := byCommand[c]
			if len(es) == 0 {
				t.Errorf("%s:%d: %s\n  reached no server (the end of the script's output:\n%s)", name, c.start, firstLine(c.text), tail(out.String()))
				continue
			}
			for _, e := range es {
				if problems := c.verify(e, srv.asAdmin); len(problems) > 0 {
					t.Errorf("%s:%d: %s\n  %s %s answered %d: %s\n  %s", name, c.start, firstLine(c.text),
						e.method, e.url, e.status, strings.Join(problems, "; "), clip(e.body))
				}
			}
		}
	}
	t.Logf("%s: %d curl commands ran", name, ran)
	return ran
}

// verify returns what in the exchange differs from the command's expectation. asAdmin makes
// the same request with the admin token, for the checks of what an admin sees (admin.PATH).
func (c *command) verify(e exchange, asAdmin func(exchange) (exchange, error)) []string {
	var problems []string
	switch {
	case c.status == 0 && (e.status < 200 || e.status > 299):
		problems = append(problems, "want a success (2xx)")
	case c.status != 0 && e.status != c.status:
		problems = append(problems, fmt.Sprintf("want %d", c.status))
	}
	var admin *exchange
	for _, ch := range c.checks {
		on, path := e, ch.path
		if rest, ok := strings.CutPrefix(path, "admin."); ok {
			if admin == nil {
				a, err := asAdmin(e)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", ch, err))
					continue
				}
				admin = &a
			}
			on, path = *admin, rest
		}
		var got string
		var found bool
		if name, ok := strings.CutPrefix(path, "header."); ok {
			got, found = on.header.Get(name), on.header.Get(name) != ""
		} else {
			var body any
			if err := json.Unmarshal(on.body, &body); err != nil {
				problems = append(problems, fmt.Sprintf("%s: the body is not JSON (%v)", ch, err))
				continue
			}
			got, found = lookup(body, path)
		}
		switch {
		case !found:
			problems = append(problems, fmt.Sprintf("%s: no %s", ch, ch.path))
		case ch.contains && !strings.Contains(got, ch.value), !ch.contains && got != ch.value:
			problems = append(problems, fmt.Sprintf("%s: it is %q", ch, got))
		}
	}
	return problems
}

// lookup finds a dotted path in a JSON value: object keys, array indexes, and # for a
// length. Strings are returned as they are, other values as JSON.
func lookup(v any, path string) (string, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			if part == "#" {
				v = float64(len(x))
				continue
			}
			var ok bool
			if v, ok = x[part]; !ok {
				return "", false
			}
		case []any:
			if part == "#" {
				v = float64(len(x))
				continue
			}
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

// demoServer is a fresh demo (serve --demo) on a SQLite file of the test, served on a
// loopback address.
type demoServer struct {
	addr  string
	creds *demo.Credentials
	rec   *recorder
}

// servedFromContent are the paths that only a server with the content answers: the site,
// the docs, the public API and the MCP servers.
var servedFromContent = regexp.MustCompile(`(\$BASE|localhost:8080)/(api/v1|api/sandbox|docs|llms|sitemap|pricing|services|mcp|\.well-known|"|$)`)

// needsContent reports whether a page's examples ask for what the content serves: building
// the site and its search indexes is most of a server's start, which the other pages skip.
func needsContent(blocks []*block) bool {
	for _, b := range blocks {
		for _, c := range b.commands {
			if c.skip == "" && c.curl && servedFromContent.MatchString(c.text) {
				return true
			}
		}
	}
	return false
}

func startDemo(t *testing.T, withContent bool) *demoServer {
	t.Helper()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := netip.MustParseAddrPort(ln.Addr().String())
	cfg := app.Config{
		DB:           filepath.Join(t.TempDir(), "answerdesk.db"),
		BaseURL:      "http://" + docsOrigin,
		Key:          []byte("examples-signing-key-0123456789abcdef"),
		PasswordCost: bcrypt.MinCost,
		Version:      "test",
		// As serve's defaults: the public rate limit, and the demo receiver that the demo's
		// on-call contact delivers to.
		PublicRateLimit: 60,
		DemoReceiver:    self,
	}
	if withContent {
		cfg.Content = content.Embedded()
	}
	m, err := app.Open(ctx, cfg)
	if err != nil {
		_ = ln.Close()
		t.Fatalf("open the service: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	creds, err := demo.Seed(ctx, m.DB, demo.Options{ReceiverURL: "http://" + self.String() + "/demo/receiver"})
	if err != nil {
		t.Fatalf("seed the demo: %v", err)
	}
	m.Start(ctx)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	// A reader types the next command a moment after the last: by then a message just
	// created has been pushed to the demo receiver. The examples wait for that too, so that
	// what they show (a delivery "delivered") does not depend on how fast the test runs.
	rec := &recorder{settle: func() {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var due int
			err := m.DB.SQL().QueryRowContext(ctx, `SELECT count(*) FROM dispatch_deliveries
				WHERE status = 'sending' OR status = 'pending' AND next_attempt_at <= ?`, time.Now().UnixMilli()).Scan(&due)
			if err != nil || due == 0 {
				return
			}
		}
	}}
	server := &http.Server{Handler: rec.wrap(m.Handler), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(ln) }()
	t.Cleanup(func() { _ = server.Close() })
	return &demoServer{addr: self.String(), creds: creds, rec: rec}
}

// asAdmin makes the exchange's GET again with the demo's admin token, who sees every
// account: what an admin sees says whose a resource the demo token cannot see is.
func (s *demoServer) asAdmin(e exchange) (exchange, error) {
	if e.method != http.MethodGet {
		return exchange{}, fmt.Errorf("admin checks are for GET requests, not %s", e.method)
	}
	req, err := http.NewRequest(http.MethodGet, "http://"+s.addr+e.url, nil)
	if err != nil {
		return exchange{}, fmt.Errorf("ask as the admin: %w", err)
	}
	req.Host = docsOrigin
	req.Header.Set("Authorization", "Bearer "+s.creds.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return exchange{}, fmt.Errorf("ask as the admin: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return exchange{}, fmt.Errorf("ask as the admin: %w", err)
	}
	return exchange{method: e.method, url: e.url, status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// exchange is a request an example made and the answer it got.
type exchange struct {
	line        int // of the script
	method, url string
	status      int
	header      http.Header
	body        []byte
}

// recorder keeps the exchanges of requests that carry lineHeader; it calls settle before
// serving each.
type recorder struct {
	settle    func()
	mu        sync.Mutex
	exchanges []exchange
}

func (rec *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line, err := strconv.Atoi(r.Header.Get(lineHeader))
		if err != nil {
			h.ServeHTTP(w, r)
			return
		}
		rec.settle()
		rw := &recordingWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rw, r)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.exchanges = append(rec.exchanges, exchange{line: line, method: r.Method, url: r.URL.String(),
			status: rw.status, header: w.Header().Clone(), body: rw.body.Bytes()})
	})
}

func (rec *recorder) taken() []exchange {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.exchanges)
}

// recordingWriter keeps the status and up to maxRecorded bytes of the body it writes.
type recordingWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

const maxRecorded = 1 << 20

func (w *recordingWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	if room := maxRecorded - w.body.Len(); room > 0 {
		w.body.Write(p[:min(len(p), room)])
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ReadFrom keeps io.Copy's fast path from going around Write.
func (w *recordingWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{w}, r)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// tail returns the last lines of a script's output.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}

func clip(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
