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

func runAccountCreate(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("account create", "--number N --name NAME [--time-zone ZONE] [--sms-number +1...]... [--sending-domain DOMAIN]... [--db FILE]",
		"Create a customer account with the SMS-enabled numbers its SMS To Dos send from and the\n"+
			"authenticated domains its email To Dos send from (adding a domain vouches for its SPF and DKIM).", stdout)
	path := c.db()
	req := &answerdesk.AccountCreate{}
	c.fs.StringVar(&req.Number, "number", "", "account `number`, 1 to 20 digits (required)")
	c.fs.StringVar(&req.Name, "name", "", "account `name` (required)")
	c.fs.StringVar(&req.TimeZone, "time-zone", answerdesk.DefaultTimeZone, "IANA time `zone` of the account's To Do schedules")
	var sms, domains stringList
	c.fs.Var(&sms, "sms-number", "SMS-enabled `number` in E.164 form, e.g. +15550101001 (repeatable)")
	c.fs.Var(&domains, "sending-domain", "authenticated email-sending `domain` (repeatable)")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if req.Number == "" || req.Name == "" {
		return usagef("account create: --number and --name are required")
	}
	req.SMSNumbers, req.SendingDomains = sms, domains
	db, admins, err := adminService(ctx, *path, false)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := admins.CreateAccount(ctx, answerdesk.SystemCaller(), req)
	if err != nil {
		return err
	}
	return printAccounts(stdout, []*answerdesk.AccountDetail{a})
}

func runAccountList(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("account list", "[--db FILE]", "List every account with its SMS numbers and sending domains.", stdout)
	path := c.db()
	if _, err := c.parse(args); err != nil {
		return err
	}
	db, err := openDB(ctx, *path, true)
	if err != nil {
		return err
	}
	defer db.Close()
	accounts := store.NewAccountService(db)
	var all []*answerdesk.AccountDetail
	for page := 1; ; page++ {
		list, meta, err := accounts.FindAccounts(ctx, answerdesk.SystemCaller(), answerdesk.Paging{Page: page, PageSize: answerdesk.MaxAccountPageSize})
		if err != nil {
			return err
		}
		all = append(all, list...)
		if meta.TotalPages == nil || page >= *meta.TotalPages {
			break
		}
	}
	return printAccounts(stdout, all)
}

func runAccountShow(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("account show", "--number N [--db FILE]", "Show one account.", stdout)
	path := c.db()
	number := c.fs.String("number", "", "account `number` (required)")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *number == "" {
		return usagef("account show: --number is required")
	}
	db, admins, err := adminService(ctx, *path, true)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := admins.FindAccount(ctx, answerdesk.SystemCaller(), *number)
	if err != nil {
		return err
	}
	return printAccounts(stdout, []*answerdesk.AccountDetail{a})
}

func runAccountUpdate(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := newCommand("account update", "--number N [--name NAME] [--time-zone ZONE] [--db FILE]", "Change an account's name or time zone.", stdout)
	path := c.db()
	number := c.fs.String("number", "", "account `number` (required)")
	var name, zone optString
	c.fs.Var(&name, "name", "new account `name`")
	c.fs.Var(&zone, "time-zone", "new IANA time `zone`")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *number == "" {
		return usagef("account update: --number is required")
	}
	if name.v == nil && zone.v == nil {
		return usagef("account update: nothing to change (give --name or --time-zone)")
	}
	db, admins, err := adminService(ctx, *path, true)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := admins.UpdateAccount(ctx, answerdesk.SystemCaller(), *number, &answerdesk.AccountUpdate{Name: name.v, TimeZone: zone.v})
	if err != nil {
		return err
	}
	return printAccounts(stdout, []*answerdesk.AccountDetail{a})
}

// accountEdit returns the command that adds or removes one SMS number, sending domain or
// blacklisted address of an account.
func accountEdit(sub string) func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	flagName := map[string]string{
		"add-sms-number": "sms-number", "remove-sms-number": "sms-number",
		"add-sending-domain": "sending-domain", "remove-sending-domain": "sending-domain",
		"blacklist": "email", "unblacklist": "email",
	}[sub]
	return func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		path := "account " + sub
		c := newCommand(path, "--number N --"+flagName+" VALUE [--db FILE]", accountEditAbout[sub], stdout)
		db := c.db()
		number := c.fs.String("number", "", "account `number` (required)")
		value := c.fs.String(flagName, "", "the `value` (required)")
		if _, err := c.parse(args); err != nil {
			return err
		}
		if *number == "" || *value == "" {
			return usagef("%s: --number and --%s are required", path, flagName)
		}
		conn, admins, err := adminService(ctx, *db, true)
		if err != nil {
			return err
		}
		defer conn.Close()
		sys := answerdesk.SystemCaller()
		var a *answerdesk.AccountDetail
		switch sub {
		case "add-sms-number":
			a, err = admins.AddSMSNumber(ctx, sys, *number, *value)
		case "remove-sms-number":
			a, err = admins.RemoveSMSNumber(ctx, sys, *number, *value)
		case "add-sending-domain":
			a, err = admins.AddSendingDomain(ctx, sys, *number, *value)
		case "remove-sending-domain":
			a, err = admins.RemoveSendingDomain(ctx, sys, *number, *value)
		case "blacklist", "unblacklist":
			var e *answerdesk.BlacklistEntry
			if sub == "blacklist" {
				e, err = admins.AddBlacklistedEmail(ctx, sys, *number, *value)
			} else {
				e, err = admins.RemoveBlacklistedEmail(ctx, sys, *number, *value)
			}
			if err != nil {
				return err
			}
			verb := map[string]string{"blacklist": "is blacklisted", "unblacklist": "is no longer blacklisted"}[sub]
			fmt.Fprintln(stdout, e.Email, verb)
			return nil
		}
		if err != nil {
			return err
		}
		return printAccounts(stdout, []*answerdesk.AccountDetail{a})
	}
}

var accountEditAbout = map[string]string{
	"add-sms-number":        "Let the account send SMS To Dos from a number (E.164, e.g. +15550101001; ten digits get +1).",
	"remove-sms-number":     "Stop the account sending SMS To Dos from a number.",
	"add-sending-domain":    "Add an authenticated email-sending domain: you vouch that its SPF and DKIM are set up.",
	"remove-sending-domain": "Remove an email-sending domain of the account.",
	"blacklist":             "Forbid an address as a To Do's from_email for this account. Each account has its own\nblacklist: other accounts are not affected.",
	"unblacklist":           "Lift the blacklisting of an address.",
}
