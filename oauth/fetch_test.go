package oauth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The guard is what stands between an attacker-chosen client_id URL and the service's own
// network: with it, a loopback publisher (trusted certificate and all) is never reached.
func TestMetadataClientRefusesPrivateAddresses(t *testing.T) {
	reached := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }))
	defer srv.Close()
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs

	resp, err := metadataClient(false, roots).Get(srv.URL + "/client.json")
	if err == nil {
		resp.Body.Close()
		t.Fatal("the guarded client reached a loopback address")
	}
	if !strings.Contains(err.Error(), "refused") || reached != 0 {
		t.Errorf("err = %v, reached %d times", err, reached)
	}

	resp, err = metadataClient(true, roots).Get(srv.URL + "/client.json")
	if err != nil {
		t.Fatalf("with private addresses allowed: %v", err)
	}
	resp.Body.Close()
	if reached != 1 {
		t.Errorf("reached %d times, want 1", reached)
	}
}
