package store

import (
	"context"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"golang.org/x/crypto/bcrypt"
)

// Passwords longer than bcrypt's 72 bytes are taken (up to MaxPasswordLength characters)
// and every byte of them counts; passwords are counted in characters.
func TestPasswordLengths(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, "sqlite", "passwords.db")
	users := NewUserService(db)
	users.Cost = bcrypt.MinCost
	long := strings.Repeat("correct horse battery staple ", 5) + "é!" // 147 characters, 148 bytes
	for _, tc := range []struct {
		email, password string
		ok              bool
	}{
		{"long@example.com", long, true},
		{"cjk@example.com", strings.Repeat("電", 256), true}, // 768 bytes, 256 characters
		{"toolong@example.com", strings.Repeat("電", 257), false},
		{"short@example.com", "ééééé", false}, // 10 bytes, 5 characters
	} {
		_, err := users.CreateUser(ctx, &answerdesk.UserCreate{Email: tc.email, Password: tc.password})
		if (err == nil) != tc.ok {
			t.Fatalf("create %s with a %d-character password: %v", tc.email, len([]rune(tc.password)), err)
		}
		if err != nil && answerdesk.ErrorCode(err) != answerdesk.EINVALID {
			t.Errorf("create %s: %v, want a validation error", tc.email, err)
		}
	}
	if _, err := users.CheckPassword(ctx, "long@example.com", long); err != nil {
		t.Errorf("the long password: %v", err)
	}
	// Same first 72 bytes: bcrypt alone would take it.
	if _, err := users.CheckPassword(ctx, "long@example.com", long[:72]+"different tail"); err == nil {
		t.Error("a password sharing only the first 72 bytes was taken")
	}
	if _, err := users.CheckPassword(ctx, "cjk@example.com", strings.Repeat("電", 256)); err != nil {
		t.Errorf("the CJK password: %v", err)
	}
}
