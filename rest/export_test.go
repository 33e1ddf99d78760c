package rest

// OAValidate is oaValidate, for the tests of package rest_test (they use internal/testapp,
// which imports this package).
var OAValidate = oaValidate

// OAValidateRequest is oaValidateRequest, for the tests of package rest_test.
var OAValidateRequest = oaValidateRequest

// SitePageCSP is sitePageCSP, for the tests of package rest_test.
const SitePageCSP = sitePageCSP
