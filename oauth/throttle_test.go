package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
	"golang.org/x/crypto/bcrypt"
)

// replicas starts n services on one fresh database, each assembled as "answerdesk serve"
// assembles it and served on its own address, as replicas behind a load balancer are;
// they share one clock (each App's Clock), set at testapp.Start. It returns them as apps
// for newBrowser, and a user's email.
func replicas(t *testing.T, engine string, n int) ([]*testapp.App, string) {
	t.Helper()
	clock := &testapp.Clock{}
	clock.Set(testapp.Start)
	dsn := testdb.DSN(t, engine, "replicas.db")
	var out []*testapp.App
	for range n {
		out = append(out, testapp.Serve(t, dsn, clock))
	}
	users := store.NewUserService(out[0].DB)
	users.Cost = bcrypt.MinCost
	const email = "carol@acme.example"
	if _, err := users.CreateUser(context.Background(), &answerdesk.UserCreate{Email: email, Password: "test-password"}); err != nil {
		t.Fatal(err)
	}
	return out, email
}

// signInOn opens the sign-in page of a replica in a new browser and signs in.
func signInOn(t *testing.T, a *testapp.App, email, password string) page {
	t.Helper()
	b := newBrowser(t, a)
	return b.signIn(b.get("/login"), email, password)
}

// TestSignInThrottleAcrossReplicas: replicas on one database together compare at most
// SignInLimitPerEmailAndAddress wrong passwords of one email from one address per window,
// however the attempts race: each attempt spends its failure in the database before its
// password is compared. Over the limit even the right password is refused until the window
// ends.
func TestSignInThrottleAcrossReplicas(t *testing.T) {
	testdb.ForEachEngine(t, testSignInThrottleAcrossReplicas)
}

func testSignInThrottleAcrossReplicas(t *testing.T, engine string) {
	apps, email := replicas(t, engine, 3)
	const attempts = 30
	// Every browser has its form before any attempt is made, so that the posts race.
	type attempt struct {
		b *browser
		p page
	}
	var ready []attempt
	for i := range attempts {
		b := newBrowser(t, apps[i%len(apps)])
		ready = append(ready, attempt{b, b.get("/login")})
	}
	statuses := make(chan int, attempts)
	var wg sync.WaitGroup
	for _, a := range ready {
		wg.Go(func() { statuses <- a.b.signIn(a.p, email, "wrong").status })
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	if counts[http.StatusUnauthorized] != answerdesk.SignInLimitPerEmailAndAddress || counts[http.StatusTooManyRequests] != attempts-answerdesk.SignInLimitPerEmailAndAddress {
		t.Errorf("statuses %v of %d parallel wrong passwords on %d replicas, want %d × 401 (passwords compared) and the rest 429",
			counts, attempts, len(apps), answerdesk.SignInLimitPerEmailAndAddress)
	}
	for i, a := range apps {
		p := signInOn(t, a, email, "test-password")
		if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Too many failed sign-in attempts. Try again in ") {
			t.Errorf("replica %d, right password over the limit: %d, Retry-After %q; want 429 until the window ends", i, p.status, p.header.Get("Retry-After"))
		}
	}
	apps[0].Clock.Advance(answerdesk.SignInWindow + time.Minute) // every replica's clock
	for i, a := range apps {
		if p := signInOn(t, a, email, "test-password"); p.url.Path != "/settings/keys" {
			t.Errorf("replica %d after the window: %s %d", i, p.url, p.status)
		}
	}
}

// TestSignInSuccessesDoNotCount: a right password gives back the failure its attempt spent,
// and only that one, on whichever replica: many sign-ins never lock anyone out, and they
// do not wipe out the failures made before them either.
func TestSignInSuccessesDoNotCount(t *testing.T) {
	testdb.ForEachEngine(t, testSignInSuccessesDoNotCount)
}

func testSignInSuccessesDoNotCount(t *testing.T, engine string) {
	apps, email := replicas(t, engine, 2)
	limit := answerdesk.SignInLimitPerEmailAndAddress
	steps := []struct {
		name     string
		n        int
		password string
		want     int
	}{
		{"half the allowance of failures", limit / 2, "wrong", http.StatusUnauthorized},
		{"three times the allowance of sign-ins", 3 * limit, "test-password", http.StatusOK},
		{"the other half of the failures", limit - limit/2, "wrong", http.StatusUnauthorized},
		{"the next attempt, though right", 1, "test-password", http.StatusTooManyRequests},
	}
	i := 0
	for _, s := range steps {
		for range s.n {
			replica := i % len(apps)
			i++
			p := signInOn(t, apps[replica], email, s.password)
			got := p.status
			if got == http.StatusOK && p.url.Path != "/settings/keys" {
				got = -1
			}
			if got != s.want {
				t.Fatalf("%s: attempt on replica %d answered %d at %s, want %d", s.name, replica, p.status, p.url.Path, s.want)
			}
		}
	}
}
