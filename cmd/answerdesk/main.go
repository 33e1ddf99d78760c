// Command answerdesk runs the answering-service API: the HTTP server and its workers, and
// the commands that provision and operate it (migrate, seed, account, user, token, db).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `answerdesk: the answering-service API

Usage:
  answerdesk serve [--addr :8080] [--db ./data/answerdesk.db] [--base-url URL] [--demo] ...
  answerdesk migrate [--db PATH]
  answerdesk seed [--db PATH]
  answerdesk account create --number N --name NAME [--time-zone ZONE] [--sms-number +1...]... [--sending-domain DOMAIN]...
  answerdesk account list | show | update | add-sms-number | remove-sms-number |
                     add-sending-domain | remove-sending-domain | blacklist | unblacklist |
                     list-blacklist
  answerdesk user create --email EMAIL [--password-stdin] [--admin] [--account NUMBER]...
  answerdesk user list | show | update
  answerdesk token create --user EMAIL [--name NAME]
  answerdesk token list [--user EMAIL]
  answerdesk token revoke ID [--user EMAIL]
  answerdesk db backup --to FILE
  answerdesk db copy --from SOURCE --to TARGET
  answerdesk db reset-signing-key --yes
  answerdesk healthcheck [--url http://127.0.0.1:8080/readyz]
  answerdesk version

Every command takes --db (default ./data/answerdesk.db). Every flag can also be set as an
environment variable ANSWERDESK_<FLAG>, e.g. ANSWERDESK_DB. Flags may come before or after
arguments. Run "answerdesk <command> -h" for a command's flags, e.g. "answerdesk token create -h".
Production guide: docs/deployment (served at /docs/deployment).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

// exitCode prints err as one line and returns the process's exit code: 0 for success and
// for help, 2 for a usage mistake, 1 for any other failure.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	fmt.Fprintln(stderr, "answerdesk:", errorLine(err))
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// group is a command with subcommands (token, user, account, db).
type group struct {
	name  string
	about string
	subs  []subcommand
}

type subcommand struct {
	name, about string
	run         func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func (g *group) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: answerdesk %s <subcommand> [flags]\n\n%s\n\nSubcommands:\n", g.name, g.about)
	for _, s := range g.subs {
		fmt.Fprintf(w, "  %-22s %s\n", s.name, s.about)
	}
	fmt.Fprintf(w, "\nRun \"answerdesk %s <subcommand> -h\" for its flags.\n", g.name)
}

func (g *group) names() string {
	var n []string
	for _, s := range g.subs {
		n = append(n, s.name)
	}
	return strings.Join(n, ", ")
}

func (g *group) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		g.help(stderr)
		return usagef("%s: want a subcommand: %s", g.name, g.names())
	}
	if isHelp(args[0]) || args[0] == "help" {
		g.help(stdout)
		return errHelpShown
	}
	for _, s := range g.subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return usagef("%s: unknown subcommand %q (want %s)", g.name, args[0], g.names())
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

func groups() map[string]*group {
	return map[string]*group{
		"token": {name: "token", about: "Create, list and revoke customer API tokens.", subs: []subcommand{
			{"create", "create a token for a user; prints the token alone", runTokenCreate},
			{"list", "list tokens (of one user with --user)", runTokenList},
			{"revoke", "revoke a token by id", runTokenRevoke},
		}},
		"user": {name: "user", about: "Provision users: who signs in, who owns tokens, which accounts they see.", subs: []subcommand{
			{"create", "create a user, a member of the given accounts", runUserCreate},
			{"list", "list users", runUserList},
			{"show", "show one user", runUserShow},
			{"update", "change accounts, admin, disabled state or password", runUserUpdate},
		}},
		"account": {name: "account", about: "Provision customer accounts with their SMS numbers, sending domains and email blacklist.", subs: []subcommand{
			{"create", "create an account", runAccountCreate},
			{"list", "list accounts", runAccountList},
			{"show", "show one account", runAccountShow},
			{"update", "change an account's name or time zone", runAccountUpdate},
			{"add-sms-number", "let an account send SMS from a number", accountEdit("add-sms-number")},
			{"remove-sms-number", "stop an account sending SMS from a number", accountEdit("remove-sms-number")},
			{"add-sending-domain", "add an authenticated email-sending domain", accountEdit("add-sending-domain")},
			{"remove-sending-domain", "remove an email-sending domain", accountEdit("remove-sending-domain")},
			{"blacklist", "forbid an address as a sending address", accountEdit("blacklist")},
			{"unblacklist", "lift the blacklisting of an address", accountEdit("unblacklist")},
			{"list-blacklist", "list the addresses blacklisted for an account", runAccountListBlacklist},
		}},
		"audio": {name: "audio", about: "Recording audio: where it is stored.", subs: []subcommand{
			{"move", "move every recording's audio to another audio store, verified, resumable", runAudioMove},
		}},
		"db": {name: "db", about: "Database operations.", subs: []subcommand{
			{"backup", "write a consistent copy of the database to a new file, while serve runs", runDBBackup},
			{"copy", "copy every row into another, empty database (SQLite to PostgreSQL, or back)", runDBCopy},
			{"reset-signing-key", "forget the signing key the database was served with (for a key lost for good)", runDBResetSigningKey},
		}},
	}
}

// run dispatches a command; it is main without the process, so tests can call it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("a command is required")
	}
	cmd, rest := args[0], args[1:]
	if g, ok := groups()[cmd]; ok {
		return g.run(ctx, rest, stdin, stdout, stderr)
	}
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, rest, stdout)
	case "seed":
		return runSeed(ctx, rest, stdout)
	case "healthcheck":
		return runHealthcheck(ctx, rest, stdout)
	case "version", "--version", "-version":
		if len(rest) > 0 && !isHelp(rest[0]) {
			return usagef("version: unexpected argument %q", rest[0])
		}
		fmt.Fprintln(stdout, "answerdesk", version)
		return nil
	case "help", "-h", "--help", "-help":
		if len(rest) > 0 {
			// "answerdesk help serve" is "answerdesk serve -h".
			return run(ctx, []string{rest[0], "-h"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return errHelpShown
	default:
		fmt.Fprint(stderr, usage)
		return usagef("unknown command %q", cmd)
	}
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
