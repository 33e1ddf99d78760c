package demo

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

var seedNow = time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

func seededDB(t *testing.T, engine, name string) (*store.DB, *Credentials) {
	t.Helper()
	db := testapp.OpenStore(t, engine, name)
	demo, err := Seed(context.Background(), db, Options{Now: seedNow})
	if err != nil {
		t.Fatal(err)
	}
	return db, demo
}

func count(t *testing.T, db *store.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func messageDigest(t *testing.T, db *store.DB) string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT a.number, m.uuid, m.content, m.created_at, m.status, m.origin, m.answers
		FROM messages m JOIN accounts a ON a.id = m.account_id ORDER BY m.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var num, uuid, content, status, origin, answers string
		var created int64
		if err := rows.Scan(&num, &uuid, &content, &created, &status, &origin, &answers); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s|%s|%s|%d|%s|%s|%s\n", num, uuid, content, created, status, origin, answers)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestSeedCounts(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, demo := seededDB(t, engine, "a.db")
		for _, c := range []struct {
			query string
			want  int
		}{
			{`SELECT count(*) FROM accounts`, 2},
			{`SELECT count(*) FROM users`, 3},
			{`SELECT count(*) FROM messages`, 500},
			{`SELECT count(*) FROM call_recordings`, 200},
			{`SELECT count(*) FROM api_tokens`, 2},
			{`SELECT count(*) FROM memberships`, 2},
			{`SELECT count(*) FROM users WHERE admin = 1 AND email = 'admin@answerdesk.example'`, 1},
			{`SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.admin = 1`, 0},
			{`SELECT count(*) FROM accounts WHERE number = '1001' AND name = 'Acme Plumbing' AND time_zone = 'America/New_York'`, 1},
			{`SELECT count(*) FROM accounts WHERE number = '1002' AND name = 'Birch Dental' AND time_zone = 'America/Chicago'`, 1},
			{`SELECT count(*) FROM phone_numbers p JOIN accounts a ON a.id = p.account_id
			WHERE a.number = '1001' AND p.number = '+15550101001' AND p.sms_enabled = 1 AND p.ai_assistant_id = 'asst_acme_demo'`, 1},
			{`SELECT count(*) FROM phone_numbers p JOIN accounts a ON a.id = p.account_id
			WHERE a.number = '1002' AND p.number = '+15550101002' AND p.sms_enabled = 1 AND p.ai_assistant_id IS NULL`, 1},
			{`SELECT count(*) FROM sending_domains d JOIN accounts a ON a.id = d.account_id
			WHERE a.number = '1001' AND d.domain = 'acme.example' OR a.number = '1002' AND d.domain = 'birch.example'`, 2},
			{`SELECT count(*) FROM email_blacklist WHERE email = 'blocked@acme.example' AND account_id = (SELECT id FROM accounts WHERE number = '1001')`, 1},
			{`SELECT count(*) FROM messages WHERE escalation_counter != 0 OR activities_count NOT BETWEEN 0 AND 5`, 0},
			{`SELECT count(*) FROM messages WHERE origin != upper(origin)`, 0},
			{`SELECT count(*) FROM messages WHERE origin IN ('CALL', 'AI_CALL') AND call_id IS NULL`, 0},
			{`SELECT count(*) FROM messages WHERE origin NOT IN ('CALL', 'AI_CALL') AND call_id IS NOT NULL`, 0},
			{`SELECT count(DISTINCT call_id) - count(call_id) FROM messages`, 0},
		} {
			if got := count(t, db, c.query); got != c.want {
				t.Errorf("%s = %d, want %d", c.query, got, c.want)
			}
		}
		if demo.Password != "demo-password" || !answerdesk.ValidTokenFormat(demo.Token) || !answerdesk.ValidTokenFormat(demo.AdminToken) || demo.Token == demo.AdminToken {
			t.Errorf("demo = %+v", demo)
		}
		for _, email := range []string{"owner@acme.example", "owner@birch.example", "admin@answerdesk.example"} {
			if _, err := store.NewUserService(db).CheckPassword(context.Background(), email, "demo-password"); err != nil {
				t.Errorf("sign in as %s: %v", email, err)
			}
		}
		// Roughly 60/40 between the accounts, and a mix of every origin and status.
		if n := count(t, db, `SELECT count(*) FROM messages m JOIN accounts a ON a.id = m.account_id WHERE a.number = '1001'`); n < 250 || n > 350 {
			t.Errorf("account 1001 has %d of 500 messages, want about 300", n)
		}
		for _, o := range answerdesk.Origins {
			if count(t, db, `SELECT count(*) FROM messages WHERE origin = ?`, o) == 0 {
				t.Errorf("no message with origin %s", o)
			}
		}
		if a, c := count(t, db, `SELECT count(*) FROM messages WHERE origin = 'CALL'`), count(t, db, `SELECT count(*) FROM messages WHERE origin = 'CHAT'`); a <= c {
			t.Errorf("CALL %d not the most common origin (CHAT %d)", a, c)
		}
		for _, s := range answerdesk.Statuses {
			if count(t, db, `SELECT count(*) FROM messages WHERE status = ?`, s) == 0 {
				t.Errorf("no message with status %s", s)
			}
		}
		for _, q := range []string{
			`SELECT count(*) FROM messages WHERE is_emergency = 1`,
			`SELECT count(*) FROM messages WHERE read = 1`,
			`SELECT count(*) FROM messages WHERE read = 0`,
			`SELECT count(*) FROM messages WHERE answers != '{}'`,
			`SELECT count(*) FROM messages WHERE company_name IS NOT NULL`,
			`SELECT count(*) FROM messages WHERE non_message_type = 'hang_up'`,
			`SELECT count(*) FROM messages WHERE non_message_type IN ('wrong_number', 'spam')`,
		} {
			if count(t, db, q) == 0 {
				t.Errorf("%s = 0", q)
			}
		}
		if n := count(t, db, `SELECT count(DISTINCT content) FROM messages`); n < 450 {
			t.Errorf("only %d distinct message texts", n)
		}
	})
}

