// Package llm is a minimal client of an OpenAI-compatible chat completions endpoint
// (POST {base}/chat/completions), the one outside service the documentation answerer may call to
// compose answers from retrieved documentation passages.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Client calls a chat completions endpoint.
type Client struct {
	// URL is the API base (e.g. https://api.openai.com/v1) or the full
	// .../chat/completions URL.
	URL   string
	Model string
	Key   string       // sent as a bearer token when set
	HTTP  *http.Client // nil: a client with a 60-second timeout
}

const maxResponseBytes = 1 << 20

var defaultHTTP = &http.Client{Timeout: 60 * time.Second}

// Endpoint is the chat completions URL of the client.
func (c *Client) Endpoint() string {
	u := strings.TrimRight(c.URL, "/")
	if strings.HasSuffix(u, "/chat/completions") {
		return u
	}
	return u + "/chat/completions"
}

// Complete sends the messages and returns the content of the first choice.
func (c *Client) Complete(ctx context.Context, messages []Message) (string, error) {
	body, err := json.Marshal(struct {
		Model       string    `json:"model,omitempty"`
		Messages    []Message `json:"messages"`
		Temperature float64   `json:"temperature"`
	}{Model: c.Model, Messages: messages, Temperature: 0})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("llm: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("llm: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return "", fmt.Errorf("llm: read response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		excerpt := string(raw)
		if len(excerpt) > 200 {
			excerpt = excerpt[:200]
		}
		return "", fmt.Errorf("llm: %s answered %d: %s", c.Endpoint(), resp.StatusCode, strings.TrimSpace(excerpt))
	}
	var out struct {
		Choices []struct {
			Message Message `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("llm: decode response: %w", err)
	}
	if len(out.Choices) == 0 || strings.TrimSpace(out.Choices[0].Message.Content) == "" {
		return "", errors.New("llm: the response has no answer")
	}
	return strings.TrimSpace(out.Choices[0].Message.Content), nil
}
