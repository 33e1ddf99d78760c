package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/demo"
)

// DemoPassword is the password of every demo user (CONTRACT §6; demo data only).
const DemoPassword = "demo-password"

// The fixed seed of the demo data: the same seed gives the same data.
const (
	seedHi     = 0x616e737765726465 // "answerde"
	seedLo     = 0x736b2d64656d6f31 // "sk-demo1"
	seedTokens = 0x746f6b656e73     // stream of the demo tokens, apart from the data
)

// Demo data sizes and retention, CONTRACT §6.
const (
	demoMessages      = 500
	demoRecordings    = 200
	demoDays          = 60
	audioRetentionDay = 31
	seedBatchSize     = 10000
)

// SeedOptions tunes the demo data; zero values give CONTRACT §6 exactly.
type SeedOptions struct {
	Now        time.Time // anchor of "the last 60 days"; zero means db.Now()
	Messages   int       // default 500; negative means none
	Recordings int       // default 200; negative means none; at most one per call message
}

// Demo is what a seeded database offers a new user.
type Demo struct {
	Token      string // customer API token of owner@acme.example (fixed, derived from the seed)
	AdminToken string // token of admin@answerdesk.example
	Password   string // "demo-password"
}

// seedAccount is an account messages are generated for.
type seedAccount struct {
	id        int64
	number    string
	name      string
	timeZone  string
	dental    bool
	zone      *time.Location
	didID     *int64
	did       string // the account's number callers dial; "" when it has none
	areaCodes []string
	ownerID   int64   // user id stamped on API-origin messages; 0 for none
	share     float64 // share of the generated messages
}

type demoAccountSpec struct {
	number, name, timeZone, phone, domain string
	sms                                   bool
	assistant                             string
	owner                                 string
	share                                 float64
	dental                                bool
	areaCodes                             []string
}

var demoAccountSpecs = []demoAccountSpec{
	{number: "1001", name: "Acme Plumbing", timeZone: "America/New_York", phone: "+15550101001", domain: "acme.example",
		sms: true, assistant: "asst_acme_demo", owner: "owner@acme.example", share: 0.6,
		areaCodes: []string{"212", "718", "917", "516", "631", "914", "201"}},
	{number: "1002", name: "Birch Dental", timeZone: "America/Chicago", phone: "+15550101002", domain: "birch.example",
		sms: true, owner: "owner@birch.example", share: 0.4, dental: true,
		areaCodes: []string{"312", "773", "630", "847", "708"}},
}

const (
	demoAdminEmail = "admin@answerdesk.example"
	demoBlocked    = "blocked@acme.example"
	demoTokenName  = "Demo token"
)