// TestSeedMessageConsistency checks that every message's state agrees with its times and
// its fields have the documented forms.
func TestSeedMessageConsistency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, _ := seededDB(t, engine, "a.db")
		now := seedNow.UnixMilli()
		uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
		phoneRE := regexp.MustCompile(`^(\+1\d{10}|\(\d{3}\) \d{3}-\d{4})$`)
		rows, err := db.SQL().Query(`SELECT uuid, status, origin, created_at, updated_at, delivered_at, acknowledged_at,
		message_received_date, answers, phone, caller_id, non_message_type FROM messages`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var old, oldAcked int
		for rows.Next() {
			var uuid, status, origin, answers string
			var created, updated int64
			var delivered, acked, received *int64
			var phone, callerID, nonMessage *string
			if err := rows.Scan(&uuid, &status, &origin, &created, &updated, &delivered, &acked, &received, &answers, &phone, &callerID, &nonMessage); err != nil {
				t.Fatal(err)
			}
			if !uuidRE.MatchString(uuid) {
				t.Errorf("uuid %q is not a version-4 UUID", uuid)
			}
			if !slices.Contains(answerdesk.Origins, origin) {
				t.Errorf("%s: origin %q", uuid, origin)
			}
			if created < now-60*24*3600*1000 || created > now {
				t.Errorf("%s: created_at %d outside the last 60 days", uuid, created)
			}
			if received == nil || *received != created {
				t.Errorf("%s: message_received_date %v, want created_at", uuid, received)
			}
			switch status {
			case "new":
				if delivered != nil || acked != nil {
					t.Errorf("%s: new message has delivered_at or acknowledged_at", uuid)
				}
			case "delivered":
				if delivered == nil || acked != nil {
					t.Errorf("%s: delivered message without delivered_at, or with acknowledged_at", uuid)
				}
			case "acknowledged":
				if delivered == nil || acked == nil || *acked < *delivered {
					t.Errorf("%s: acknowledged message times %v %v", uuid, delivered, acked)
				}
			default:
				t.Errorf("%s: status %q", uuid, status)
			}
			for _, ts := range []*int64{delivered, acked} {
				if ts != nil && (*ts < created || *ts > now || *ts > updated) {
					t.Errorf("%s: time %d not between created_at %d, updated_at %d and now", uuid, *ts, created, updated)
				}
			}
			if updated < created || updated > now {
				t.Errorf("%s: updated_at %d", uuid, updated)
			}
			var ans map[string]any
			if err := json.Unmarshal([]byte(answers), &ans); err != nil {
				t.Errorf("%s: answers %q: %v", uuid, answers, err)
			}
			if len(ans) > 0 && (ans["Callback number"] == nil || ans["Reason for call"] == nil || ans["Best time to call"] == nil) {
				t.Errorf("%s: answers %v", uuid, ans)
			}
			if phone != nil && !phoneRE.MatchString(*phone) {
				t.Errorf("%s: phone %q", uuid, *phone)
			}
			if callerID != nil && !regexp.MustCompile(`^\+1\d{10}$`).MatchString(*callerID) {
				t.Errorf("%s: caller_id %q", uuid, *callerID)
			}
			if nonMessage != nil && !slices.Contains(answerdesk.NonMessageTypes, *nonMessage) {
				t.Errorf("%s: non_message_type %q", uuid, *nonMessage)
			}
			if now-created > 14*24*3600*1000 {
				old++
				if status == "acknowledged" {
					oldAcked++
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if oldAcked*10 < old*7 {
			t.Errorf("%d of %d messages older than two weeks acknowledged, want most", oldAcked, old)
		}
	})
}

func TestSeedIdempotent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, first := seededDB(t, engine, "a.db")
		digest := messageDigest(t, db)
		second, err := Seed(context.Background(), db, Options{Now: seedNow.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if *first != *second {
			t.Errorf("second Seed returned %+v, first %+v", second, first)
		}
		for table, want := range map[string]int{"accounts": 2, "users": 3, "messages": 500, "call_recordings": 200, "api_tokens": 2,
			"phone_numbers": 2, "sending_domains": 2, "email_blacklist": 1, "memberships": 2} {
			if n := count(t, db, `SELECT count(*) FROM `+table); n != want {
				t.Errorf("%s: %d rows after seeding twice, want %d", table, n, want)
			}
		}
		if messageDigest(t, db) != digest {
			t.Error("seeding again changed the messages")
		}
	})
}

