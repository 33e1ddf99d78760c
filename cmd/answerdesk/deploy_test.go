package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// unitDirectives parses a systemd unit file into directive: values (continuation lines
// joined), in order.
func unitDirectives(t *testing.T, text string) map[string][]string {
	t.Helper()
	text = strings.ReplaceAll(text, "\\\n", " ")
	out := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("unit line %q is not key=value", line)
		}
		out[k] = append(out[k], strings.Join(strings.Fields(v), " "))
	}
	return out
}

// checkServeArgs parses and validates a serve command line exactly as the binary does.
func checkServeArgs(t *testing.T, args []string) serveConfig {
	t.Helper()
	var cfg serveConfig
	if _, err := serveFlags(&cfg, os.Stderr).parse(args); err != nil {
		t.Fatalf("serve %v: %v", args, err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatalf("serve %v: %v", args, err)
	}
	return cfg
}

func TestSystemdUnit(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/answerdesk.service")
	if err != nil {
		t.Fatal(err)
	}
	d := unitDirectives(t, string(raw))
	t.Run("hardened", func(t *testing.T) {
		for k, want := range map[string]string{
			"DynamicUser": "yes", "StateDirectory": "answerdesk", "ProtectSystem": "strict", "ProtectHome": "yes",
			"NoNewPrivileges": "yes", "PrivateTmp": "yes", "KillSignal": "SIGTERM", "CapabilityBoundingSet": "",
		} {
			if len(d[k]) == 0 || d[k][0] != want {
				t.Errorf("%s=%v, want %q", k, d[k], want)
			}
		}
	})
	t.Run("exec_start_is_a_valid_serve_command_line", func(t *testing.T) {
		args := strings.Fields(d["ExecStart"][0])
		if args[0] != "/usr/local/bin/answerdesk" || args[1] != "serve" {
			t.Fatalf("ExecStart %v", args)
		}
		cfg := checkServeArgs(t, args[2:])
		if !strings.HasPrefix(cfg.db, "/var/lib/answerdesk/") {
			t.Errorf("--db %s is outside the StateDirectory, which is the only writable place", cfg.db)
		}
		if cfg.logFormat != "json" || !strings.HasPrefix(cfg.baseURL, "https://") || len(cfg.trustedProxies) == 0 {
			t.Errorf("want JSON logs, an https base URL and a trusted proxy: %+v", cfg)
		}
	})
	t.Run("systemd_analyze_verify", func(t *testing.T) {
		analyze, err := exec.LookPath("systemd-analyze")
		if err != nil {
			t.Skip("systemd-analyze is not installed")
		}
		// verify checks that ExecStart's binary exists: point it at this test binary.
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		unit := filepath.Join(t.TempDir(), "answerdesk.service")
		if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(raw), "/usr/local/bin/answerdesk", self)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
		// Lines about other units on the host are not ours.
		var ours []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if strings.Contains(l, "answerdesk") {
				ours = append(ours, l)
			}
		}
		if err != nil || len(ours) > 0 {
			t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
		}
	})
}

func TestDockerfile(t *testing.T) {
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	lines := map[string][]string{}
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			lines[f[0]] = append(lines[f[0]], strings.Join(f[1:], " "))
		}
	}
	if len(lines["FROM"]) < 2 {
		t.Errorf("want a multi-stage build, have FROM %v", lines["FROM"])
	}
	if !strings.Contains(text, "CGO_ENABLED=0") {
		t.Error("the binary is not built static (CGO_ENABLED=0)")
	}
	if u := lines["USER"]; len(u) != 1 || strings.HasPrefix(u[0], "0") || strings.HasPrefix(u[0], "root") {
		t.Errorf("USER %v, want a non-root user", u)
	}
	if v := lines["VOLUME"]; len(v) != 1 || !strings.Contains(v[0], "/data") {
		t.Errorf("VOLUME %v, want /data", v)
	}
	hc := strings.Join(lines["HEALTHCHECK"], " ")
	if !strings.Contains(hc, "/readyz") || !strings.Contains(hc, "healthcheck") {
		t.Errorf("HEALTHCHECK %q, want the binary asking /readyz", hc)
	}
	// The image's environment is a valid serve configuration, and the health check asks
	// the port it listens on.
	env := regexp.MustCompile(`(ANSWERDESK_[A-Z_]+)=(\S+)`).FindAllStringSubmatch(strings.Join(lines["ENV"], " "), -1)
	if len(env) == 0 {
		t.Fatal("no ANSWERDESK_ environment in the image")
	}
	for _, kv := range env {
		t.Setenv(kv[1], kv[2])
	}
	cfg := checkServeArgs(t, nil)
	if !strings.HasPrefix(cfg.db, "/data/") {
		t.Errorf("the database %s is not on the /data volume", cfg.db)
	}
	if _, port, _ := strings.Cut(cfg.addr, ":"); !strings.Contains(hc, "127.0.0.1:"+port+"/readyz") {
		t.Errorf("HEALTHCHECK %q does not ask the listen port %s", hc, port)
	}
}

