package rest

import (
	_ "embed"
	"net/http"
)

//go:embed openapi/v2.json
var openAPIV2 []byte

func serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIV2)
}
