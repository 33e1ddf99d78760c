package main

import (
	"context"
	"errors"

	"github.com/answerdesk/answerdesk"
)

func openDirStore(context.Context, string) (answerdesk.AudioStore, string, error) {
	return nil, "", errors.New("directory audio stores are not built yet")
}

func openS3Store(context.Context, string) (answerdesk.AudioStore, string, error) {
	return nil, "", errors.New("S3 audio stores are not built yet")
}
