package oauth

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// NewMetadataClient returns the client that fetches client ID metadata documents: 5 s
// time-outs, no redirects, no proxy, and, unless allowPrivate, a dial-time refusal of every
// non-public address (checked on the resolved address, so DNS rebinding is refused too).
// A client_id URL is chosen by whoever starts an authorization, so without the guard anyone
// could make the server fetch from its own network.
func NewMetadataClient(allowPrivate bool) *http.Client {
	return metadataClient(allowPrivate, nil)
}

// metadataClient is NewMetadataClient trusting roots (nil: the system's), for tests.
func metadataClient(allowPrivate bool, roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		g := ssrf.New(ssrf.WithPorts(443))
		dialer.Control = func(network, address string, c syscall.RawConn) error {
			if err := g.Safe(network, address, c); err != nil {
				return fmt.Errorf("client metadata document refused: %w", err)
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots},
			TLSHandshakeTimeout:    5 * time.Second,
			ResponseHeaderTimeout:  5 * time.Second,
			MaxResponseHeaderBytes: 16 << 10,
			MaxIdleConns:           10,
			IdleConnTimeout:        30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
