package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/store"
)

// openDB opens the database; with mustExist a missing file is an error instead of a new,
// empty database (a mistyped --db would otherwise answer "no such user").
func openDB(ctx context.Context, path string, mustExist bool) (*store.DB, error) {
	if mustExist && !store.IsPostgresURL(path) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("database %s does not exist (check --db; answerdesk migrate --db %s creates it)", path, path)
		}
	}
	return store.Open(ctx, path)
}

func runMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("migrate", "[--db FILE]", "Create the database, or upgrade its schema to this version's (serve does it on start too).", stdout)
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withDB(ctx, false, func(*store.DB) error {
		fmt.Fprintln(stdout, "database", store.DisplayName(*c.dbPath), "is migrated")
		return nil
	})
}

func runSeed(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("seed", "[--db FILE]", "Load the demo data (what serve --demo does). Loading it twice changes nothing.", stdout)
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withDB(ctx, false, func(db *store.DB) error {
		creds, err := demo.Seed(ctx, db, demo.Options{})
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		fmt.Fprintf(stdout, "demo data loaded into %s\ndemo API token (owner@acme.example): %s\nadmin API token (admin@answerdesk.example): %s\n", store.DisplayName(*c.dbPath), creds.Token, creds.AdminToken)
		return nil
	})
}

// withTokens is withDB (of an existing database) for the token commands: the token service
// and the id of the user --user names ("" is 0: every user).
func (c *command) withTokens(ctx context.Context, email string, use func(tokens *store.TokenService, userID int64) error) error {
	return c.withDB(ctx, true, func(db *store.DB) error {
		var id int64
		if email != "" {
			u, err := store.NewUserService(db).FindUserByEmail(ctx, email)
			if err != nil {
				return err
			}
			id = u.ID
		}
		return use(store.NewTokenService(db), id)
	})
}

func runTokenCreate(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("token create", "--user EMAIL [--name NAME] [--scope recordings:write] [--db FILE]",
		"Create a customer API token for a user and print it alone on stdout. It is shown once: only its hash is stored.\n"+
			"With --scope recordings:write the token may only hand over call recordings (POST /api/v2/call-recordings)\n"+
			"for the user's accounts: the credential for a phone system, which then can read nothing.", stdout)
	email := c.fs.String("user", "", "`email` of the token's user (required)")
	name := c.fs.String("name", "API token", "a `name` to tell the token apart in listings")
	var scopes stringList
	c.fs.Var(&scopes, "scope", "narrow the token to this `scope`: recordings:write (repeatable; default: a full token)")
	c.require("user")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if err := answerdesk.CheckTokenScopes(scopes); err != nil {
		return usagef("token create: --scope: %s", strings.TrimPrefix(answerdesk.ErrorMessage(err), "invalid parameter scope: "))
	}
	return c.withTokens(ctx, *email, func(tokens *store.TokenService, id int64) error {
		_, plain, err := tokens.CreateScopedToken(ctx, id, *name, scopes)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, plain)
		return nil
	})
}

func runTokenList(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("token list", "[--user EMAIL] [--db FILE]", "List API tokens, newest first: every user's, or one user's with --user. Tokens show their prefix only.", stdout)
	email := c.fs.String("user", "", "list only this user's tokens (`email`)")
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withTokens(ctx, *email, func(tokens *store.TokenService, id int64) error {
		list, err := tokens.ListTokens(ctx, id)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSER\tNAME\tPREFIX\tSCOPES\tCREATED\tLAST USED\tREVOKED")
		for _, t := range list {
			scopes := "all"
			if len(t.Scopes) > 0 {
				scopes = strings.Join(t.Scopes, ",")
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", t.ID, t.UserEmail, t.Name, t.Prefix, scopes, t.CreatedAt, timeOrDash(t.LastUsedAt), timeOrDash(t.RevokedAt))
		}
		return tw.Flush()
	})
}

func runTokenRevoke(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("token revoke", "ID [--user EMAIL] [--db FILE]", "Revoke an API token by its id (the ID column of token list). It stops working at once.", stdout)
	c.maxArgs = 1
	email := c.fs.String("user", "", "revoke only if the token is this user's (`email`)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("token revoke: give the token ID (see answerdesk token list)")
	}
	id, ok := answerdesk.ParseID(pos[0])
	if !ok {
		return usagef("token revoke: %q is not a token ID", pos[0])
	}
	return c.withTokens(ctx, *email, func(tokens *store.TokenService, uid int64) error {
		if err := tokens.RevokeToken(ctx, uid, id); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "token", id, "revoked")
		return nil
	})
}

func timeOrDash(t *answerdesk.Time) string {
	if t == nil {
		return "-"
	}
	return t.String()
}

// readPassword reads the password from the first line of stdin.
func readPassword(stdin io.Reader) (string, error) {
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", usagef("--password-stdin: standard input is empty; pipe the password in, e.g. echo 'a long passphrase' | answerdesk ...")
	}
	return line, nil
}

