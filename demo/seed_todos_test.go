package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

func TestSeedToDos(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db := testapp.OpenStore(t, engine, "demo.db")
		now := time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)
		for range 2 { // seeding twice adds nothing
			if _, err := demo.Seed(ctx, db, demo.Options{Now: now}); err != nil {
				t.Fatal(err)
			}
		}
		svc := store.NewToDoService(db)
		list, meta, err := svc.FindToDos(ctx, &answerdesk.Caller{Admin: true, Scopes: answerdesk.AllScopes}, answerdesk.ToDoFilter{Paging: answerdesk.Paging{Page: 1, PageSize: 100}})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, td := range list {
			kinds[td.DeliveryType]++
			if td.Schedule.NextOccurrence == nil || td.State != answerdesk.ToDoActive || len(td.Schedule.Upcoming) == 0 {
				t.Errorf("demo to-do %q has no next occurrence", td.Name)
			}
		}
		if meta.Total != 20 || kinds["sms"] == 0 || kinds["email"] == 0 || kinds["call"] == 0 {
			t.Fatalf("%d demo to-dos, kinds %v", meta.Total, kinds)
		}
	})
}
