package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

// dbFlagSet returns a flag set with the --db flag every admin command takes.
func dbFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "./data/answerdesk.db", "SQLite database file")
	return fs, db
}

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, path := dbFlagSet("migrate", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	db, err := store.Open(ctx, *path)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(stdout, "database", *path, "is migrated")
	return nil
}

func runSeed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, path := dbFlagSet("seed", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	db, err := store.Open(ctx, *path)
	if err != nil {
		return err
	}
	defer db.Close()
	demo, err := store.Seed(ctx, db, store.SeedOptions{})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(stdout, "demo data loaded into %s\ndemo API token (owner@acme.example): %s\nadmin API token (admin@answerdesk.example): %s\n", *path, demo.Token, demo.AdminToken)
	return nil
}

func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("token: want create, list or revoke")
	}
	sub, args := args[0], args[1:]
	fs, path := dbFlagSet("token "+sub, stderr)
	email := fs.String("user", "", "email of the token's user")
	name := fs.String("name", "API token", "name of the token (create)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	db, err := store.Open(ctx, *path)
	if err != nil {
		return err
	}
	defer db.Close()
	tokens := store.NewTokenService(db)
	var userID int64
	if *email != "" {
		u, err := store.NewUserService(db).FindUserByEmail(ctx, *email)
		if err != nil {
			return err
		}
		userID = u.ID
	}
	switch sub {
	case "create":
		if userID == 0 {
			return errors.New("token create: --user is required")
		}
		_, plain, err := tokens.CreateToken(ctx, userID, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, plain)
	case "list":
		list, err := tokens.ListTokens(ctx, userID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSER\tNAME\tPREFIX\tCREATED\tLAST USED\tREVOKED")
		for _, t := range list {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s…\t%s\t%s\t%s\n", t.ID, t.UserEmail, t.Name, t.Prefix, t.CreatedAt, timeOrDash(t.LastUsedAt), timeOrDash(t.RevokedAt))
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return errors.New("token revoke: give the token ID")
		}
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil {
			return fmt.Errorf("token revoke: %q is not a token ID", fs.Arg(0))
		}
		if err := tokens.RevokeToken(ctx, userID, id); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "token", id, "revoked")
	default:
		return fmt.Errorf("token: unknown subcommand %q", sub)
	}
	return nil
}

func timeOrDash(t *answerdesk.Time) string {
	if t == nil {
		return "-"
	}
	return t.String()
}

func runUser(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("user: want create")
	}
	fs, path := dbFlagSet("user create", stderr)
	email := fs.String("email", "", "the user's email (sign-in name)")
	passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	admin := fs.Bool("admin", false, "make the user an admin (sees every account)")
	var accounts stringList
	fs.Var(&accounts, "account", "account number the user is a member of (repeatable)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if !*passwordStdin {
		return errors.New("user create: --password-stdin is required (passwords are never taken as arguments)")
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read password: %w", err)
	}
	db, err := store.Open(ctx, *path)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := store.NewUserService(db).CreateUser(ctx, &answerdesk.UserCreate{
		Email: *email, Password: strings.TrimRight(line, "\r\n"), Admin: *admin, AccountNumbers: accounts,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "user %d created: %s\n", u.ID, u.Email)
	return nil
}
