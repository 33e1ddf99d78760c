package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

func printAccounts(w io.Writer, list []*answerdesk.AccountDetail) error {
	dash := func(s []string) string {
		if len(s) == 0 {
			return "-"
		}
		return strings.Join(s, ",")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NUMBER\tNAME\tTIME ZONE\tSMS NUMBERS\tSENDING DOMAINS")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.Number, a.Name, a.TimeZone, dash(a.SMSNumbers), dash(a.SendingDomains))
	}
	return tw.Flush()
}

// printAccount returns what prints the account a service call returns, or passes on its
// error.
func printAccount(w io.Writer) func(*answerdesk.AccountDetail, error) error {
	return func(a *answerdesk.AccountDetail, err error) error {
		if err != nil {
			return err
		}
		return printAccounts(w, []*answerdesk.AccountDetail{a})
	}
}

func runAccountCreate(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("account create", "--number N --name NAME [--time-zone ZONE] [--sms-number +1...]... [--sending-domain DOMAIN]... [--db FILE]",
		"Create a customer account with the SMS-enabled numbers its SMS To Dos send from and the\n"+
			"authenticated domains its email To Dos send from (adding a domain vouches for its SPF and DKIM).", stdout)
	req := &answerdesk.AccountCreate{}
	c.fs.StringVar(&req.Number, "number", "", "account `number`, 1 to 20 digits (required)")
	c.fs.StringVar(&req.Name, "name", "", "account `name` (required)")
	c.fs.StringVar(&req.TimeZone, "time-zone", answerdesk.DefaultTimeZone, "IANA time `zone` of the account's To Do schedules")
	var sms, domains stringList
	c.fs.Var(&sms, "sms-number", "SMS-enabled `number` in E.164 form, e.g. +15550101001 (repeatable)")
	c.fs.Var(&domains, "sending-domain", "authenticated email-sending `domain` (repeatable)")
	c.require("number", "name")
	if _, err := c.parse(args); err != nil {
		return err
	}
	req.SMSNumbers, req.SendingDomains = sms, domains
	return c.withAdmin(ctx, false, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		return printAccount(stdout)(admins.CreateAccount(ctx, sys, req))
	})
}

func runAccountList(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("account list", "[--db FILE]", "List every account with its SMS numbers and sending domains.", stdout)
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withDB(ctx, true, func(db *store.DB) error {
		accounts, sys := store.NewAccountService(db), answerdesk.SystemCaller()
		all, err := allPages(answerdesk.MaxAccountPageSize, func(p answerdesk.Paging) ([]*answerdesk.AccountDetail, answerdesk.PageMeta, error) {
			return accounts.FindAccounts(ctx, sys, p)
		})
		if err != nil {
			return err
		}
		return printAccounts(stdout, all)
	})
}

func runAccountShow(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("account show", "--number N [--db FILE]", "Show one account.", stdout)
	number := c.fs.String("number", "", "account `number` (required)")
	c.require("number")
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		return printAccount(stdout)(admins.FindAccount(ctx, sys, *number))
	})
}

func runAccountUpdate(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("account update", "--number N [--name NAME] [--time-zone ZONE] [--db FILE]", "Change an account's name or time zone.", stdout)
	number := c.fs.String("number", "", "account `number` (required)")
	var name, zone optString
	c.fs.Var(&name, "name", "new account `name`")
	c.fs.Var(&zone, "time-zone", "new IANA time `zone`")
	c.require("number")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if name.v == nil && zone.v == nil {
		return usagef("account update: nothing to change (give --name or --time-zone)")
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		return printAccount(stdout)(admins.UpdateAccount(ctx, sys, *number, &answerdesk.AccountUpdate{Name: name.v, TimeZone: zone.v}))
	})
}

func runAccountListBlacklist(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newDBCommand("account list-blacklist", "--number N [--db FILE]", "List the addresses blacklisted for an account, by address.", stdout)
	number := c.fs.String("number", "", "account `number` (required)")
	c.require("number")
	if _, err := c.parse(args); err != nil {
		return err
	}
	return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
		all, err := allPages(answerdesk.MaxBlacklistPageSize, func(p answerdesk.Paging) ([]*answerdesk.BlacklistEntry, answerdesk.PageMeta, error) {
			return admins.FindBlacklist(ctx, sys, *number, p)
		})
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EMAIL\tBLACKLISTED AT")
		for _, e := range all {
			fmt.Fprintf(tw, "%s\t%s\n", e.Email, e.CreatedAt)
		}
		return tw.Flush()
	})
}

