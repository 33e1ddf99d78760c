package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// runExit runs the command line as main does and returns stdout, stderr and the exit code.
func runExit(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	code := exitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

// TestCommandLineBehaves pins how every command answers help, bad flags and bad values:
// its own help on -h with exit 0, flags anywhere, exit 2 naming the flag for a mistake,
// and one clean error line.
func TestCommandLineBehaves(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "cli.db")
	if _, errOut, code := runExit(t, "", "account", "create", "--db", db, "--number", "1001", "--name", "Acme"); code != 0 {
		t.Fatalf("setup: %s", errOut)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring wanted on stdout
		stderr   string // substring wanted on stderr
		notInAny string // substring that must appear nowhere
	}{
		{"global_help", []string{"-h"}, 0, "answerdesk account create", "", ""},
		{"help_command_prints_that_commands_help", []string{"help", "serve"}, 0, "Usage: answerdesk serve", "", ""},
		{"version_flag", []string{"--version"}, 0, "answerdesk dev", "", ""},
		{"version_command", []string{"version"}, 0, "answerdesk dev", "", ""},
		{"group_help", []string{"token", "-h"}, 0, "revoke", "", "unknown subcommand"},
		{"user_group_help", []string{"user", "--help"}, 0, "update", "", "want create"},
		{"account_group_help", []string{"account", "-h"}, 0, "add-sending-domain", "", ""},
		{"leaf_help_lists_only_its_flags", []string{"token", "list", "-h"}, 0, "--user", "", "--name"},
		{"serve_help", []string{"serve", "-h"}, 0, "--trusted-proxy", "", ""},
		{"db_backup_help", []string{"db", "backup", "-h"}, 0, "--to", "", ""},
		{"group_without_subcommand", []string{"token"}, 2, "", "want a subcommand: create, list, revoke", ""},
		{"unknown_subcommand", []string{"user", "delete"}, 2, "", `unknown subcommand "delete"`, ""},
		{"unknown_command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`, ""},
		{"unknown_flag", []string{"token", "list", "--nope"}, 2, "", "unknown flag --nope", ""},
		{"flags_after_the_id_count", []string{"token", "revoke", "999", "--db", db}, 1, "", "no token 999", "does not exist"},
		{"missing_db_is_named", []string{"token", "list", "--db", filepath.Join(dir, "typo.db")}, 1, "", "typo.db does not exist", ""},
		{"extra_argument", []string{"migrate", "--db", db, "extra"}, 2, "", `unexpected argument "extra"`, ""},
		{"serve_log_format", []string{"serve", "--log-format", "xml"}, 2, "", "--log-format \"xml\": want text or json", ""},
		{"serve_smtp_tls", []string{"serve", "--smtp-tls", "foo"}, 2, "", "--smtp-tls", ""},
		{"serve_base_url", []string{"serve", "--base-url", "notaurl"}, 2, "", "--base-url \"notaurl\"", ""},
		{"serve_addr", []string{"serve", "--addr", "8080"}, 2, "", "--addr", ""},
		{"serve_trusted_proxy", []string{"serve", "--trusted-proxy", "nope"}, 2, "", "--trusted-proxy", ""},
		{"serve_duration", []string{"serve", "--shutdown-timeout", "0s"}, 2, "", "--shutdown-timeout", ""},
		{"serve_feature", []string{"serve", "--feature", "teleport"}, 2, "", "--feature", ""},
		{"serve_db_max_conns", []string{"serve", "--db-max-conns", "-1"}, 2, "", "--db-max-conns \"-1\": want 0 (the default) to 1000", ""},
		{"serve_db_conn_max_lifetime", []string{"serve", "--db-conn-max-lifetime", "-5m"}, 2, "", "--db-conn-max-lifetime", ""},
		{"serve_pprof_addr_not_loopback", []string{"serve", "--pprof-addr", "0.0.0.0:6060"}, 2, "", "--pprof-addr \"0.0.0.0:6060\": want a loopback address", ""},
		{"serve_pprof_addr_no_port", []string{"serve", "--pprof-addr", "127.0.0.1"}, 2, "", "--pprof-addr", ""},
		{"bad_number_value", []string{"serve", "--public-rate-limit", "lots"}, 2, "", "--public-rate-limit: not a number", ""},
		{"error_printed_once_without_prefix_repeat", []string{"token", "create", "--db", db, "--user", "ghost@example.com"}, 1, "", "answerdesk: no user with email", "answerdesk: answerdesk:"},
		{"validation_error_not_repeated", []string{"user", "create", "--db", db, "--email", "x@example.com", "--password-stdin"}, 1, "", "password: must be at least 8 characters", "(password must"},
		{"unknown_account_says_what_to_do", []string{"user", "create", "--db", db, "--email", "y@example.com", "--account", "4242"}, 1, "", "answerdesk account create --number 4242", ""},
		// The one email rule (answerdesk.IsEmailAddress; TestSameEmailVerdicts in mcp walks REST and MCP).
		{"user_email_with_a_display_name", []string{"user", "create", "--db", db, "--email", "Dana <dana@example.com>"}, 1, "", "must be an email address", ""},
		{"user_email_without_a_dot_in_its_domain", []string{"user", "create", "--db", db, "--email", "dana@localhost"}, 1, "", "must be an email address", ""},
		{"account_taken", []string{"account", "create", "--db", db, "--number", "1001", "--name", "Again"}, 1, "", "number: is taken", ""},
		{"account_bad_zone", []string{"account", "create", "--db", db, "--number", "1002", "--name", "B", "--time-zone", "Mars/Base"}, 1, "", "time_zone", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := ""
			if tc.name == "validation_error_not_repeated" {
				stdin = "short\n"
			}
			out, errOut, code := runExit(t, stdin, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) ||
				(tc.notInAny != "" && strings.Contains(out+errOut, tc.notInAny)) {
				t.Fatalf("answerdesk %s: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, out, errOut)
			}
			if code != 0 && strings.Count(strings.TrimSpace(lastLine(errOut)), "answerdesk:") != 1 {
				t.Fatalf("want one error line, got %q", errOut)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestProvisioningCommands provisions an empty database from the command line alone.
func TestProvisioningCommands(t *testing.T) {
	testdb.ForEachEngine(t, testProvisioningCommands)
}

func testProvisioningCommands(t *testing.T, engine string) {
	db := testdb.DSN(t, engine, "prov.db")
	steps := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"account_with_number_and_domain", "", []string{"account", "create", "--db", db, "--number", "2001", "--name", "Cedar Law", "--sms-number", "+15550102001", "--sending-domain", "cedar.example", "--time-zone", "America/Chicago"}, "+15550102001  cedar.example"},
		{"add_sms_number", "", []string{"account", "add-sms-number", "--db", db, "--number", "2001", "--sms-number", "5550102002"}, "+15550102001,+15550102002"},
		{"remove_sms_number", "", []string{"account", "remove-sms-number", "--db", db, "--number", "2001", "--sms-number", "+15550102002"}, "+15550102001 "},
		{"add_sending_domain", "", []string{"account", "add-sending-domain", "--db", db, "--number", "2001", "--sending-domain", "mail.cedar.example"}, "cedar.example,mail.cedar.example"},
		{"remove_sending_domain", "", []string{"account", "remove-sending-domain", "--db", db, "--number", "2001", "--sending-domain", "mail.cedar.example"}, "cedar.example\n"},
		{"blacklist", "", []string{"account", "blacklist", "--db", db, "--number", "2001", "--email", "noreply@cedar.example"}, "noreply@cedar.example is blacklisted"},
		{"list_blacklist", "", []string{"account", "list-blacklist", "--db", db, "--number", "2001"}, "noreply@cedar.example  "},
		{"unblacklist", "", []string{"account", "unblacklist", "--db", db, "--number", "2001", "--email", "noreply@cedar.example"}, "no longer blacklisted"},
		{"update", "", []string{"account", "update", "--db", db, "--number", "2001", "--name", "Cedar Law LLP"}, "Cedar Law LLP"},
		{"show", "", []string{"account", "show", "--db", db, "--number", "2001"}, "America/Chicago"},
		{"list", "", []string{"account", "list", "--db", db}, "2001"},
		{"user", "a long passphrase\n", []string{"user", "create", "--db", db, "--email", "you@cedar.example", "--password-stdin", "--account", "2001"}, "user 1 created"},
		{"user_disable", "", []string{"user", "update", "--db", db, "--email", "you@cedar.example", "--disable"}, "true      true"},
		{"user_enable_and_admin", "", []string{"user", "update", "1", "--db", db, "--enable", "--admin"}, "you@cedar.example  true   false"},
		{"user_list", "", []string{"user", "list", "--db", db}, "2001"},
		{"user_password", "another passphrase\n", []string{"user", "update", "--db", db, "--email", "you@cedar.example", "--password-stdin"}, "you@cedar.example"},
		{"token", "", []string{"token", "create", "--db", db, "--user", "you@cedar.example", "--name", "ci"}, "ak_"},
		{"token_list", "", []string{"token", "list", "--db", db, "--user", "you@cedar.example"}, "ci"},
		{"migrate_again", "", []string{"migrate", "--db", db}, "is migrated"},
	}
	if engine == testdb.SQLite {
		steps = append(steps, struct {
			name  string
			stdin string
			args  []string
			want  string
		}{"backup", "", []string{"db", "backup", "--db", db, "--to", db + ".bak"}, "integrity ok"})
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, errOut, code := runExit(t, s.stdin, s.args...)
			if code != 0 || !strings.Contains(out, s.want) {
				t.Fatalf("answerdesk %s: exit %d\n%s%s\nwant %q", strings.Join(s.args, " "), code, out, errOut, s.want)
			}
		})
	}
	if engine == testdb.Postgres {
		t.Run("backup_refers_to_pg_dump", func(t *testing.T) {
			to := filepath.Join(t.TempDir(), "b.db")
			if _, errOut, code := runExit(t, "", "db", "backup", "--db", db, "--to", to); code != 1 || !strings.Contains(errOut, "pg_dump") {
				t.Fatalf("db backup of a PostgreSQL URL: exit %d %s", code, errOut)
			}
			if _, err := os.Stat(to); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("db backup left %s: %v", to, err)
			}
		})
		return
	}
	t.Run("backup_holds_the_data_and_refuses_to_overwrite", func(t *testing.T) {
		out, _, code := runExit(t, "", "account", "list", "--db", db+".bak")
		if code != 0 || !strings.Contains(out, "Cedar Law LLP") {
			t.Fatalf("backup: %d %s", code, out)
		}
		if _, errOut, code := runExit(t, "", "db", "backup", "--db", db, "--to", db+".bak"); code != 1 || !strings.Contains(errOut, "exists") {
			t.Fatalf("overwrote: %d %s", code, errOut)
		}
		if info, err := os.Stat(db + ".bak"); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("backup mode: %v %v", info, err)
		}
	})
}
