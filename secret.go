package answerdesk

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// SecretBox seals credentials that must be sent to a third party later (Basic auth
// passwords, header values, signing secrets), so they cannot be hashed like API tokens:
// AES-256-GCM under a key derived from the server's key file.
type SecretBox struct {
	aead cipher.AEAD
}

// NewSecretBox derives the sealing key from the server's key material.
func NewSecretBox(keyMaterial []byte) (*SecretBox, error) {
	if len(keyMaterial) < 32 {
		return nil, errors.New("secret box: key material must be at least 32 bytes")
	}
	m := hmac.New(sha256.New, keyMaterial)
	m.Write([]byte("answerdesk secret box v1"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	return &SecretBox{aead: aead}, nil
}

// Seal encrypts plain; the result is base64 text safe to store.
func (b *SecretBox) Seal(plain string) string {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawStdEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(plain), nil))
}

// Open decrypts what Seal returned.
func (b *SecretBox) Open(sealed string) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("secret box: malformed sealed value")
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errors.New("secret box: cannot open the sealed value (was the key file replaced?)")
	}
	return string(plain), nil
}
