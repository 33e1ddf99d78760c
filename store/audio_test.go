package store_test

import (
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/audiotest"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

// TestAudioStoreConformance runs the audio store suite against the database's own store.
func TestAudioStoreConformance(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		audiotest.Run(t, func(t *testing.T) answerdesk.AudioStore {
			db, err := store.Open(t.Context(), testdb.DSN(t, engine, "audio.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return store.NewAudioStore(db)
		})
	})
}
