package mcp

// The helpers of helpers_test.go, for the tests in package mcp_test: those use
// internal/testapp, which imports internal/app, which imports this package, so they
// cannot be in package mcp.
var (
	TestConfig      = testConfig
	Call            = call
	Text            = text
	Structured      = structured
	WantToolError   = wantToolError
	SnapshotBase    = snapshotBase
	DefinitionsOnly = definitionsOnly
	ConnectWith     = connectWith
)