func TestProxyExamples(t *testing.T) {
	for _, file := range []string{"../../deploy/Caddyfile", "../../deploy/nginx.conf"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		// Both proxy to the unit's --addr, and keep /metrics off the public name.
		for _, want := range []string{"127.0.0.1:8080", "/metrics", "answerdesk.example.com", "--trusted-proxy 127.0.0.1"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not mention %s", file, want)
			}
		}
	}
}

func TestHealthcheckCommand(t *testing.T) {
	status := http.StatusOK
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	}))
	defer ts.Close()
	if out, errOut, code := runExit(t, "", "healthcheck", "--url", ts.URL+"/readyz"); code != 0 {
		t.Fatalf("ready: %d %s %s", code, out, errOut)
	}
	status = http.StatusServiceUnavailable
	if _, errOut, code := runExit(t, "", "healthcheck", "--url", ts.URL+"/readyz"); code != 1 || !strings.Contains(errOut, "503") {
		t.Fatalf("unavailable: %d %s", code, errOut)
	}
	// Without --url it asks the port of ANSWERDESK_ADDR.
	t.Setenv("ANSWERDESK_ADDR", strings.TrimPrefix(ts.URL, "http://127.0.0.1"))
	status = http.StatusOK
	if _, errOut, code := runExit(t, "", "healthcheck"); code != 0 {
		t.Fatalf("from ANSWERDESK_ADDR: %d %s", code, errOut)
	}
}

// deployTool returns the path of a validator unpacked by "make deploy-tools" (under
// bin/tools) or found on PATH; without it the test skips, or fails when CI=true.
func deployTool(t *testing.T, unpacked, name string) string {
	t.Helper()
	if p, err := filepath.Abs(filepath.Join("../../bin/tools", unpacked)); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	msg := name + " is missing: run make deploy-tools"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("!!! SKIPPED: " + msg)
	return ""
}

// TestDeployFilesValidate runs the proxies' own checks on deploy/: nginx -t (Debian 12's
// nginx 1.22, the oldest the file supports) and caddy validate. TestSystemdUnit runs
// systemd-analyze verify on the unit.
func TestDeployFilesValidate(t *testing.T) {
	t.Run("nginx", func(t *testing.T) {
		nginx := deployTool(t, "usr/sbin/nginx", "nginx")
		dir := t.TempDir()
		// The certificates the file names are certbot's: a self-signed pair stands in.
		cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		writeSelfSigned(t, cert, key)
		raw, err := os.ReadFile("../../deploy/nginx.conf")
		if err != nil {
			t.Fatal(err)
		}
		conf := strings.NewReplacer("/etc/letsencrypt/live/answerdesk.example.com/fullchain.pem", cert,
			"/etc/letsencrypt/live/answerdesk.example.com/privkey.pem", key).Replace(string(raw))
		site := filepath.Join(dir, "answerdesk.conf")
		if err := os.WriteFile(site, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		// The main file as Debian's includes a conf.d file, with every path in dir.
		var main strings.Builder
		fmt.Fprintf(&main, "pid %s/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n", dir)
		for _, temp := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
			fmt.Fprintf(&main, "  %s_temp_path %s/%s;\n", temp, dir, temp)
		}
		fmt.Fprintf(&main, "  access_log off;\n  include %s;\n}\n", site)
		mainPath := filepath.Join(dir, "nginx.conf")
		if err := os.WriteFile(mainPath, []byte(main.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(nginx, "-t", "-p", dir, "-c", mainPath, "-e", "stderr").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "test is successful") {
			t.Fatalf("nginx -t: %v\n%s", err, out)
		}
	})
	t.Run("caddy", func(t *testing.T) {
		caddy := deployTool(t, "usr/bin/caddy", "caddy")
		cmd := exec.Command(caddy, "validate", "--config", "../../deploy/Caddyfile", "--adapter", "caddyfile")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Valid configuration") {
			t.Fatalf("caddy validate: %v\n%s", err, out)
		}
	})
}

// writeSelfSigned writes a throwaway self-signed certificate and its key as PEM files.
func writeSelfSigned(t *testing.T, certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "answerdesk.example.com"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"answerdesk.example.com"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}