func TestSeedDeterministic(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db1, demo1 := seededDB(t, engine, "a.db")
		db2, demo2 := seededDB(t, engine, "b.db")
		if *demo1 != *demo2 {
			t.Errorf("demo credentials differ: %+v, %+v", demo1, demo2)
		}
		if d1, d2 := messageDigest(t, db1), messageDigest(t, db2); d1 != d2 {
			t.Errorf("message digests differ: %s, %s", d1, d2)
		}
		recs := func(db *store.DB) string {
			rows, err := db.SQL().Query(`SELECT id, call_id, call_sid, started_at, connection_sec, skill_name, has_audio,
			(SELECT data FROM audio_chunks c WHERE c.key = r.audio_key) FROM call_recordings r ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			h := sha256.New()
			for rows.Next() {
				var id, callID, started, conn int64
				var sid, skill string
				var audio []byte
				var hasAudio bool
				if err := rows.Scan(&id, &callID, &sid, &started, &conn, &skill, &hasAudio, &audio); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintln(h, id, callID, sid, started, conn, skill, hasAudio, audio)
			}
			return hex.EncodeToString(h.Sum(nil))
		}
		if r1, r2 := recs(db1), recs(db2); r1 != r2 {
			t.Errorf("recording digests differ")
		}
	})
}

func TestSeedDemoToken(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, demo := seededDB(t, engine, "a.db")
		ctx := context.Background()
		var acme int64
		if err := db.SQL().QueryRow(`SELECT id FROM accounts WHERE number = '1001'`).Scan(&acme); err != nil {
			t.Fatal(err)
		}
		tokens := store.NewTokenService(db)
		c, err := tokens.AuthenticateToken(ctx, demo.Token)
		if err != nil {
			t.Fatal(err)
		}
		if c.Email != "owner@acme.example" || c.Admin || !slices.Equal(c.AccountIDs, []int64{acme}) {
			t.Errorf("demo token caller = %+v, want owner@acme.example in account %d only", c, acme)
		}
		admin, err := tokens.AuthenticateToken(ctx, demo.AdminToken)
		if err != nil {
			t.Fatal(err)
		}
		if admin.Email != "admin@answerdesk.example" || !admin.Admin || len(admin.AccountIDs) != 0 {
			t.Errorf("admin token caller = %+v", admin)
		}
		list, err := tokens.ListTokens(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range list {
			if tok.Name != "Demo token" {
				t.Errorf("token name %q", tok.Name)
			}
		}
	})
}

func TestSeedRecordings(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, _ := seededDB(t, engine, "a.db")
		for _, c := range []struct {
			what  string
			query string
		}{
			{"recordings without a message of the same account and call", `SELECT count(*) FROM call_recordings r
			WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.call_id = r.call_id AND m.account_id = r.account_id)`},
			{"call ids with more than one recording", `SELECT count(*) - count(DISTINCT call_id) FROM call_recordings`},
			{"recordings not started a call length before their message", `SELECT count(*) FROM call_recordings r
			JOIN messages m ON m.call_id = r.call_id WHERE r.started_at != m.created_at - r.connection_sec * 1000`},
			{"CDRs whose figures do not add up", `SELECT count(*) FROM call_recordings WHERE
			connection_sec != ivr_sec + wait_sec + talk_sec + hold_sec + transfer_sec
			OR end_time != start_time + connection_sec * 1000
			OR agent_answer_time != start_time + (ivr_sec + wait_sec) * 1000
			OR hang_up_time != end_time OR start_time != started_at OR call_created_at != start_time
			OR ivr_sec < 0 OR wait_sec < 0 OR talk_sec < 0 OR hold_sec < 0 OR transfer_sec < 0 OR wrap_sec < 0 OR talk_sec = 0 AND wrap_sec = 0`},
			{"CDRs with wrong fixed fields", `SELECT count(*) FROM call_recordings r JOIN phone_numbers p ON p.account_id = r.account_id
			WHERE r.call_type != 'InboundCall' OR r.who_hung_up NOT IN ('agent', 'caller')
			OR r.did != p.number OR r.did_number != p.number OR r.number_dialed != p.number
			OR r.callerid != r.from_number OR substr(r.callerid, 1, 2) != '+1' OR length(r.callerid) != 12 OR ltrim(substr(r.callerid, 2), '0123456789') != ''
			OR substr(r.call_sid, 1, 2) != 'CA' OR length(r.call_sid) != 34 OR ltrim(substr(r.call_sid, 3), '0123456789abcdef') != ''
			OR r.agent_name IS NULL OR r.agent_username IS NULL OR r.agent_id IS NULL`},
			{"skill names not of the account", `SELECT count(*) FROM call_recordings r JOIN accounts a ON a.id = r.account_id
			WHERE r.skill_name NOT LIKE a.name || ' - %'`},
			{"recordings whose caller is not the message's", `SELECT count(*) FROM call_recordings r JOIN messages m ON m.call_id = r.call_id
			WHERE r.from_number != m.caller_id OR r.agent_id != m.agent_id`},
			{"duplicate cdr ids", `SELECT count(*) - count(DISTINCT cdr_id) FROM call_recordings`},
			{"duplicate unique call ids", `SELECT count(*) - count(DISTINCT unique_call_id) FROM call_recordings`},
			{"recent recordings without audio", `SELECT count(*) FROM call_recordings r WHERE r.started_at >= ? AND
			(r.has_audio = 0 OR NOT EXISTS (SELECT 1 FROM audio_objects a WHERE a.key = r.audio_key AND a.complete = 1))`},
			{"old recordings with audio", `SELECT count(*) FROM call_recordings r WHERE r.started_at < ? AND
			(r.has_audio = 1 OR r.audio_key IS NOT NULL)`},
		} {
			args := []any{}
			if c.what == "recent recordings without audio" || c.what == "old recordings with audio" {
				args = append(args, seedNow.Add(-31*24*time.Hour).UnixMilli())
			}
			if n := count(t, db, c.query, args...); n != 0 {
				t.Errorf("%d %s", n, c.what)
			}
		}
		if n := count(t, db, `SELECT count(*) FROM audio_objects`); n < 50 || n > 150 {
			t.Errorf("%d recordings have audio, want about half", n)
		}
		if n := count(t, db, `SELECT count(DISTINCT skill_name) FROM call_recordings`); n < 4 {
			t.Errorf("only %d skill names", n)
		}

		rows, err := db.SQL().Query(`SELECT r.id, r.audio_type, c.data FROM call_recordings r JOIN audio_chunks c ON c.key = r.audio_key`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		seen := map[string]bool{}
		for rows.Next() {
			var id int64
			var ct string
			var data []byte
			if err := rows.Scan(&id, &ct, &data); err != nil {
				t.Fatal(err)
			}
			if ct != "audio/wav" {
				t.Errorf("recording %d: content type %q", id, ct)
			}
			if err := checkWAV(data); err != nil {
				t.Errorf("recording %d: %v", id, err)
			}
			seen[fmt.Sprintf("%x", sha256.Sum256(data))] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT count(*) FROM audio_objects`); len(seen) != n {
			t.Errorf("%d distinct audio files among %d", len(seen), n)
		}
	})
}

