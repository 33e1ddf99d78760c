// Package examples holds the test that runs the documentation's examples
// (examples_test.go): every shell block of README.md and of content/data/docs/*.md runs,
// page by page, with bash and curl against a fresh demo served in process, and each curl
// must answer what the text beside it says. The package has no code of its own: the test
// needs the whole service (internal/app with the demo data and the content), which the
// packages it tests cannot build from inside.
//
// What an example must answer is, by default, a success (2xx). A trailing comment that
// starts with a status says otherwise ("# 404, account 1002's"). For more, an HTML comment
// right after the block, invisible on the rendered page, holds one line per command, keyed
// by a piece of the command's text that names it alone in the block:
//
//	<!-- expect
//	messages/499: 404 code=not_found
//	dispatch-deliveries: data.0.status=delivered header.Content-Type~json
//	xdg-open: skip, opens a browser
//	-->
//
// A check is a status, PATH=VALUE (a property of the JSON body: data.0.id, meta.total,
// data.# for a length; VALUE may be quoted), PATH~TEXT (the value contains TEXT), or
// header.NAME=VALUE or header.NAME~TEXT; admin.PATH=VALUE checks what the same GET answers
// the demo's admin token, who sees every account (admin.data.account_id=2: the message the
// demo token may not see is account 1002's). "skip, REASON" leaves the command out, and
// <!-- expect: skip, REASON --> the whole block: examples that cannot run against the
// demo (other hosts, production setup, make and other commands than curl) must say why.
package examples
