// Not Go code: this file makes integrations/zapier its own (empty) module, so that the
// root module's ./... never walks into node_modules, where an npm package may ship .go
// files that do not build.
module github.com/answerdesk/answerdesk/integrations/zapier

go 1.26.0