// checkWAV parses a RIFF/WAVE header and checks it describes 2-4 s of 8 kHz mono PCM.
func checkWAV(b []byte) error {
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" || string(b[12:16]) != "fmt " || string(b[36:40]) != "data" {
		return fmt.Errorf("not a canonical RIFF/WAVE file")
	}
	if int(le.Uint32(b[4:])) != len(b)-8 {
		return fmt.Errorf("RIFF size %d, file %d bytes", le.Uint32(b[4:]), len(b))
	}
	format, channels, rate := le.Uint16(b[20:]), le.Uint16(b[22:]), le.Uint32(b[24:])
	byteRate, align, bits := le.Uint32(b[28:]), le.Uint16(b[32:]), le.Uint16(b[34:])
	if le.Uint32(b[16:]) != 16 || format != 1 || channels != 1 || rate != 8000 || (bits != 8 && bits != 16) {
		return fmt.Errorf("format %d channels %d rate %d bits %d", format, channels, rate, bits)
	}
	if align != bits/8 || byteRate != rate*uint32(align) {
		return fmt.Errorf("block align %d, byte rate %d", align, byteRate)
	}
	data := int(le.Uint32(b[40:]))
	if data+44 != len(b) && data+45 != len(b) {
		return fmt.Errorf("data size %d, file %d bytes", data, len(b))
	}
	secs := float64(data) / float64(byteRate)
	if secs < 2 || secs > 4 {
		return fmt.Errorf("%.2f s long", secs)
	}
	if bits == 8 && slices.Max(b[44:44+data]) == slices.Min(b[44:44+data]) {
		return fmt.Errorf("silent")
	}
	return nil
}