func runUserCreate(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("user create", "--email EMAIL [--password-stdin] [--admin] [--account NUMBER]... [--db FILE]",
		"Create a user, a member of the given accounts (create them first with answerdesk account create).\n"+
			"Without --password-stdin the user cannot sign in on the web until a password is set with\n"+
			"answerdesk user update --password-stdin; API tokens work regardless.", stdout)
	email := c.fs.String("email", "", "the user's `email` (sign-in name; required)")
	passwordStdin := c.fs.Bool("password-stdin", false, "read the password from the first line of standard input (never taken as an argument)")
	admin := c.fs.Bool("admin", false, "make the user an admin (sees every account, may provision)")
	var accounts stringList
	c.fs.Var(&accounts, "account", "account `number` the user is a member of (repeatable)")
	c.require("email")
	if _, err := c.parse(args); err != nil {
		return err
	}
	req := &answerdesk.UserCreate{Email: *email, Admin: *admin, AccountNumbers: accounts}
	if *passwordStdin {
		p, err := readPassword(stdin)
		if err != nil {
			return err
		}
		req.Password = p
	}
	return c.withAdmin(ctx, false, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		u, err := admins.CreateUser(ctx, sys, req)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user %d created: %s\n", u.ID, u.Email)
		if !u.HasPassword {
			fmt.Fprintf(stdout, "no password: set one with  answerdesk user update --db %s --email %s --password-stdin\n", store.DisplayName(*c.dbPath), u.Email)
		}
		return nil
	})
}

func printUsers(w io.Writer, users []*answerdesk.UserDetail) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tADMIN\tDISABLED\tPASSWORD\tACCOUNTS\tCREATED")
	for _, u := range users {
		accts := strings.Join(u.Accounts, ",")
		if accts == "" {
			accts = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%t\t%t\t%t\t%s\t%s\n", u.ID, u.Email, u.Admin, u.Disabled, u.HasPassword, accts, u.CreatedAt)
	}
	return tw.Flush()
}

// printUser returns what prints the user a service call returns, or passes on its error.
func printUser(w io.Writer) func(*answerdesk.UserDetail, error) error {
	return func(u *answerdesk.UserDetail, err error) error {
		if err != nil {
			return err
		}
		return printUsers(w, []*answerdesk.UserDetail{u})
	}
}

func runUserList(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("user list", "[--db FILE]", "List every user with their accounts.", stdout)
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		all, err := allPages(answerdesk.MaxUserPageSize, func(p answerdesk.Paging) ([]*answerdesk.UserDetail, answerdesk.PageMeta, error) {
			return admins.FindUsers(ctx, sys, p)
		})
		if err != nil {
			return err
		}
		return printUsers(stdout, all)
	})
}

// userFlag lets the command name a user by --email or by its ID (parseUser).
func (c *command) userFlag() *string {
	c.maxArgs = 1
	return c.fs.String("email", "", "the user's `email`")
}

// parseUser parses args and returns the user they name: --email or the ID, not both.
func (c *command) parseUser(args []string, email *string) (string, error) {
	pos, err := c.parse(args)
	if err != nil {
		return "", err
	}
	switch {
	case *email != "" && len(pos) > 0:
		return "", usagef("%s: give --email or an ID, not both", c.path)
	case *email != "":
		return *email, nil
	case len(pos) == 1:
		return pos[0], nil
	default:
		return "", usagef("%s: give --email EMAIL or the user's ID", c.path)
	}
}

func runUserShow(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("user show", "(--email EMAIL | ID) [--db FILE]", "Show one user.", stdout)
	email := c.userFlag()
	ref, err := c.parseUser(args, email)
	if err != nil {
		return err
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		return printUser(stdout)(admins.FindUser(ctx, sys, ref))
	})
}

func runUserUpdate(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("user update", "(--email EMAIL | ID) [--account NUMBER]... [--admin=true|false] [--disable | --enable] [--password-stdin] [--db FILE]",
		"Change a user. --account replaces their memberships; --disable stops their API tokens, OAuth\n"+
			"grants and web sessions at once; --enable lets their API tokens work again.", stdout)
	email := c.userFlag()
	var accounts stringList
	c.fs.Var(&accounts, "account", "account `number` the user is a member of (repeatable; replaces the memberships)")
	var admin optBool
	c.fs.Var(&admin, "admin", "make the user an admin (--admin=false takes it away)")
	disable := c.fs.Bool("disable", false, "disable the user")
	enable := c.fs.Bool("enable", false, "enable a disabled user")
	passwordStdin := c.fs.Bool("password-stdin", false, "set the password from the first line of standard input")
	ref, err := c.parseUser(args, email)
	if err != nil {
		return err
	}
	req := &answerdesk.UserUpdate{Admin: admin.v}
	if len(accounts) > 0 {
		a := []string(accounts)
		req.Accounts = &a
	}
	switch {
	case *disable && *enable:
		return usagef("user update: --disable and --enable exclude each other")
	case *disable || *enable:
		req.Disabled = disable
	}
	if *passwordStdin {
		p, err := readPassword(stdin)
		if err != nil {
			return err
		}
		req.Password = &p
	}
	if req.Accounts == nil && req.Admin == nil && req.Disabled == nil && req.Password == nil {
		return usagef("user update: nothing to change (give --account, --admin, --disable, --enable or --password-stdin)")
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		return printUser(stdout)(admins.UpdateUser(ctx, sys, ref, req))
	})
}

