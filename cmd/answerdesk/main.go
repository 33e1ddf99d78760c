// Command answerdesk runs the answering-service API: the HTTP server and its workers, and
// the administrative subcommands (migrate, seed, token, user).
package main

import (
	"context"
	"errors"
	"flag"
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
  answerdesk migrate --db PATH
  answerdesk seed --db PATH
  answerdesk token create --db PATH --user EMAIL [--name NAME]
  answerdesk token list --db PATH [--user EMAIL]
  answerdesk token revoke --db PATH ID
  answerdesk user create --db PATH --email EMAIL --password-stdin [--admin] [--account NUMBER]...
  answerdesk version

Every flag can also be set as an environment variable ANSWERDESK_<FLAG>, e.g. ANSWERDESK_DB.
Run "answerdesk <command> -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "answerdesk:", err)
		}
		os.Exit(2)
	}
}

// run dispatches a subcommand; it is main without the process, so tests can call it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("a command is required")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, rest, stdout, stderr)
	case "seed":
		return runSeed(ctx, rest, stdout, stderr)
	case "token":
		return runToken(ctx, rest, stdout, stderr)
	case "user":
		return runUser(ctx, rest, stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "answerdesk", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// parseFlags parses args, then fills every flag not given on the command line from its
// ANSWERDESK_<FLAG> environment variable.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		env := "ANSWERDESK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v, ok := os.LookupEnv(env)
		if !ok {
			return
		}
		if list, isList := f.Value.(*stringList); isList {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					_ = list.Set(item)
				}
			}
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s: %w", env, e)
		}
	})
	return err
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