func TestSeedMessages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db, _ := seededDB(t, engine, "a.db")
		ctx := context.Background()
		if err := SeedMessages(ctx, db, "1001", 10000, 30, seedNow); err != nil {
			t.Fatal(err)
		}
		if err := SeedMessages(ctx, db, "1002", 1000, 7, seedNow); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT count(*) FROM messages m JOIN accounts a ON a.id = m.account_id WHERE a.number = '1001'`); n < 10250 || n > 10350 {
			t.Errorf("account 1001 has %d messages, want 10000 more than its demo ones", n)
		}
		if n := count(t, db, `SELECT count(*) FROM messages`); n != 11500 {
			t.Errorf("%d messages, want 11500", n)
		}
		if n := count(t, db, `SELECT count(*) FROM messages WHERE id > 500 AND (created_at < ? OR created_at > ?)`,
			seedNow.Add(-30*24*time.Hour).UnixMilli(), seedNow.UnixMilli()); n != 0 {
			t.Errorf("%d messages outside the 30 days", n)
		}
		if n := count(t, db, `SELECT count(*) FROM call_recordings r JOIN messages m ON m.call_id = r.call_id AND m.account_id = r.account_id`); n != 200 {
			t.Errorf("recordings match %d messages, want 200 (new messages must not reuse recorded call ids)", n)
		}
		// Seeding the same again must not collide on uuid.
		if err := SeedMessages(ctx, db, "1001", 10000, 30, seedNow); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT count(*) FROM messages`); n != 21500 {
			t.Errorf("%d messages, want 21500", n)
		}
		if err := SeedMessages(ctx, db, "9999", 10, 1, seedNow); answerdesk.ErrorCode(err) != answerdesk.ENOTFOUND {
			t.Errorf("unknown account: %v", err)
		}
	})
}

