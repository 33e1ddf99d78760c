package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

// openAudioStore opens the audio store that spec names: "db" (the database's own, nil),
// "file:///PATH" (a directory) or "s3://BUCKET/PREFIX?..." (S3-compatible storage), and
// returns it with its kind.
func openAudioStore(ctx context.Context, spec string) (answerdesk.AudioStore, string, error) {
	switch {
	case spec == "" || spec == answerdesk.AudioStoreDB:
		return nil, answerdesk.AudioStoreDB, nil
	case strings.HasPrefix(spec, "file://"):
		return openDirStore(ctx, spec)
	case strings.HasPrefix(spec, "s3://"):
		return openS3Store(ctx, spec)
	}
	return nil, "", fmt.Errorf("audio store %q: want db, file:///PATH or s3://BUCKET/PREFIX?region=R&endpoint=URL", spec)
}

func runAudioMove(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("audio move", "--to STORE [--from STORE] [--db FILE]",
		"Move the audio of every recording from one audio store to another: db (the database),\n"+
			"file:///PATH (a directory) or s3://BUCKET/PREFIX?region=R&endpoint=URL&path_style=true.\n"+
			"Each file is copied, checked by size and SHA-256, the recording pointed at the copy, and\n"+
			"only then the source deleted; stop it at any time and run it again to go on. It may run\n"+
			"while serve runs (serve reads each recording's audio from the store its row names).", stdout)
	to := c.fs.String("to", "", "the `store` to move audio to (required)")
	from := c.fs.String("from", "db", "the `store` to move audio from")
	c.require("to")
	if _, err := c.parse(args); err != nil {
		return err
	}
	src, srcKind, err := openAudioStore(ctx, *from)
	if err != nil {
		return usagef("audio move: --from: %v", err)
	}
	dst, dstKind, err := openAudioStore(ctx, *to)
	if err != nil {
		return usagef("audio move: --to: %v", err)
	}
	if srcKind == dstKind {
		return usagef("audio move: --from and --to are both %s stores", srcKind)
	}
	return c.withDB(ctx, true, func(db *store.DB) error {
		if src == nil {
			src = store.NewAudioStore(db)
		}
		if dst == nil {
			dst = store.NewAudioStore(db)
		}
		var bytes int64
		n, err := store.NewRecordingService(db, nil).MoveAudio(ctx, src, srcKind, dst, dstKind, func(m store.AudioMove) {
			bytes += m.Size
			fmt.Fprintf(stdout, "recording %d: %s (%d bytes) moved\n", m.RecordingID, m.Key, m.Size)
		})
		fmt.Fprintf(stdout, "%d recordings' audio (%d bytes) moved from %s to %s\n", n, bytes, srcKind, dstKind)
		return err
	})
}
