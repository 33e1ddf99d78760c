package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/audiodir"
	"github.com/answerdesk/answerdesk/s3"
)

// openDirStore opens the directory store of a file:///PATH spec.
func openDirStore(_ context.Context, spec string) (answerdesk.AudioStore, string, error) {
	u, err := url.Parse(spec)
	if err != nil || u.Host != "" || u.Path == "" {
		return nil, "", fmt.Errorf("audio store %q: want file:///ABSOLUTE/PATH", spec)
	}
	s, err := audiodir.Open(u.Path)
	if err != nil {
		return nil, "", err
	}
	return s, answerdesk.AudioStoreFile, nil
}

// openS3Store opens the S3-compatible store of an s3:// spec.
func openS3Store(ctx context.Context, spec string) (answerdesk.AudioStore, string, error) {
	s, err := s3.Open(ctx, spec)
	if err != nil {
		return nil, "", err
	}
	return s, answerdesk.AudioStoreS3, nil
}