// TestSeedMessagesEmptyDB checks SeedMessages on an account with no phone number and no
// demo data.
func TestSeedMessagesEmptyDB(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db := testapp.OpenStore(t, engine, "a.db")
		if _, err := db.CreateAccount(context.Background(), "42", "Zed Roofing", ""); err != nil {
			t.Fatal(err)
		}
		if err := SeedMessages(context.Background(), db, "42", 500, 3, seedNow); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT count(*) FROM messages WHERE did_id IS NULL`); n != 500 {
			t.Errorf("%d messages, want 500 without did_id", n)
		}
	})
}

// TestSeedShowcasesWhateverTheTime checks that the messages the documentation names by id
// are the same whatever the time of day the demo is seeded: message 500, account 1001's
// newest, a call with the newest recording (200), and message 499, account 1002's.
func TestSeedShowcasesWhateverTheTime(t *testing.T) {
	type shown struct {
		id                               int64
		account, uuid, origin, content   string
		status, answers                  string
		ageMS                            int64
		nonMessage                       *string
		recordingID, recordingConnection *int64
	}
	read := func(t *testing.T, db *store.DB, now time.Time) []shown {
		t.Helper()
		rows, err := db.SQL().Query(`SELECT m.id, a.number, m.uuid, m.origin, m.content, m.status, m.answers, m.created_at,
			m.non_message_type, r.id, r.connection_sec
			FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN call_recordings r ON r.call_id = m.call_id
			WHERE m.id >= 499 ORDER BY m.id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []shown
		for rows.Next() {
			var s shown
			var created int64
			if err := rows.Scan(&s.id, &s.account, &s.uuid, &s.origin, &s.content, &s.status, &s.answers, &created,
				&s.nonMessage, &s.recordingID, &s.recordingConnection); err != nil {
				t.Fatal(err)
			}
			s.ageMS = now.UnixMilli() - created
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var first []shown
	for _, at := range []time.Duration{
		4*time.Hour + 30*time.Minute, // before midnight in New York and Chicago
		5*time.Hour + 30*time.Minute, // after midnight in New York, before it in Chicago
		15*time.Hour + 9*time.Minute,
		23*time.Hour + 59*time.Minute,
	} {
		now := day.Add(at)
		t.Run(now.Format("15:04"), func(t *testing.T) {
			db := testapp.OpenStore(t, testdb.SQLite, "a.db")
			if _, err := Seed(context.Background(), db, Options{Now: now}); err != nil {
				t.Fatal(err)
			}
			got := read(t, db, now)
			if len(got) != 2 {
				t.Fatalf("%d messages from id 499 on, want 2", len(got))
			}
			if s := got[0]; s.id != 499 || s.account != "1002" {
				t.Errorf("message 499 is account %s's, want 1002's", s.account)
			}
			if s := got[1]; s.account != "1001" || s.origin != answerdesk.OriginCall || s.nonMessage != nil ||
				s.recordingID == nil || *s.recordingID != 200 {
				t.Errorf("message 500 = %+v, want account 1001's call with recording 200", s)
			}
			if n := count(t, db, `SELECT count(*) FROM messages WHERE created_at > (SELECT created_at FROM messages WHERE id = 499)`); n != 1 {
				t.Errorf("%d messages newer than message 499, want 1 (message 500)", n)
			}
			if n := count(t, db, `SELECT count(*) FROM call_recordings WHERE started_at > (SELECT started_at FROM call_recordings WHERE id = 200)`); n != 0 {
				t.Errorf("%d recordings newer than recording 200", n)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Errorf("showcases seeded at %s differ from the first:\n%+v\n%+v", now.Format("15:04"), got, first)
			}
		})
	}
}
