package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// runHealthcheck asks a running server's /readyz and exits 0 only on 200: the container
// HEALTHCHECK, in an image with no shell or curl.
func runHealthcheck(ctx context.Context, args []string, stdout io.Writer) error {
	c := newCommand("healthcheck", "[--url URL] [--timeout 5s]",
		"Ask a running answerdesk whether it is ready (GET /readyz) and exit 0 when it answers 200,\n"+
			"1 otherwise. Without --url it asks 127.0.0.1 on the port of ANSWERDESK_ADDR (default 8080).", stdout)
	url := c.fs.String("url", "", "readiness `URL` to ask (default http://127.0.0.1:<port of ANSWERDESK_ADDR>/readyz)")
	timeout := c.fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *url == "" {
		port := "8080"
		if addr := os.Getenv("ANSWERDESK_ADDR"); addr != "" {
			if _, p, err := net.SplitHostPort(addr); err == nil && p != "" {
				port = p
			}
		}
		*url = "http://127.0.0.1:" + port + "/readyz"
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return usagef("healthcheck: --url %q: %v", *url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %d: %s", *url, resp.StatusCode, body)
	}
	fmt.Fprintf(stdout, "%s: %s", *url, body)
	return nil
}
