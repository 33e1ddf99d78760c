package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

// TestClaimsDoNotOverlap: workers of two processes (two store handles on one database, as
// two replicas have) claiming deliveries at once take each delivery once while its lease
// runs, and between them take every due one. On PostgreSQL this is FOR UPDATE SKIP LOCKED
// at READ COMMITTED; on SQLite the single writer.
func TestClaimsDoNotOverlap(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		app := testapp.NewOn(t, engine)
		ctx := context.Background()
		app.CreateOnCallContact(t, app.Alice, deskContact)
		const messages = 120
		for range messages {
			app.CreateMessage(t, app.Alice, app.Clock.Now(), map[string]any{"content": "Leak in unit 4B"})
		}
		services := []*store.DispatchService{app.Dispatch, store.NewDispatchService(app.OpenDB(t))}

		now := app.Clock.Now().Add(time.Second)
		var mu sync.Mutex
		claims := map[int64]int{}
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				for {
					got, err := services[w%2].ClaimDeliveries(ctx, now, time.Hour, 4)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, d := range got {
						claims[d.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(claims) != messages {
			t.Errorf("%d deliveries claimed, want %d (one per message)", len(claims), messages)
		}
		for id, n := range claims {
			if n != 1 {
				t.Errorf("delivery %d claimed %d times within its lease", id, n)
			}
		}
	})
}
