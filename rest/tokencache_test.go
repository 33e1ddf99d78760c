package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/store"
)

// TestTokenChangesReachTheNextRequest: whatever changes a token's caller (revocation, a
// disabled user, a membership taken away) is seen by the very next request, whether it is
// made through the server's own database handle or through another one on the same
// database (another process: the answerdesk CLI, another replica), after the token has
// been used enough to be served from the token cache (SQLite's store keeps verified
// tokens while the database is unchanged; PostgreSQL has no cache and must pass too).
func TestTokenChangesReachTheNextRequest(t *testing.T) {
	ctx := context.Background()
	admin := &answerdesk.Caller{Admin: true, Scopes: answerdesk.AllScopes}
	for _, other := range []bool{false, true} {
		for _, tc := range []struct {
			name string
			// change makes the user's token lose access to path (made with the user's id).
			change func(t *testing.T, db *store.DB, u testapp.User)
			path   string
			want   int
		}{
			{"revoked", func(t *testing.T, db *store.DB, u testapp.User) {
				tokens := store.NewTokenService(db)
				list, err := tokens.ListTokens(ctx, u.ID)
				if err != nil || len(list) != 1 {
					t.Fatalf("tokens %v: %v", list, err)
				}
				if err := tokens.RevokeToken(ctx, u.ID, list[0].ID); err != nil {
					t.Fatal(err)
				}
			}, "/api/v2/messages", http.StatusUnauthorized},
			{"disabled", func(t *testing.T, db *store.DB, u testapp.User) {
				disabled := true
				if _, err := store.NewAdminService(db, nil).UpdateUser(ctx, admin, u.Email, &answerdesk.UserUpdate{Disabled: &disabled}); err != nil {
					t.Fatal(err)
				}
			}, "/api/v2/messages", http.StatusUnauthorized},
			{"membership_removed", func(t *testing.T, db *store.DB, u testapp.User) {
				none := []string{}
				if _, err := store.NewAdminService(db, nil).UpdateUser(ctx, admin, u.Email, &answerdesk.UserUpdate{Accounts: &none}); err != nil {
					t.Fatal(err)
				}
			}, "", http.StatusNotFound}, // path: the user's message by id
		} {
			name := tc.name + "/same_handle"
			if other {
				name = tc.name + "/other_handle"
			}
			t.Run(name, func(t *testing.T) {
				app := testapp.New(t)
				u := app.NewUser(t, fmt.Sprintf("%s-%v@acme.example", tc.name, other), false, "1001")
				path := tc.path
				if path == "" {
					m := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
					path = fmt.Sprintf("/api/v2/messages/%d", m.ID)
				}
				for range 3 { // the first use records last_used_at (a write); then it is cached
					if r := app.Do(t, http.MethodGet, path, u.Token, nil); r.Status != http.StatusOK {
						t.Fatalf("before the change: %d %s", r.Status, r.Body)
					}
				}
				db := app.DB
				if other {
					db = app.OpenDB(t)
				}
				tc.change(t, db, u)
				if r := app.Do(t, http.MethodGet, path, u.Token, nil); r.Status != tc.want {
					t.Fatalf("after the change: %d, want %d: %s", r.Status, tc.want, r.Body)
				}
			})
		}
	}
}
