// Package badinput holds the bad-input corpus test (badinput_test.go, corpus in testdata):
// it walks every operation of the served OpenAPI documents (/api/v2 and /api/v1 with its
// sandbox and batch) and every tool of the three MCP servers, sends malformed and wrong
// input, and checks that each answer is a clear client error in the contract's error object
// (the Errors docs page), never a 500, and that nothing was written. The package has no code of its
// own: the test lives here because it needs the whole service (internal/testapp with the
// content), which neither package rest nor package mcp can build from inside.
package badinput