// zoneFor returns a fixed-offset zone for the account's time zone, so generated data does
// not depend on the tzdata of the machine (daylight saving time is ignored).
func zoneFor(tz string) *time.Location {
	offsets := map[string]int{"America/New_York": -5, "America/Chicago": -6, "America/Denver": -7,
		"America/Phoenix": -7, "America/Los_Angeles": -8, "UTC": 0}
	if h, ok := offsets[tz]; ok {
		return time.FixedZone(tz, h*3600)
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.UTC
}

// demoCredentials derives the fixed demo tokens from the seed.
func demoCredentials() *Demo {
	r := rand.New(rand.NewPCG(seedHi, seedLo^seedTokens))
	return &Demo{Token: demo.Token(r), AdminToken: demo.Token(r), Password: DemoPassword}
}

// Seed loads the demo data of CONTRACT §6 unless account 1001 already exists (then it only
// returns the Demo). Deterministic: same seed, same data (ids, contents; times are relative
// to opts.Now).
//
// Users and tokens are made first (each found again if present, so a seed interrupted
// before its last step can be run again); accounts and everything in them are inserted in
// one final transaction, so account 1001 exists only once the data is complete.
func Seed(ctx context.Context, db *DB, opts SeedOptions) (*Demo, error) {
	demo := demoCredentials()
	if ok, err := demoSeeded(ctx, db.write); err != nil || ok {
		if err == nil {
			err = seedThroughServices(ctx, db, db.now()) // a database seeded before these existed
		}
		return demo, err
	}
	now := opts.Now
	if now.IsZero() {
		now = db.now()
	}
	now = now.UTC().Truncate(time.Millisecond)
	nMessages := defaultCount(opts.Messages, demoMessages)
	nRecordings := defaultCount(opts.Recordings, demoRecordings)

	users := NewUserService(db)
	userIDs := map[string]int64{}
	for _, u := range []answerdesk.UserCreate{
		{Email: demoAccountSpecs[0].owner, Password: DemoPassword},
		{Email: demoAccountSpecs[1].owner, Password: DemoPassword},
		{Email: demoAdminEmail, Password: DemoPassword, Admin: true},
	} {
		id, err := findOrCreateUser(ctx, db, users, u)
		if err != nil {
			return nil, fmt.Errorf("seed user %s: %w", u.Email, err)
		}
		userIDs[u.Email] = id
	}
	tokens := NewTokenService(db)
	for _, t := range []struct {
		email, plain string
	}{{demoAccountSpecs[0].owner, demo.Token}, {demoAdminEmail, demo.AdminToken}} {
		var n int
		if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE hash = ?`, answerdesk.HashToken(t.plain)).Scan(&n); err != nil {
			return nil, fmt.Errorf("seed token: %w", err)
		}
		if n > 0 {
			continue
		}
		if _, _, err := tokens.createToken(ctx, userIDs[t.email], demoTokenName, t.plain); err != nil {
			return nil, fmt.Errorf("seed token of %s: %w", t.email, err)
		}
	}

	err := db.tx(ctx, func(tx *sql.Tx) error {
		// Drawn from the start on every run of the transaction, so a retried run inserts the same data.
		g := newGen(rand.New(rand.NewPCG(seedHi, seedLo)))
		if ok, err := demoSeeded(ctx, tx); err != nil || ok {
			return err // seeded concurrently meanwhile
		}
		nowMS := now.UnixMilli()
		created := now.AddDate(0, 0, -400).UnixMilli()
		var accts []*seedAccount
		for _, s := range demoAccountSpecs {
			a := &seedAccount{number: s.number, name: s.name, timeZone: s.timeZone, dental: s.dental,
				zone: zoneFor(s.timeZone), did: s.phone, areaCodes: s.areaCodes, ownerID: userIDs[s.owner], share: s.share}
			if _, err := tx.ExecContext(ctx, `INSERT INTO accounts (number, name, time_zone, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				s.number, s.name, s.timeZone, created); err != nil {
				return fmt.Errorf("seed account %s: %w", s.number, err)
			}
			if err := tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE number = ?`, s.number).Scan(&a.id); err != nil {
				return fmt.Errorf("seed account %s: %w", s.number, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memberships (user_id, account_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, a.ownerID, a.id); err != nil {
				return fmt.Errorf("seed membership: %w", err)
			}
			var assistant *string
			if s.assistant != "" {
				assistant = &s.assistant
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO phone_numbers (account_id, number, sms_enabled, ai_assistant_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				a.id, s.phone, s.sms, assistant); err != nil {
				return fmt.Errorf("seed phone number %s: %w", s.phone, err)
			}
			var didID int64
			if err := tx.QueryRowContext(ctx, `SELECT id FROM phone_numbers WHERE number = ?`, s.phone).Scan(&didID); err != nil {
				return fmt.Errorf("seed phone number %s: %w", s.phone, err)
			}
			a.didID = &didID
			if _, err := tx.ExecContext(ctx, `INSERT INTO sending_domains (account_id, domain, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
				a.id, s.domain, created); err != nil {
				return fmt.Errorf("seed sending domain %s: %w", s.domain, err)
			}
			// The blocked address is on this account's own domain: blacklisted for it.
			if strings.HasSuffix(demoBlocked, "@"+s.domain) {
				if _, err := tx.ExecContext(ctx, `INSERT INTO email_blacklist (account_id, email, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
					a.id, demoBlocked, created); err != nil {
					return fmt.Errorf("seed email blacklist: %w", err)
				}
			}
			accts = append(accts, a)
		}

		msgs := make([]*seedMessage, 0, nMessages)
		for _, s := range g.slots(accts, nMessages, demoDays, now) {
			msgs = append(msgs, g.message(s.acct, s.at, nowMS))
		}
		if err := insertMessages(ctx, tx, msgs); err != nil {
			return err
		}
		return g.insertRecordings(ctx, tx, msgs, nRecordings, now)
	})
	if err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	if err := seedThroughServices(ctx, db, now); err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	return demo, nil
}

func defaultCount(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// demoSeeded reports whether account 1001 exists.
func demoSeeded(ctx context.Context, q queryRower) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE number = ?`, demoAccountSpecs[0].number).Scan(&n); err != nil {
		return false, fmt.Errorf("check demo data: %w", err)
	}
	return n > 0, nil
}

func findOrCreateUser(ctx context.Context, db *DB, users *UserService, u answerdesk.UserCreate) (int64, error) {
	var id int64
	err := db.write.QueryRowContext(ctx, `SELECT id FROM users WHERE email = ?`, u.Email).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	user, err := users.CreateUser(ctx, &u)
	if err != nil {
		return 0, err
	}
	return user.ID, nil
}

// SeedMessages inserts n generated messages for the account number, spread over the `days`
// days before now, in large batched transactions. Used by benchmarks and load tests. The
// messages are random but realistic, like the demo data; they have no call recordings.
func SeedMessages(ctx context.Context, db *DB, accountNumber string, n int, days int, now time.Time) error {
	if n <= 0 {
		return nil
	}
	days = max(days, 1)
	a := &seedAccount{number: accountNumber}
	err := db.write.QueryRowContext(ctx, `SELECT id, name, time_zone FROM accounts WHERE number = ?`, accountNumber).
		Scan(&a.id, &a.name, &a.timeZone)
	if errors.Is(err, sql.ErrNoRows) {
		return answerdesk.Errorf(answerdesk.ENOTFOUND, "no account with number %s", accountNumber)
	}
	if err != nil {
		return fmt.Errorf("find account %s: %w", accountNumber, err)
	}
	a.zone, a.dental, a.share = zoneFor(a.timeZone), strings.Contains(strings.ToLower(a.name), "dental"), 1
	a.areaCodes = []string{"212", "312", "415", "512", "617", "702", "808"}
	for _, s := range demoAccountSpecs {
		if s.number == accountNumber {
			a.areaCodes = s.areaCodes
		}
	}
	var didID int64
	err = db.write.QueryRowContext(ctx, `SELECT id, number FROM phone_numbers WHERE account_id = ? ORDER BY id LIMIT 1`, a.id).Scan(&didID, &a.did)
	switch {
	case err == nil:
		a.didID = &didID
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("find phone number of account %s: %w", accountNumber, err)
	}
	// A seed of its own, different on every call (uuids must not repeat), from the state of
	// the table and the anchor time.
	var maxID int64
	if err := db.write.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM messages`).Scan(&maxID); err != nil {
		return fmt.Errorf("seed messages: %w", err)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d/%d", accountNumber, n, days, now.UnixNano())
	g := newGen(rand.New(rand.NewPCG(h.Sum64(), uint64(maxID)^seedLo)))
	// Call ids above the demo's (which have recordings) and, as each message advances them
	// by at most 40, apart from those of earlier calls.
	g.callID = 2_000_000_000 + maxID*41
	g.chatID = 1_000_000 + maxID*10

	now = now.UTC().Truncate(time.Millisecond)
	nowMS := now.UnixMilli()
	slots := g.slots([]*seedAccount{a}, n, days, now)
	for start := 0; start < len(slots); start += seedBatchSize {
		batch := slots[start:min(start+seedBatchSize, len(slots))]
		msgs := make([]*seedMessage, len(batch))
		for i, s := range batch {
			msgs[i] = g.message(s.acct, s.at, nowMS)
		}
		if err := db.tx(ctx, func(tx *sql.Tx) error { return insertMessages(ctx, tx, msgs) }); err != nil {
			return fmt.Errorf("seed messages: %w", err)
		}
	}
	return db.d.afterBulkLoad(ctx, db.write)
}

// gen generates demo data from one random source, in a fixed order of draws.
type gen struct {
	r       *rand.Rand
	callID  int64
	chatID  int64
	cdrID   int64
	uniqID  int64
	hourCum []int
}

func newGen(r *rand.Rand) *gen {
	// Relative call volume by local hour: an answering service is busy in business hours
	// and evenings and never quiet.
	weights := []int{2, 1, 1, 1, 1, 2, 3, 5, 8, 9, 9, 9, 8, 8, 8, 8, 7, 7, 6, 5, 4, 4, 3, 2}
	cum := make([]int, len(weights))
	total := 0
	for i, w := range weights {
		total += w
		cum[i] = total
	}
	return &gen{r: r, callID: 700_000_000, chatID: 52_000, cdrID: 5_100_000, uniqID: 81_000_000, hourCum: cum}
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }
func (g *gen) chance(p float64) bool     { return g.r.Float64() < p }
func (g *gen) between(lo, hi int) int    { return lo + g.r.IntN(hi-lo+1) }

type slot struct {
	acct *seedAccount
	at   int64 // unix ms
	seq  int
}

// slots chooses the account and time of n messages, oldest first: a random day of the last
// `days` and a local hour weighted by call volume.
func (g *gen) slots(accts []*seedAccount, n, days int, now time.Time) []slot {
	out := make([]slot, n)
	total := g.hourCum[len(g.hourCum)-1]
	for i := range out {
		a := accts[len(accts)-1]
		u := g.r.Float64()
		for _, c := range accts {
			if u < c.share {
				a = c
				break
			}
			u -= c.share
		}
		local := now.In(a.zone)
		midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, a.zone)
		h, _ := slices.BinarySearch(g.hourCum, g.r.IntN(total)+1)
		t := midnight.Add(-time.Duration(g.r.IntN(days)) * 24 * time.Hour).
			Add(time.Duration(h)*time.Hour + time.Duration(g.r.Int64N(int64(time.Hour))))
		if t.After(now) {
			t = t.Add(-24 * time.Hour)
		}
		out[i] = slot{acct: a, at: t.UnixMilli(), seq: i}
	}
	slices.SortFunc(out, func(x, y slot) int { return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq)) })
	return out
}

// seedMessage is a generated message, in the columns Seed fills, plus what its recording
// needs.
type seedMessage struct {
	acct           *seedAccount
	uuid           string
	agent          *demo.Agent
	activities     int
	callID         *int64
	chatID         *int64
	phoneNumber    *string
	callerID       *string
	first, last    *string
	company        *string
	content        string
	status         string
	ivr            *string
	phone, email   *string
	callRefID      *string
	note           *string
	address        *string
	city, state    *string
	zip            *string
	heard          *string
	altPhone       *string
	nonMessageType *string
	emailSubject   *string
	origin         string
	disposition    *string
	read           bool
	emergency      bool
	created        int64
	updated        int64
	delivered      *int64
	acked          *int64
	answers        string
	userID         *int64
}

const messageSeedInsert = `INSERT INTO messages (uuid, account_id, agent_id, user_id, did_id, activities_count,
	escalation_counter, call_id, chat_session_id, phone_number, caller_id, first_name, last_name, company_name,
	content, status, ivr, phone, email, call_ref_id, note, address, city, state, zip, how_you_hear_about_us,
	alt_phone, receiver_name, non_message_type, email_subject, origin, disposition, read, is_emergency,
	created_at, updated_at, delivered_at, message_received_date, acknowledged_at, answers)
	VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func insertMessages(ctx context.Context, tx *sql.Tx, msgs []*seedMessage) error {
	stmt, err := tx.PrepareContext(ctx, messageSeedInsert)
	if err != nil {
		return fmt.Errorf("prepare message insert: %w", err)
	}
	defer stmt.Close()
	for _, m := range msgs {
		var agentID *int64
		var receiver *string
		if m.agent != nil {
			agentID, receiver = &m.agent.ID, &m.agent.Name
		}
		var didID *int64
		if m.callID != nil || m.origin == answerdesk.OriginSMS {
			didID = m.acct.didID
		}
		if _, err := stmt.ExecContext(ctx, m.uuid, m.acct.id, agentID, m.userID, didID, m.activities,
			m.callID, m.chatID, m.phoneNumber, m.callerID, m.first, m.last, m.company,
			m.content, m.status, m.ivr, m.phone, m.email, m.callRefID, m.note, m.address, m.city, m.state, m.zip, m.heard,
			m.altPhone, receiver, m.nonMessageType, m.emailSubject, m.origin, m.disposition, m.read, m.emergency,
			m.created, m.updated, m.delivered, m.created, m.acked, m.answers); err != nil {
			return fmt.Errorf("insert message: %w", err)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// origin draws a channel: mostly live calls, then AI calls, chat and the rest.
func (g *gen) origin() string {
	u := g.r.IntN(100)
	switch {
	case u < 52:
		return answerdesk.OriginCall
	case u < 68:
		return answerdesk.OriginAICall
	case u < 78:
		return answerdesk.OriginChat
	case u < 86:
		return answerdesk.OriginSMS
	case u < 92:
		return answerdesk.OriginEmail
	case u < 97:
		return answerdesk.OriginWeb
	}
	return answerdesk.OriginAPI
}

// caller numbers use the 555-0100..0199 range reserved for fiction.
func (g *gen) callerNumber(a *seedAccount) (e164, area, line string) {
	area = g.pick(a.areaCodes)
	line = fmt.Sprintf("01%02d", g.r.IntN(100))
	return "+1" + area + "555" + line, area, line
}

// message generates the message created at `at` (unix ms) on account a, with a status
// consistent with its age at now.
func (g *gen) message(a *seedAccount, at, now int64) *seedMessage {
	m := &seedMessage{acct: a, uuid: demo.UUID(g.r), origin: g.origin(), created: at, answers: "{}"}
	call := m.origin == answerdesk.OriginCall || m.origin == answerdesk.OriginAICall
	switch m.origin {
	case answerdesk.OriginCall:
		m.agent = &demo.Agents[g.r.IntN(len(demo.Agents))]
	case answerdesk.OriginAICall:
		m.agent = &demo.AIAgent
	case answerdesk.OriginChat:
		m.agent = &demo.Agents[g.r.IntN(len(demo.Agents))]
		g.chatID += int64(g.between(1, 9))
		m.chatID = ptr(g.chatID)
	case answerdesk.OriginAPI:
		if a.ownerID != 0 {
			m.userID = ptr(a.ownerID)
		}
	}
	if call {
		g.callID += int64(g.between(1, 40))
		m.callID = ptr(g.callID)
		m.callRefID = ptr(fmt.Sprintf("%s-%d", a.number, g.callID))
	}
	e164, area, line := g.callerNumber(a)
	if call || m.origin == answerdesk.OriginSMS {
		m.callerID, m.phoneNumber = ptr(e164), ptr(e164)
	}

	if call && g.chance(0.06) {
		g.nonMessage(m)
	} else {
		g.body(m, e164, area, line)
	}
	g.lifecycle(m, now)
	return m
}

// nonMessage fills a call that left no message: a hang-up, wrong number or spam.
func (g *gen) nonMessage(m *seedMessage) {
	var kind, disp string
	switch u := g.r.IntN(4); {
	case u < 2:
		kind, disp = "hang_up", "Hang up"
		m.content = "Caller hung up before leaving a message. Caller ID " + *m.callerID + "."
	case u < 3:
		kind, disp = "wrong_number", "Wrong number"
		m.first = ptr(g.pick(demo.FirstNames))
		m.content = fmt.Sprintf("%s was trying to reach %s. Wrong number; no message taken.", *m.first, g.pick(demo.WrongNumbers))
	default:
		kind, disp = "spam", "Spam"
		m.content = fmt.Sprintf("Recorded sales call about %s. No message taken.", g.pick(demo.SpamTopics))
	}
	m.nonMessageType, m.disposition = ptr(kind), ptr(disp)
}

// body fills a real message: who called, why, how to reach them, and the message text.
func (g *gen) body(m *seedMessage, e164, area, line string) {
	a := m.acct
	reasons, places := demo.PlumbingReasons, demo.AcmePlaces
	if a.dental {
		reasons, places = demo.DentalReasons, demo.BirchPlaces
	}
	rs := reasons[g.r.IntN(len(reasons))]
	first, last := g.pick(demo.FirstNames), g.pick(demo.LastNames)
	m.first, m.last = &first, &last
	name := first + " " + last
	switch {
	case rs.Company != "":
		m.company = ptr(rs.Company)
	case !a.dental && g.chance(0.15):
		m.company = ptr(g.pick(demo.Companies))
	}
	m.emergency = rs.Emergency && g.chance(0.85)

	// The callback number: usually the caller's own, written as the caller gave it.
	callback := fmt.Sprintf("(%s) 555-%s", area, line)
	switch u := g.r.IntN(10); {
	case u < 3:
		callback = e164
	case u < 5:
		_, area2, line2 := g.callerNumber(a)
		callback = fmt.Sprintf("(%s) 555-%s", area2, line2)
	}
	m.phone = &callback
	if m.origin == answerdesk.OriginEmail || m.origin == answerdesk.OriginWeb || m.origin == answerdesk.OriginChat || g.chance(0.2) {
		local := strings.ToLower(strings.ReplaceAll(first+"."+last, "'", ""))
		m.email = ptr(local + "@" + g.pick(demo.EmailDomains))
	}
	if m.origin == answerdesk.OriginEmail {
		m.emailSubject = ptr(rs.Reason)
	}
	if m.origin == answerdesk.OriginCall && g.chance(0.7) {
		switch {
		case m.emergency && a.dental:
			m.ivr = ptr("9 - Dental emergency")
		case m.emergency:
			m.ivr = ptr("1 - Emergency service")
		case a.dental:
			m.ivr = ptr(g.pick(demo.DentalIVR))
		default:
			m.ivr = ptr(g.pick(demo.PlumbingIVR))
		}
	}
	var address string
	if !a.dental && g.chance(0.6) || a.dental && g.chance(0.1) {
		p := places[g.r.IntN(len(places))]
		address = fmt.Sprintf("%d %s", g.between(10, 2999), g.pick(demo.Streets))
		m.address, m.city, m.state, m.zip = ptr(address), ptr(p.City), ptr(p.State), ptr(p.Zip)
	}
	if g.chance(0.15) {
		m.heard = ptr(g.pick(demo.HeardFrom))
	}
	if g.chance(0.05) {
		_, area2, line2 := g.callerNumber(a)
		m.altPhone = ptr(fmt.Sprintf("(%s) 555-%s", area2, line2))
	}
	if g.chance(0.05) {
		m.note = ptr(g.pick(demo.Notes))
	}
	best := g.pick(demo.BestTimes)
	if m.emergency {
		best = "As soon as possible"
	}

	who := name
	if m.company != nil {
		who += " of " + *m.company
	}
	var b strings.Builder
	switch m.origin {
	case answerdesk.OriginCall:
		fmt.Fprintf(&b, "%s called about %s.", who, rs.About)
	case answerdesk.OriginAICall:
		fmt.Fprintf(&b, "%s called and spoke with the AI receptionist about %s.", who, rs.About)
	case answerdesk.OriginChat:
		fmt.Fprintf(&b, "%s started a website chat about %s.", who, rs.About)
	case answerdesk.OriginSMS:
		fmt.Fprintf(&b, "%s sent a text message about %s.", who, rs.About)
	case answerdesk.OriginEmail:
		fmt.Fprintf(&b, "%s emailed about %s.", who, rs.About)
	case answerdesk.OriginWeb:
		fmt.Fprintf(&b, "%s submitted the website contact form about %s.", who, rs.About)
	default:
		fmt.Fprintf(&b, "Message from %s about %s.", who, rs.About)
	}
	switch {
	case m.emergency && a.dental:
		b.WriteString(" The caller is in a lot of pain and would like to be seen as soon as possible; the on-call dentist was notified.")
	case m.emergency:
		b.WriteString(" The caller says it is urgent and asked for the on-call technician.")
	case g.chance(0.3):
		b.WriteString(g.pick([]string{" Caller is an existing customer.", " Caller asked for a text confirmation.",
			" Caller would like a quote before any work is done.", " Caller said there is no rush.", " Caller has called before about this."}))
	}
	if address != "" {
		fmt.Fprintf(&b, " Address: %s, %s, %s %s.", address, *m.city, *m.state, *m.zip)
	}
	if m.origin == answerdesk.OriginEmail || m.origin == answerdesk.OriginWeb {
		fmt.Fprintf(&b, " Please reply to %s or call %s.", *m.email, callback)
	} else {
		fmt.Fprintf(&b, " Please call back at %s.", callback)
	}
	if !m.emergency {
		fmt.Fprintf(&b, " Best time to call: %s.", best)
	}
	m.content = b.String()

	disp := "Message taken"
	if m.emergency {
		disp = "Urgent - on-call notified"
	}
	m.disposition = &disp

	if g.chance(0.7) {
		ans := map[string]any{"Callback number": callback, "Reason for call": rs.Reason, "Best time to call": best}
		if a.dental {
			ans["Existing patient?"] = g.pick([]string{"Yes", "Yes", "No"})
		} else if address != "" {
			ans["Service address"] = fmt.Sprintf("%s, %s, %s %s", address, *m.city, *m.state, *m.zip)
		}
		if m.emergency && !a.dental {
			ans["Is the water shut off?"] = g.pick([]string{"Yes", "No", "Not sure"})
		}
		if m.company != nil {
			ans["Company"] = *m.company
		}
		b, _ := json.Marshal(ans) // sorted keys: deterministic
		m.answers = string(b)
	}
}

// lifecycle sets status, delivery, acknowledgement and read state from the message's age:
// recent messages are often still new, older ones mostly acknowledged.
func (g *gen) lifecycle(m *seedMessage, now int64) {
	age := time.Duration(now-m.created) * time.Millisecond
	var pNew, pDelivered float64
	switch {
	case age < 2*time.Hour:
		pNew, pDelivered = 0.55, 0.3
	case age < 24*time.Hour:
		pNew, pDelivered = 0.25, 0.35
	case age < 7*24*time.Hour:
		pNew, pDelivered = 0.06, 0.24
	default:
		pNew, pDelivered = 0.02, 0.1
	}
	u := g.r.Float64()
	deliverDelay := int64(g.between(30, 1200)) * 1000
	if m.emergency {
		deliverDelay = int64(g.between(20, 180)) * 1000
	}
	ackDelay := int64(g.between(60, 8*3600)) * 1000
	readDelay := int64(g.between(30, 3600)) * 1000
	readU := g.r.Float64()
	m.updated = m.created
	switch {
	case u < pNew:
		m.status, m.activities = answerdesk.StatusNew, g.r.IntN(2)
		m.read = readU < 0.1
	case u < pNew+pDelivered:
		m.status, m.activities = answerdesk.StatusDelivered, g.between(1, 3)
		m.delivered = ptr(min(m.created+deliverDelay, now))
		m.updated = *m.delivered
		m.read = readU < 0.5
	default:
		m.status, m.activities = answerdesk.StatusAcknowledged, g.between(2, 5)
		m.delivered = ptr(min(m.created+deliverDelay, now))
		m.acked = ptr(min(*m.delivered+ackDelay, now))
		m.updated = *m.acked
		m.read = readU < 0.9
	}
	if m.read {
		m.updated = min(m.updated+readDelay, now)
	}
}

// seedRecording is a call recording and its CDR.
type seedRecording struct {
	msg                                         *seedMessage
	callSID                                     string
	cdrID, uniqID                               int64
	ivr, wait, talk, hold, transfer, wrap, conn int64
	start, answer, end                          int64
	whoHungUp, skillName, skillID, startClient  string
	endClient                                   string
	originalCallID                              *int64
	audio                                       bool
}

// insertRecordings records n of the calls in msgs (real messages first), each with a CDR
// whose figures add up and that ends when the message was created; recordings younger than
// the audio retention get a WAV file.
func (g *gen) insertRecordings(ctx context.Context, tx *sql.Tx, msgs []*seedMessage, n int, now time.Time) error {
	var calls, others []*seedMessage
	for _, m := range msgs {
		switch {
		case m.callID == nil:
		case m.nonMessageType == nil:
			calls = append(calls, m)
		default:
			others = append(others, m)
		}
	}
	g.r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	g.r.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	chosen := append(calls, others...)
	chosen = chosen[:min(n, len(chosen))]

	audioSince := now.Add(-audioRetentionDay * 24 * time.Hour).UnixMilli()
	recs := make([]*seedRecording, len(chosen))
	for i, m := range chosen {
		rec := &seedRecording{msg: m, callSID: "CA" + demo.Hex(g.r, 16), startClient: "pstn", endClient: "agent_desktop"}
		g.cdrID += int64(g.between(1, 60))
		g.uniqID += int64(g.between(1, 900))
		rec.cdrID, rec.uniqID = g.cdrID, g.uniqID
		if m.origin == answerdesk.OriginAICall {
			rec.ivr, rec.wait, rec.talk = int64(g.between(0, 4)), int64(g.between(0, 2)), int64(g.between(40, 300))
			rec.wrap = int64(g.between(2, 10))
			rec.endClient = "ai_assistant"
		} else {
			rec.ivr, rec.wait, rec.talk = int64(g.between(0, 25)), int64(g.between(2, 60)), int64(g.between(30, 480))
			rec.wrap = int64(g.between(15, 150))
			if m.nonMessageType != nil {
				rec.talk = int64(g.between(0, 20))
			}
		}
		if g.chance(0.15) {
			rec.hold = int64(g.between(10, 120))
		}
		if g.chance(0.07) {
			rec.transfer = int64(g.between(15, 90))
			rec.originalCallID = m.callID
		}
		rec.conn = rec.ivr + rec.wait + rec.talk + rec.hold + rec.transfer
		rec.end = m.created
		rec.start = rec.end - rec.conn*1000
		rec.answer = rec.start + (rec.ivr+rec.wait)*1000
		rec.whoHungUp = "agent"
		if g.chance(0.3) || m.nonMessageType != nil {
			rec.whoHungUp = "caller"
		}
		local := time.UnixMilli(rec.start).In(m.acct.zone)
		kind, kindID := "Main", 1
		switch {
		case m.origin == answerdesk.OriginAICall:
			kind, kindID = "AI Receptionist", 4
		case m.emergency && !m.acct.dental:
			kind, kindID = "Emergency", 3
		case local.Weekday() == time.Saturday || local.Weekday() == time.Sunday || local.Hour() < 8 || local.Hour() >= 18:
			kind, kindID = "After Hours", 2
		}
		rec.skillName = m.acct.name + " - " + kind
		rec.skillID = fmt.Sprintf("SK%s%02d", m.acct.number, kindID)
		rec.audio = rec.start >= audioSince
		recs[i] = rec
	}
	slices.SortStableFunc(recs, func(x, y *seedRecording) int { return cmp.Compare(x.start, y.start) })

	stmt, err := tx.PrepareContext(ctx, `INSERT INTO call_recordings (account_id, call_id, call_sid, did_number,
		from_number, agent_username, started_at, has_audio, cdr_id, unique_call_id, agent_id, original_call_id,
		call_type, start_client, end_client, callerid, number_dialed, did, agent_name, skill_name, skill_id,
		who_hung_up, connection_sec, ivr_sec, wait_sec, talk_sec, hold_sec, transfer_sec, wrap_sec,
		conference_sec, conference_talk_sec, start_time, agent_answer_time, end_time, hang_up_time,
		call_created_at, is_orphaned)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'InboundCall', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, 0) RETURNING id`)
	if err != nil {
		return fmt.Errorf("prepare recording insert: %w", err)
	}
	defer stmt.Close()
	audio, err := tx.PrepareContext(ctx, `INSERT INTO recording_audio (recording_id, content_type, data, created_at) VALUES (?, 'audio/wav', ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare audio insert: %w", err)
	}
	defer audio.Close()
	for _, rec := range recs {
		m := rec.msg
		var id int64
		err := stmt.QueryRowContext(ctx, m.acct.id, *m.callID, rec.callSID, m.acct.did, *m.callerID,
			m.agent.Username, rec.start, rec.audio, rec.cdrID, rec.uniqID, m.agent.ID, rec.originalCallID,
			rec.startClient, rec.endClient, *m.callerID, m.acct.did, m.acct.did, m.agent.Name, rec.skillName, rec.skillID,
			rec.whoHungUp, rec.conn, rec.ivr, rec.wait, rec.talk, rec.hold, rec.transfer, rec.wrap,
			rec.start, rec.answer, rec.end, rec.end, rec.start).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert call recording: %w", err)
		}
		if !rec.audio {
			continue
		}
		if _, err := audio.ExecContext(ctx, id, demo.WAV(id), rec.end+int64(rec.wrap)*1000); err != nil {
			return fmt.Errorf("insert recording audio: %w", err)
		}
	}
	return nil
}
