package demo

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

// Password is the password of every demo user (the demo data that Getting started describes; demo data only).
const Password = "demo-password"

// The fixed seed of the demo data: the same seed gives the same data.
const (
	seedHi     = 0x616e737765726465 // "answerde"
	seedLo     = 0x736b2d64656d6f31 // "sk-demo1"
	seedTokens = 0x746f6b656e73     // stream of the demo tokens, apart from the data
	seedShow   = 0x73686f7763617365 // stream of the showcase messages, apart from the generated ones
)

// Demo data sizes and retention, as Getting started ("What the demo data contains") describes them.
const (
	demoMessages      = 500
	demoRecordings    = 200
	demoDays          = 60
	audioRetentionDay = 31
	seedBatchSize     = 10000
)

// Options tunes the demo data; zero values give the demo data Getting started describes.
type Options struct {
	Now        time.Time // anchor of "the last 60 days"; zero means db.Now()
	Messages   int       // default 500; negative means none
	Recordings int       // default 200; negative means none; at most one per call message
	// ReceiverURL is where the demo's on-call contact pushes account 1001's messages: the
	// demo receiver of the server being seeded (serve --demo). Empty: an address that does
	// not resolve, so that deliveries fail and retry.
	ReceiverURL string
}

// Credentials are what a seeded database offers a new user.
type Credentials struct {
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
func demoCredentials() *Credentials {
	r := rand.New(rand.NewPCG(seedHi, seedLo^seedTokens))
	return &Credentials{Token: Token(r), AdminToken: Token(r), Password: Password}
}

// Seed loads the demo data Getting started describes unless account 1001 already exists (then it adds
// only what the services write, each part once, and returns the Credentials). Deterministic: same seed, same data (ids, contents; times are
// relative to opts.Now).
//
// Users and tokens are made first (each found again if present, so a seed interrupted
// before its last step can be run again); accounts and everything in them are inserted in
// one final transaction, so account 1001 exists only once the data is complete.
func Seed(ctx context.Context, db *store.DB, opts Options) (*Credentials, error) {
	creds := demoCredentials()
	var seeded bool
	err := db.BulkLoad(ctx, func(b *store.Bulk) (err error) {
		seeded, err = demoSeeded(ctx, b)
		return err
	})
	if err != nil || seeded {
		if err == nil {
			err = seedThroughServices(ctx, db, db.Now().UTC(), opts.ReceiverURL) // a database seeded before these existed
		}
		return creds, err
	}
	now := opts.Now
	if now.IsZero() {
		now = db.Now()
	}
	now = now.UTC().Truncate(time.Millisecond)
	nMessages := defaultCount(opts.Messages, demoMessages)
	nRecordings := defaultCount(opts.Recordings, demoRecordings)

	users := store.NewUserService(db)
	userIDs := map[string]int64{}
	for _, u := range []answerdesk.UserCreate{
		{Email: demoAccountSpecs[0].owner, Password: Password},
		{Email: demoAccountSpecs[1].owner, Password: Password},
		{Email: demoAdminEmail, Password: Password, Admin: true},
	} {
		id, err := findOrCreateUser(ctx, users, u)
		if err != nil {
			return nil, fmt.Errorf("seed user %s: %w", u.Email, err)
		}
		userIDs[u.Email] = id
	}
	tokens := store.NewTokenService(db)
	for _, t := range []struct {
		email, plain string
	}{{demoAccountSpecs[0].owner, creds.Token}, {demoAdminEmail, creds.AdminToken}} {
		if err := tokens.ImportToken(ctx, userIDs[t.email], demoTokenName, t.plain); err != nil {
			return nil, fmt.Errorf("seed token of %s: %w", t.email, err)
		}
	}

	err = db.BulkLoad(ctx, func(b *store.Bulk) error {
		// Drawn from the start on every run of the transaction, so a retried run inserts the same data.
		g := newGen(rand.New(rand.NewPCG(seedHi, seedLo)))
		if ok, err := demoSeeded(ctx, b); err != nil || ok {
			return err // seeded concurrently meanwhile
		}
		nowMS := now.UnixMilli()
		created := now.AddDate(0, 0, -400).UnixMilli()
		var accts []*seedAccount
		for _, s := range demoAccountSpecs {
			a, err := addAccount(ctx, b, s, userIDs[s.owner], created)
			if err != nil {
				return err
			}
			accts = append(accts, a)
		}

		shows := showcases
		if nMessages < len(shows) {
			shows = nil
		}
		msgs := make([]*seedMessage, 0, nMessages)
		for _, s := range g.slots(accts, nMessages-len(shows), demoDays, now.Add(-showcaseLead)) {
			msgs = append(msgs, g.message(s.acct, s.at, nowMS))
		}
		sg := newShowcaseGen()
		showMsgs, recorded := sg.showcaseMessages(accts, shows, now)
		if err := insertMessages(ctx, b, append(msgs, showMsgs...)); err != nil {
			return err
		}
		if len(recorded) > 0 && nRecordings > 0 {
			nRecordings--
		} else {
			recorded = nil
		}
		if err := g.insertRecordings(ctx, b, msgs, nRecordings, now); err != nil {
			return err
		}
		return sg.insertRecordings(ctx, b, recorded, len(recorded), now)
	})
	if err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	if err := seedThroughServices(ctx, db, now, opts.ReceiverURL); err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	return creds, nil
}

// addAccount creates a demo account with its owner, phone number, sending domain and
// blacklist.
func addAccount(ctx context.Context, b *store.Bulk, s demoAccountSpec, ownerID, created int64) (*seedAccount, error) {
	a := &seedAccount{number: s.number, name: s.name, timeZone: s.timeZone, dental: s.dental,
		zone: zoneFor(s.timeZone), did: s.phone, areaCodes: s.areaCodes, ownerID: ownerID, share: s.share}
	var err error
	if a.id, err = b.AddAccount(ctx, s.number, s.name, s.timeZone, created); err != nil {
		return nil, fmt.Errorf("seed account: %w", err)
	}
	if err := b.AddMember(ctx, a.ownerID, a.id); err != nil {
		return nil, fmt.Errorf("seed account %s: %w", s.number, err)
	}
	didID, err := b.AddPhoneNumber(ctx, a.id, s.phone, s.sms, s.assistant)
	if err != nil {
		return nil, fmt.Errorf("seed account %s: %w", s.number, err)
	}
	a.didID = &didID
	if err := b.AddSendingDomain(ctx, a.id, s.domain, created); err != nil {
		return nil, fmt.Errorf("seed account %s: %w", s.number, err)
	}
	// The blocked address is on this account's own domain: blacklisted for it.
	if strings.HasSuffix(demoBlocked, "@"+s.domain) {
		if err := b.BlacklistEmail(ctx, a.id, demoBlocked, created); err != nil {
			return nil, fmt.Errorf("seed account %s: %w", s.number, err)
		}
	}
	return a, nil
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

// demoSeeded reports whether account 1001 exists.
func demoSeeded(ctx context.Context, b *store.Bulk) (bool, error) {
	_, err := b.Account(ctx, demoAccountSpecs[0].number)
	switch {
	case err == nil:
		return true, nil
	case answerdesk.ErrorCode(err) == answerdesk.ENOTFOUND:
		return false, nil
	}
	return false, fmt.Errorf("check demo data: %w", err)
}

func findOrCreateUser(ctx context.Context, users *store.UserService, u answerdesk.UserCreate) (int64, error) {
	found, err := users.FindUserByEmail(ctx, u.Email)
	if err == nil {
		return found.ID, nil
	}
	if answerdesk.ErrorCode(err) != answerdesk.ENOTFOUND {
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
func SeedMessages(ctx context.Context, db *store.DB, accountNumber string, n int, days int, now time.Time) error {
	if n <= 0 {
		return nil
	}
	days = max(days, 1)
	var found *store.BulkAccount
	var maxID int64
	err := db.BulkLoad(ctx, func(b *store.Bulk) (err error) {
		if found, err = b.Account(ctx, accountNumber); err != nil {
			return err
		}
		maxID, err = b.MaxMessageID(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("seed messages: %w", err)
	}
	a := &seedAccount{id: found.ID, number: accountNumber, name: found.Name, timeZone: found.TimeZone,
		zone: zoneFor(found.TimeZone), dental: strings.Contains(strings.ToLower(found.Name), "dental"), share: 1,
		didID: found.PhoneID, did: found.Phone, areaCodes: []string{"212", "312", "415", "512", "617", "702", "808"}}
	for _, s := range demoAccountSpecs {
		if s.number == accountNumber {
			a.areaCodes = s.areaCodes
		}
	}
	// A seed of its own, different on every call (uuids must not repeat), from the state of
	// the table and the anchor time.
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
		if err := db.BulkLoad(ctx, func(b *store.Bulk) error { return insertMessages(ctx, b, msgs) }); err != nil {
			return fmt.Errorf("seed messages: %w", err)
		}
	}
	return db.AfterBulkLoad(ctx)
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
// `days` and a local hour weighted by call volume, at latest `latest` (a time after it is
// moved back a day).
func (g *gen) slots(accts []*seedAccount, n, days int, latest time.Time) []slot {
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
		local := latest.In(a.zone)
		midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, a.zone)
		h, _ := slices.BinarySearch(g.hourCum, g.r.IntN(total)+1)
		t := midnight.Add(-time.Duration(g.r.IntN(days)) * 24 * time.Hour).
			Add(time.Duration(h)*time.Hour + time.Duration(g.r.Int64N(int64(time.Hour))))
		if t.After(latest) {
			t = t.Add(-24 * time.Hour)
		}
		out[i] = slot{acct: a, at: t.UnixMilli(), seq: i}
	}
	slices.SortFunc(out, func(x, y slot) int { return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq)) })
	return out
}

// seedMessage is a generated message: the row Seed inserts, plus what its recording needs.
type seedMessage struct {
	store.MessageRow
	acct  *seedAccount
	agent *Agent
}

// insertMessages completes the rows with what the accounts and agents give them and
// inserts them.
func insertMessages(ctx context.Context, b *store.Bulk, msgs []*seedMessage) error {
	rows := make([]*store.MessageRow, len(msgs))
	for i, m := range msgs {
		m.AccountID = m.acct.id
		if m.agent != nil {
			m.AgentID, m.ReceiverName = &m.agent.ID, &m.agent.Name
		}
		if m.CallID != nil || m.Origin == answerdesk.OriginSMS {
			m.DIDID = m.acct.didID
		}
		rows[i] = &m.MessageRow
	}
	return b.InsertMessages(ctx, rows)
}

func ptr[T any](v T) *T { return &v }

// origins are the demo's channels: the percent of messages that come in on each (mostly
// live calls, then AI calls, chat and the rest) and how such a message opens (a format of
// who and what about).
var origins = []struct {
	origin  string
	percent int
	opening string
}{
	{answerdesk.OriginCall, 52, "%s called about %s."},
	{answerdesk.OriginAICall, 16, "%s called and spoke with the AI receptionist about %s."},
	{answerdesk.OriginChat, 10, "%s started a website chat about %s."},
	{answerdesk.OriginSMS, 8, "%s sent a text message about %s."},
	{answerdesk.OriginEmail, 6, "%s emailed about %s."},
	{answerdesk.OriginWeb, 5, "%s submitted the website contact form about %s."},
	{answerdesk.OriginAPI, 3, "Message from %s about %s."},
}

// origin draws a channel by the origins' percentages.
func (g *gen) origin() string {
	u := g.r.IntN(100)
	for _, o := range origins {
		if u < o.percent {
			return o.origin
		}
		u -= o.percent
	}
	panic("demo: the origins' percentages do not add up to 100")
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
	uuid := UUID(g.r)
	return g.messageOf(a, uuid, g.origin(), at, now)
}

// messageOf generates the message of the origin with the uuid, as message does.
func (g *gen) messageOf(a *seedAccount, uuid, origin string, at, now int64) *seedMessage {
	m := &seedMessage{acct: a, MessageRow: store.MessageRow{UUID: uuid, Origin: origin, CreatedAt: at, Answers: "{}"}}
	call := m.Origin == answerdesk.OriginCall || m.Origin == answerdesk.OriginAICall
	switch m.Origin {
	case answerdesk.OriginCall:
		m.agent = &Agents[g.r.IntN(len(Agents))]
	case answerdesk.OriginAICall:
		m.agent = &AIAgent
	case answerdesk.OriginChat:
		m.agent = &Agents[g.r.IntN(len(Agents))]
		g.chatID += int64(g.between(1, 9))
		m.ChatSessionID = ptr(g.chatID)
	case answerdesk.OriginAPI:
		if a.ownerID != 0 {
			m.UserID = ptr(a.ownerID)
		}
	}
	if call {
		g.callID += int64(g.between(1, 40))
		m.CallID = ptr(g.callID)
		m.CallRefID = ptr(fmt.Sprintf("%s-%d", a.number, g.callID))
	}
	e164, area, line := g.callerNumber(a)
	if call || m.Origin == answerdesk.OriginSMS {
		m.CallerID, m.PhoneNumber = ptr(e164), ptr(e164)
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
		m.Content = "Caller hung up before leaving a message. Caller ID " + *m.CallerID + "."
	case u < 3:
		kind, disp = "wrong_number", "Wrong number"
		m.FirstName = ptr(g.pick(FirstNames))
		m.Content = fmt.Sprintf("%s was trying to reach %s. Wrong number; no message taken.", *m.FirstName, g.pick(WrongNumbers))
	default:
		kind, disp = "spam", "Spam"
		m.Content = fmt.Sprintf("Recorded sales call about %s. No message taken.", g.pick(SpamTopics))
	}
	m.NonMessageType, m.Disposition = ptr(kind), ptr(disp)
}

// body fills a real message: who called, why, how to reach them, and the message text.
func (g *gen) body(m *seedMessage, e164, area, line string) {
	a := m.acct
	reasons, places := PlumbingReasons, AcmePlaces
	if a.dental {
		reasons, places = DentalReasons, BirchPlaces
	}
	rs := reasons[g.r.IntN(len(reasons))]
	first, last := g.pick(FirstNames), g.pick(LastNames)
	m.FirstName, m.LastName = &first, &last
	name := first + " " + last
	switch {
	case rs.Company != "":
		m.CompanyName = ptr(rs.Company)
	case !a.dental && g.chance(0.15):
		m.CompanyName = ptr(g.pick(Companies))
	}
	m.IsEmergency = rs.Emergency && g.chance(0.85)

	// The callback number: usually the caller's own, written as the caller gave it.
	callback := fmt.Sprintf("(%s) 555-%s", area, line)
	switch u := g.r.IntN(10); {
	case u < 3:
		callback = e164
	case u < 5:
		_, area2, line2 := g.callerNumber(a)
		callback = fmt.Sprintf("(%s) 555-%s", area2, line2)
	}
	m.Phone = &callback
	if m.Origin == answerdesk.OriginEmail || m.Origin == answerdesk.OriginWeb || m.Origin == answerdesk.OriginChat || g.chance(0.2) {
		local := strings.ToLower(strings.ReplaceAll(first+"."+last, "'", ""))
		m.Email = ptr(local + "@" + g.pick(EmailDomains))
	}
	if m.Origin == answerdesk.OriginEmail {
		m.EmailSubject = ptr(rs.Reason)
	}
	if m.Origin == answerdesk.OriginCall && g.chance(0.7) {
		switch {
		case m.IsEmergency && a.dental:
			m.IVR = ptr("9 - Dental emergency")
		case m.IsEmergency:
			m.IVR = ptr("1 - Emergency service")
		case a.dental:
			m.IVR = ptr(g.pick(DentalIVR))
		default:
			m.IVR = ptr(g.pick(PlumbingIVR))
		}
	}
	var address string
	if !a.dental && g.chance(0.6) || a.dental && g.chance(0.1) {
		p := places[g.r.IntN(len(places))]
		address = fmt.Sprintf("%d %s", g.between(10, 2999), g.pick(Streets))
		m.Address, m.City, m.State, m.Zip = ptr(address), ptr(p.City), ptr(p.State), ptr(p.Zip)
	}
	if g.chance(0.15) {
		m.HowYouHeardAboutUs = ptr(g.pick(HeardFrom))
	}
	if g.chance(0.05) {
		_, area2, line2 := g.callerNumber(a)
		m.AltPhone = ptr(fmt.Sprintf("(%s) 555-%s", area2, line2))
	}
	if g.chance(0.05) {
		m.Note = ptr(g.pick(Notes))
	}
	best := g.pick(BestTimes)
	if m.IsEmergency {
		best = "As soon as possible"
	}

	who := name
	if m.CompanyName != nil {
		who += " of " + *m.CompanyName
	}
	var b strings.Builder
	for _, o := range origins {
		if o.origin == m.Origin {
			fmt.Fprintf(&b, o.opening, who, rs.About)
		}
	}
	switch {
	case m.IsEmergency && a.dental:
		b.WriteString(" The caller is in a lot of pain and would like to be seen as soon as possible; the on-call dentist was notified.")
	case m.IsEmergency:
		b.WriteString(" The caller says it is urgent and asked for the on-call technician.")
	case g.chance(0.3):
		b.WriteString(g.pick([]string{" Caller is an existing customer.", " Caller asked for a text confirmation.",
			" Caller would like a quote before any work is done.", " Caller said there is no rush.", " Caller has called before about this."}))
	}
	if address != "" {
		fmt.Fprintf(&b, " Address: %s, %s, %s %s.", address, *m.City, *m.State, *m.Zip)
	}
	if m.Origin == answerdesk.OriginEmail || m.Origin == answerdesk.OriginWeb {
		fmt.Fprintf(&b, " Please reply to %s or call %s.", *m.Email, callback)
	} else {
		fmt.Fprintf(&b, " Please call back at %s.", callback)
	}
	if !m.IsEmergency {
		fmt.Fprintf(&b, " Best time to call: %s.", best)
	}
	m.Content = b.String()

	disp := "Message taken"
	if m.IsEmergency {
		disp = "Urgent - on-call notified"
	}
	m.Disposition = &disp

	if g.chance(0.7) {
		ans := map[string]any{"Callback number": callback, "Reason for call": rs.Reason, "Best time to call": best}
		if a.dental {
			ans["Existing patient?"] = g.pick([]string{"Yes", "Yes", "No"})
		} else if address != "" {
			ans["Service address"] = fmt.Sprintf("%s, %s, %s %s", address, *m.City, *m.State, *m.Zip)
		}
		if m.IsEmergency && !a.dental {
			ans["Is the water shut off?"] = g.pick([]string{"Yes", "No", "Not sure"})
		}
		if m.CompanyName != nil {
			ans["Company"] = *m.CompanyName
		}
		b, _ := json.Marshal(ans) // sorted keys: deterministic
		m.Answers = string(b)
	}
}

// lifecycle sets status, delivery, acknowledgement and read state from the message's age:
// recent messages are often still new, older ones mostly acknowledged.
func (g *gen) lifecycle(m *seedMessage, now int64) {
	age := time.Duration(now-m.CreatedAt) * time.Millisecond
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
	if m.IsEmergency {
		deliverDelay = int64(g.between(20, 180)) * 1000
	}
	ackDelay := int64(g.between(60, 8*3600)) * 1000
	readDelay := int64(g.between(30, 3600)) * 1000
	readU := g.r.Float64()
	m.UpdatedAt = m.CreatedAt
	switch {
	case u < pNew:
		m.Status, m.ActivitiesCount = answerdesk.StatusNew, g.r.IntN(2)
		m.Read = readU < 0.1
	case u < pNew+pDelivered:
		m.Status, m.ActivitiesCount = answerdesk.StatusDelivered, g.between(1, 3)
		m.DeliveredAt = ptr(min(m.CreatedAt+deliverDelay, now))
		m.UpdatedAt = *m.DeliveredAt
		m.Read = readU < 0.5
	default:
		m.Status, m.ActivitiesCount = answerdesk.StatusAcknowledged, g.between(2, 5)
		m.DeliveredAt = ptr(min(m.CreatedAt+deliverDelay, now))
		m.AckedAt = ptr(min(*m.DeliveredAt+ackDelay, now))
		m.UpdatedAt = *m.AckedAt
		m.Read = readU < 0.9
	}
	if m.Read {
		m.UpdatedAt = min(m.UpdatedAt+readDelay, now)
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
func (g *gen) insertRecordings(ctx context.Context, b *store.Bulk, msgs []*seedMessage, n int, now time.Time) error {
	var calls, others []*seedMessage
	for _, m := range msgs {
		switch {
		case m.CallID == nil:
		case m.NonMessageType == nil:
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
		rec := &seedRecording{msg: m, callSID: "CA" + Hex(g.r, 16), startClient: "pstn", endClient: "agent_desktop"}
		g.cdrID += int64(g.between(1, 60))
		g.uniqID += int64(g.between(1, 900))
		rec.cdrID, rec.uniqID = g.cdrID, g.uniqID
		if m.Origin == answerdesk.OriginAICall {
			rec.ivr, rec.wait, rec.talk = int64(g.between(0, 4)), int64(g.between(0, 2)), int64(g.between(40, 300))
			rec.wrap = int64(g.between(2, 10))
			rec.endClient = "ai_assistant"
		} else {
			rec.ivr, rec.wait, rec.talk = int64(g.between(0, 25)), int64(g.between(2, 60)), int64(g.between(30, 480))
			rec.wrap = int64(g.between(15, 150))
			if m.NonMessageType != nil {
				rec.talk = int64(g.between(0, 20))
			}
		}
		if g.chance(0.15) {
			rec.hold = int64(g.between(10, 120))
		}
		if g.chance(0.07) {
			rec.transfer = int64(g.between(15, 90))
			rec.originalCallID = m.CallID
		}
		rec.conn = rec.ivr + rec.wait + rec.talk + rec.hold + rec.transfer
		rec.end = m.CreatedAt
		rec.start = rec.end - rec.conn*1000
		rec.answer = rec.start + (rec.ivr+rec.wait)*1000
		rec.whoHungUp = "agent"
		if g.chance(0.3) || m.NonMessageType != nil {
			rec.whoHungUp = "caller"
		}
		local := time.UnixMilli(rec.start).In(m.acct.zone)
		kind, kindID := "Main", 1
		switch {
		case m.Origin == answerdesk.OriginAICall:
			kind, kindID = "AI Receptionist", 4
		case m.IsEmergency && !m.acct.dental:
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

	for _, rec := range recs {
		var audio func(int64) *answerdesk.Audio
		if rec.audio {
			created := time.UnixMilli(rec.end + rec.wrap*1000)
			audio = func(id int64) *answerdesk.Audio {
				return &answerdesk.Audio{ContentType: "audio/wav", Data: WAV(id), ModTime: created}
			}
		}
		if err := b.InsertCallRecording(ctx, rec.callRecording(), audio); err != nil {
			return err
		}
	}
	return nil
}

// callRecording is the recording as stored: an inbound call to the account's number,
// taken by the message's agent.
func (rec *seedRecording) callRecording() *answerdesk.CallRecording {
	m := rec.msg
	at := func(ms int64) answerdesk.Time { return answerdesk.NewTime(time.UnixMilli(ms)) }
	return &answerdesk.CallRecording{AccountID: m.acct.id, CallID: *m.CallID, CallSID: rec.callSID, DIDNumber: m.acct.did,
		From: *m.CallerID, AgentUsername: &m.agent.Username, StartedAt: at(rec.start), HasAudio: rec.audio,
		CDR: answerdesk.CDR{ID: rec.cdrID, UniqueCallID: rec.uniqID, AgentID: &m.agent.ID, OriginalCallID: rec.originalCallID,
			CallType: "InboundCall", StartClient: &rec.startClient, EndClient: &rec.endClient, CallerID: *m.CallerID,
			NumberDialed: m.acct.did, DID: m.acct.did, AgentName: &m.agent.Name, SkillName: &rec.skillName, SkillID: &rec.skillID,
			WhoHungUp: &rec.whoHungUp, ConnectionSec: rec.conn, IVRSec: rec.ivr, WaitSec: rec.wait, TalkSec: rec.talk,
			HoldSec: rec.hold, TransferSec: rec.transfer, WrapSec: rec.wrap, StartTime: at(rec.start),
			AgentAnswerTime: ptr(at(rec.answer)), EndTime: ptr(at(rec.end)), HangUpTime: ptr(at(rec.end)), CallCreatedAt: at(rec.start)}}
}

// showcase is a message the documentation's examples name by id: one of the last messages
// of the demo data.
type showcase struct {
	account   int           // index in demoAccountSpecs
	origin    string        // its channel
	age       time.Duration // how long before now it came in
	recording bool          // whether its call has a recording (the demo's newest)
}

// showcases end the demo data, in this order: message 499, account 1002's (a message the
// demo token cannot see), then message 500, account 1001's newest, a call with a recording.
// The generated messages before them are ordered by their times, which depend on the time
// of day the demo is seeded, and so does which id is whose; these come from a stream of
// their own, at fixed ages, after every generated message (showcaseLead), so their ids,
// uuids, accounts and contents are the same whenever the demo is seeded.
var showcases = []showcase{
	{account: 1, origin: answerdesk.OriginSMS, age: 40 * time.Minute},
	{account: 0, origin: answerdesk.OriginCall, age: 20 * time.Minute, recording: true},
}

// showcaseLead is how much older than now every generated message is: older than the
// showcases and their calls (a call lasts at most some 13 minutes), so that the showcases
// are the newest messages and the showcase recording the newest recording.
const showcaseLead = time.Hour

// newShowcaseGen returns the generator of the showcases. Its identifiers start above any
// the generated messages reach (each of at most 500 messages advances a call id by at most
// 40, a chat id by 9, a CDR id by 60 and a unique call id by 900).
func newShowcaseGen() *gen {
	g := newGen(rand.New(rand.NewPCG(seedHi, seedLo^seedShow)))
	g.callID, g.chatID, g.cdrID, g.uniqID = 700_090_000, 59_000, 5_190_000, 89_000_000
	return g
}

// showcaseMessages generates the showcases of the accounts at their ages before now, and
// returns them with the ones whose calls get a recording.
func (g *gen) showcaseMessages(accts []*seedAccount, shows []showcase, now time.Time) (msgs, recorded []*seedMessage) {
	for _, s := range shows {
		m := g.messageOf(accts[s.account], UUID(g.r), s.origin, now.Add(-s.age).UnixMilli(), now.UnixMilli())
		msgs = append(msgs, m)
		if s.recording {
			recorded = append(recorded, m)
		}
	}
	return msgs, recorded
}