func runDBBackup(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("db backup", "--to FILE [--db FILE]",
		"Write a consistent copy of the database to a new file (SQLite VACUUM INTO), safe while serve\n"+
			"runs, and check it. The copy is written with mode 0600 in a private directory beside FILE and\n"+
			"appears at FILE only once checked. To restore, stop serve and copy the backup over the\n"+
			"database file (removing any -wal and -shm files beside it).", stdout)
	to := c.fs.String("to", "", "the backup `file` to create (must not exist; a symlink there is refused, never followed)")
	c.require("to")
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withDB(ctx, true, func(db *store.DB) error {
		if err := db.Backup(ctx, *to); err != nil {
			return err
		}
		info, err := os.Stat(*to)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, integrity ok)\n", *c.dbPath, *to, info.Size())
		return nil
	})
}

func runDBCopy(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("db copy", "--from SOURCE --to TARGET [--batch-size 1000]",
		"Copy every row of one database into another, e.g. from SQLite into PostgreSQL when one machine\n"+
			"is no longer enough (or back). SOURCE and TARGET are each a SQLite file or a PostgreSQL URL\n"+
			"(postgres://user:pass@host:5432/db?sslmode=require; the PostgreSQL database must exist).\n"+
			"The target is migrated first and must hold no rows: a failed copy is started again into a\n"+
			"fresh one. Stop serve on the source first. Row counts are verified per table. Guide:\n"+
			"/docs/scaling-out.", stdout)
	c.maxArgs = 0
	from := c.fs.String("from", "", "the database to copy: a SQLite `file` or a PostgreSQL URL")
	to := c.fs.String("to", "", "the empty database to fill: a SQLite `file` or a PostgreSQL URL")
	batch := c.fs.Int("batch-size", 1000, "rows per INSERT and per target transaction")
	c.require("from", "to")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *from == *to {
		return usagef("db copy: --from and --to are the same database")
	}
	if *batch < 1 {
		return usagef("db copy: --batch-size %d: want 1 or more", *batch)
	}
	if !store.IsPostgresURL(*from) {
		if _, err := os.Stat(*from); err != nil {
			return fmt.Errorf("source database %s: %w", *from, err)
		}
	}
	src, err := store.Open(ctx, *from)
	if err != nil {
		return fmt.Errorf("open the source: %w", err)
	}
	defer src.Close()
	dst, err := store.Open(ctx, *to)
	if err != nil {
		return fmt.Errorf("open the target: %w", err)
	}
	defer dst.Close()
	start := time.Now()
	report, err := store.Copy(ctx, src, dst, store.CopyOptions{BatchSize: *batch,
		Progress: func(table string, rows int64, took time.Duration) {
			fmt.Fprintf(stdout, "  %-22s %9d rows  %v\n", table, rows, took.Round(time.Millisecond))
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "copied %d rows in %d tables in %v; row counts verified\n", report.Rows, len(report.Tables), time.Since(start).Round(time.Millisecond))
	return nil
}

func runDBResetSigningKey(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("db reset-signing-key", "--yes [--db FILE]",
		"Forget the signing key the database was first served with, so that the next serve accepts a\n"+
			"new one. Only for a key lost for good: webhook credentials (Basic auth passwords, header\n"+
			"values, signing secrets) sealed with the old key cannot be opened and must be set again.\n"+
			"It refuses while any serve runs on the database (stop every replica first), and every\n"+
			"replica must then start with the same new key.", stdout)
	yes := c.fs.Bool("yes", false, "do it: without --yes nothing is changed")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if !*yes {
		return usagef("db reset-signing-key: this forgets the signing key the database was first served with: webhook " +
			"credentials sealed with it can no longer be opened and must be set again, and the next serve records its own key. " +
			"Stop every serve on the database first, then pass --yes to do it")
	}
	return c.withDB(ctx, true, func(db *store.DB) error {
		forgot, err := db.ForgetSigningKey(ctx)
		if err != nil {
			return fmt.Errorf("db reset-signing-key: nothing changed: %w", err)
		}
		if !forgot {
			fmt.Fprintln(stdout, "no signing key was recorded: the next serve records its key")
			return nil
		}
		fmt.Fprintln(stdout, "the signing key is forgotten: the next serve records its key as the database's;"+
			" set the webhook credentials of delivery methods again (they were sealed with the old key)")
		return nil
	})
}
