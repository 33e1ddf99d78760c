package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

// usageError is a mistake in how a command was called (an unknown command or flag, a bad
// flag value, a missing argument): main exits 2 for it, 1 for every other error.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// errHelpShown reports that -h printed a command's help: main exits 0 and prints nothing more.
var errHelpShown = errors.New("help shown")

// command is one leaf command's flags and help.
type command struct {
	fs *flag.FlagSet
	// path is the command as typed ("token create"), usage its synopsis after the path, and
	// about what it does; they make the -h text.
	path, usage, about string
	out                io.Writer
	// maxArgs is how many positional arguments it takes.
	maxArgs int
	// dbPath is the --db flag's value, once db has added it.
	dbPath *string
	// required are the flags that must have a value (see require).
	required []string
}

// newCommand returns a command with its own flag set. Flags print their help to out.
func newCommand(path, usage, about string, out io.Writer) *command {
	c := &command{fs: flag.NewFlagSet(path, flag.ContinueOnError), path: path, usage: usage, about: about, out: out}
	c.fs.SetOutput(io.Discard) // errors are returned and printed once by main
	c.fs.Usage = func() {}
	return c
}

// db adds the --db flag every data command takes.
func (c *command) db() *string {
	c.dbPath = c.fs.String("db", "./data/answerdesk.db", "SQLite database `file`, or a PostgreSQL URL postgres://user:pass@host:5432/db?sslmode=... (env ANSWERDESK_DB)")
	return c.dbPath
}

// require marks flags that must have a value, from the command line or the environment:
// parse refuses a call without one, naming all of them.
func (c *command) require(names ...string) { c.required = append(c.required, names...) }

// newDBCommand is newCommand for a command that works on the database named by --db.
func newDBCommand(path, usage, about string, out io.Writer) *command {
	c := newCommand(path, usage, about, out)
	c.db()
	return c
}

// withDB opens the --db database, hands it to use and closes it after. With mustExist a
// missing SQLite file is an error (see openDB).
func (c *command) withDB(ctx context.Context, mustExist bool, use func(*store.DB) error) error {
	db, err := openDB(ctx, *c.dbPath, mustExist)
	if err != nil {
		return err
	}
	defer db.Close()
	return use(db)
}

// withAdmin is withDB for the commands that call the provisioning service the admin API
// uses, as the system caller.
func (c *command) withAdmin(ctx context.Context, mustExist bool, use func(admins *store.AdminService, sys *answerdesk.Caller) error) error {
	return c.withDB(ctx, mustExist, func(db *store.DB) error {
		return use(store.NewAdminService(db, nil), answerdesk.SystemCaller())
	})
}

// allPages collects every page of a paged listing, size items a page.
func allPages[T any](size int, find func(answerdesk.Paging) ([]T, answerdesk.PageMeta, error)) ([]T, error) {
	var all []T
	for page := 1; ; page++ {
		list, meta, err := find(answerdesk.Paging{Page: page, PageSize: size})
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
		if meta.TotalPages == nil || page >= *meta.TotalPages {
			return all, nil
		}
	}
}

// help writes the command's help text.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: answerdesk %s %s\n\n%s\n", c.path, c.usage, c.about)
	n := 0
	c.fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags (each also as the environment variable ANSWERDESK_<FLAG>, e.g. ANSWERDESK_DB):")
		printFlags(w, c.fs)
	}
}

// printFlags lists the flags as they are typed, --name, with their defaults.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s", line, strings.ReplaceAll(usage, "\n", "\n      "))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// parse parses args, flags and positional arguments in any order ("--" ends the flags),
// then fills every flag not given from its ANSWERDESK_<FLAG> environment variable and checks
// the required ones. It returns the positional arguments. -h or --help prints the help to out: errHelpShown.
func (c *command) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.help(c.out)
				return nil, errHelpShown
			}
			return nil, usagef("%s: %v (see answerdesk %s -h)", c.path, flagError(err), c.path)
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...) // after "--" everything is positional
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) > c.maxArgs {
		return nil, usagef("%s: unexpected argument %q (see answerdesk %s -h)", c.path, pos[c.maxArgs], c.path)
	}
	if err := fillFromEnv(c.fs); err != nil {
		return nil, err
	}
	for _, name := range c.required {
		if c.fs.Lookup(name).Value.String() == "" {
			verb := "is"
			if len(c.required) > 1 {
				verb = "are"
			}
			return nil, usagef("%s: --%s %s required", c.path, strings.Join(c.required, " and --"), verb)
		}
	}
	return pos, nil
}

// flagError rewords the flag package's errors: `invalid value "x" for flag -port: parse
// error` becomes `invalid value "x" for --port: not a number`.
func flagError(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "flag provided but not defined: -", "unknown flag --")
	s = strings.ReplaceAll(s, " for flag -", " for --")
	s = strings.ReplaceAll(s, "flag needs an argument: -", "flag needs a value: --")
	s = strings.ReplaceAll(s, ": parse error", ": not a number")
	return s
}

// fillFromEnv sets every flag not given on the command line from ANSWERDESK_<FLAG>.
// Repeatable flags take a comma-separated list.
func fillFromEnv(fs *flag.FlagSet) error {
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
			err = usagef("%s=%q: %v", env, v, e)
		}
	})
	return err
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// optBool is a boolean flag that remembers whether it was given, for updates that change
// only what is named (--admin, --admin=false).
type optBool struct{ v *bool }

func (o *optBool) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return strconv.FormatBool(*o.v)
}

func (o *optBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	o.v = &b
	return nil
}

// IsBoolFlag lets the flag be given without a value (--admin means --admin=true).
func (o *optBool) IsBoolFlag() bool { return true }

// optString is a string flag that remembers whether it was given.
type optString struct{ v *string }

func (o *optString) String() string {
	if o == nil || o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optString) Set(s string) error { o.v = &s; return nil }

// errorLine is the one line main prints for err: a domain error's message with its field
// errors once (not "answerdesk: invalid: ..."), anything else as it is.
func errorLine(err error) string {
	var e *answerdesk.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	msg := e.Message
	if len(e.Fields) > 1 {
		parts := make([]string, len(e.Fields))
		for i, f := range e.Fields {
			parts[i] = f.Field + " " + f.Message
		}
		msg += ": " + strings.Join(parts, "; ")
	}
	if e.Hint != "" {
		msg += " (" + strings.TrimSuffix(e.Hint, ".") + ")"
	}
	// Keep what the caller wrapped around the domain error ("token create: ...").
	if full := err.Error(); full != e.Error() {
		if prefix, ok := strings.CutSuffix(full, e.Error()); ok {
			msg = prefix + msg
		}
	}
	return msg
}
