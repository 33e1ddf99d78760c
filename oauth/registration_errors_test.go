package oauth_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRegistrationErrorsShowNoInternals checks that a registration body the decoder refuses
// is described in the client's terms (the member and its JSON type), never in the decoder's
// own words, which name this server's Go types and fields.
func TestRegistrationErrorsShowNoInternals(t *testing.T) {
	app := newApp(t)
	for _, tc := range []struct{ name, body, want string }{
		{"wrong type", `{"redirect_uris": "https://example.com/cb"}`, "redirect_uris has the wrong type (string)"},
		{"not JSON", `{"redirect_uris": [`, "the body is not a JSON client metadata object"},
		{"too large", `{"client_name": "` + strings.Repeat("x", 20<<10) + `"}`, "the client metadata is larger than 16384 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(app.Server.URL+"/oauth/register", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out map[string]string
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
			d := out["error_description"]
			if resp.StatusCode != 400 || out["error"] != "invalid_client_metadata" || !strings.HasPrefix(d, tc.want) {
				t.Fatalf("%d %v, want 400 invalid_client_metadata %q", resp.StatusCode, out, tc.want)
			}
			for _, internal := range []string{"Go struct", "clientMetadata", "json:", "http:"} {
				if strings.Contains(d, internal) {
					t.Errorf("error_description %q shows %q", d, internal)
				}
			}
		})
	}
}