// accountEdit returns the command that adds or removes one SMS number, sending domain or
// blacklisted address of an account (accountEdits[sub]).
func accountEdit(sub string) func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	e := accountEdits[sub]
	return func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		c := newDBCommand("account "+sub, "--number N --"+e.flag+" VALUE [--db FILE]", e.about, stdout)
		number := c.fs.String("number", "", "account `number` (required)")
		value := c.fs.String(e.flag, "", "the `value` (required)")
		c.require("number", e.flag)
		if _, err := c.parse(args); err != nil {
			return err
		}
		return c.withAdmin(ctx, true, func(admins *store.AdminService, sys *answerdesk.Caller) error {
			return e.edit(ctx, admins, sys, *number, *value, stdout)
		})
	}
}

// accountEditSpec is one of the commands that edit an account's lists: the flag naming the
// entry, its help, and the change, which prints its result.
type accountEditSpec struct {
	flag, about string
	edit        accountChange
}

// accountChange makes a change to the lists of account number, of the entry value, as the
// system caller and prints its result.
type accountChange func(ctx context.Context, admins *store.AdminService, sys *answerdesk.Caller, number, value string, stdout io.Writer) error

// accountEdits are the commands that edit an account's lists, by subcommand.
var accountEdits = map[string]accountEditSpec{
	"add-sms-number": {"sms-number", "Let the account send SMS To Dos from a number (E.164, e.g. +15550101001; ten digits get +1).",
		printsAccount((*store.AdminService).AddSMSNumber)},
	"remove-sms-number": {"sms-number", "Stop the account sending SMS To Dos from a number.",
		printsAccountAfter((*store.AdminService).RemoveSMSNumber)},
	"add-sending-domain": {"sending-domain", "Add an authenticated email-sending domain: you vouch that its SPF and DKIM are set up.",
		printsAccount((*store.AdminService).AddSendingDomain)},
	"remove-sending-domain": {"sending-domain", "Remove an email-sending domain of the account.",
		printsAccountAfter((*store.AdminService).RemoveSendingDomain)},
	"blacklist": {"email", "Forbid an address as a To Do's from_email for this account. Each account has its own\nblacklist: other accounts are not affected.",
		printsEntry((*store.AdminService).AddBlacklistedEmail, "is blacklisted")},
	"unblacklist": {"email", "Lift the blacklisting of an address.",
		printsEntry((*store.AdminService).RemoveBlacklistedEmail, "is no longer blacklisted")},
}

// printsAccount is an edit that prints the account as it is after the change.
func printsAccount(change func(*store.AdminService, context.Context, *answerdesk.Caller, string, string) (*answerdesk.AccountDetail, error)) accountChange {
	return func(ctx context.Context, admins *store.AdminService, sys *answerdesk.Caller, number, value string, stdout io.Writer) error {
		return printAccount(stdout)(change(admins, ctx, sys, number, value))
	}
}

// printsAccountAfter is an edit that answers with what it removed, printing the account as
// it is after the change.
func printsAccountAfter[T any](change func(*store.AdminService, context.Context, *answerdesk.Caller, string, string) (T, error)) accountChange {
	return func(ctx context.Context, admins *store.AdminService, sys *answerdesk.Caller, number, value string, stdout io.Writer) error {
		if _, err := change(admins, ctx, sys, number, value); err != nil {
			return err
		}
		return printAccount(stdout)(admins.FindAccount(ctx, sys, number))
	}
}

// printsEntry is an edit of the blacklist that prints the address and what became of it.
func printsEntry(change func(*store.AdminService, context.Context, *answerdesk.Caller, string, string) (*answerdesk.BlacklistEntry, error), verb string) accountChange {
	return func(ctx context.Context, admins *store.AdminService, sys *answerdesk.Caller, number, value string, stdout io.Writer) error {
		e, err := change(admins, ctx, sys, number, value)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, e.Email, verb)
		return nil
	}
}
