package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
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
	return &Demo{Token: randToken(r), AdminToken: randToken(r), Password: DemoPassword}
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

// seedAgent is a receptionist of the answering service (the agents serve every account).
type seedAgent struct {
	id             int64
	name, username string
}

var (
	seedAgents = []seedAgent{
		{2101, "Maria Santos", "msantos"}, {2102, "Derek Howard", "dhoward"}, {2103, "Aisha Khan", "akhan"},
		{2104, "Tom Becker", "tbecker"}, {2105, "Lucia Ortiz", "lortiz"}, {2106, "Kevin O'Neil", "koneil"},
		{2107, "Grace Park", "gpark"}, {2108, "Sam Whitfield", "swhitfield"},
	}
	seedAIAgent = seedAgent{2900, "AI Receptionist", "ai.receptionist"}
)

var (
	seedFirstNames = []string{"Jane", "Michael", "Priya", "Robert", "Linda", "Carlos", "Emily", "David", "Grace",
		"Ahmed", "Sarah", "James", "Olivia", "Daniel", "Sofia", "William", "Hannah", "Marcus", "Chloe", "Thomas",
		"Nina", "Brian", "Ava", "Victor", "Rachel", "Ethan", "Fatima", "George", "Megan", "Luis", "Karen", "Owen",
		"Yuki", "Patrick", "Isabel", "Andre", "Teresa", "Kyle", "Diane", "Samuel"}
	seedLastNames = []string{"Miller", "Johnson", "Patel", "Garcia", "Nguyen", "Smith", "Brown", "Rossi", "Kim",
		"Williams", "O'Connor", "Lopez", "Chen", "Davis", "Martinez", "Anderson", "Taylor", "Hughes", "Cohen",
		"Wright", "Kowalski", "Baker", "Singh", "Murphy", "Fischer", "Reyes", "Turner", "Edwards", "Park",
		"Sullivan", "Moreno", "Bennett", "Jackson", "Harris", "Novak", "Ward", "Price", "Foster", "Schmidt", "Ali"}
	seedCompanies = []string{"Riverside Property Management", "Oakwood Condo Association", "Hudson Realty Group",
		"Maple Street Daycare", "Bayview Apartments", "Greenleaf Office Park", "St. Mark's Parish", "Summit Fitness"}
	seedBestTimes = []string{"Anytime", "Morning", "Afternoon", "Evening", "Before 9 AM", "After 5 PM",
		"Lunchtime", "As soon as possible", "Weekdays only", "Tomorrow morning"}
	seedHeardFrom = []string{"Google search", "Referral from a neighbor", "Yelp", "Saw the truck", "Facebook",
		"Returning customer", "Insurance directory", "Nextdoor", "Mailer"}
	seedNotes = []string{"Caller was calm and polite.", "Caller asked that we not call before 8 AM.",
		"Spanish-speaking caller; message taken in Spanish.", "Caller was driving; the connection was poor.",
		"Repeat caller this week.", "Caller prefers a text message over a call."}
	seedEmailDomains = []string{"example.com", "example.net", "example.org", "mail.example"}
	seedStreets      = []string{"Maple Ave", "Oak St", "Elm St", "Washington Blvd", "Park Pl", "Cedar Ln",
		"Lincoln Ave", "Hillside Dr", "Church St", "Sunset Rd", "Highland Ave", "Prospect St"}
)

type seedPlace struct{ city, state, zip string }

var (
	acmePlaces  = []seedPlace{{"Brooklyn", "NY", "11215"}, {"Queens", "NY", "11375"}, {"Yonkers", "NY", "10701"}, {"Hoboken", "NJ", "07030"}, {"White Plains", "NY", "10601"}, {"Hempstead", "NY", "11550"}, {"Jersey City", "NJ", "07302"}}
	birchPlaces = []seedPlace{{"Evanston", "IL", "60201"}, {"Oak Park", "IL", "60302"}, {"Chicago", "IL", "60614"}, {"Skokie", "IL", "60077"}, {"Naperville", "IL", "60540"}}
)

// seedReason is why someone called: the short reason an agent records, a phrase for the
// message text ("... called about <about>"), whether it is an emergency, and the kind of
// company that calls about it, if any.
type seedReason struct {
	reason, about string
	emergency     bool
	company       string
}

var plumbingReasons = []seedReason{
	{"Burst pipe under kitchen sink, water everywhere", "a burst pipe under the kitchen sink; there is water everywhere", true, ""},
	{"Water heater leaking from the bottom", "a water heater leaking from the bottom of the tank", true, ""},
	{"No hot water since this morning", "having no hot water since this morning", false, ""},
	{"Toilet overflowing and won't stop", "a toilet that is overflowing and will not stop", true, ""},
	{"Sewer backing up into basement floor drain", "sewage backing up through the basement floor drain", true, ""},
	{"Clogged kitchen sink, standing water", "a clogged kitchen sink with standing water", false, ""},
	{"Slow draining bathtub", "a bathtub that drains very slowly", false, ""},
	{"Estimate for bathroom remodel rough-in", "an estimate for the plumbing rough-in of a bathroom remodel", false, ""},
	{"Dripping faucet in master bathroom", "a dripping faucet in the master bathroom", false, ""},
	{"Running toilet wasting water", "a toilet that runs constantly", false, ""},
	{"Smells gas near the water heater", "a gas smell near the water heater (advised to leave the house and call the gas company)", true, ""},
	{"Frozen pipes in crawl space", "pipes that appear to be frozen in the crawl space", true, ""},
	{"Sump pump not turning on during rain", "a sump pump that is not turning on while it rains", true, ""},
	{"Garbage disposal jammed and humming", "a jammed garbage disposal that only hums", false, ""},
	{"Wants to schedule annual water heater flush", "scheduling the annual water heater flush", false, ""},
	{"Low water pressure throughout the house", "low water pressure throughout the house", false, ""},
	{"Leak in ceiling below upstairs bathroom", "water leaking through the ceiling below the upstairs bathroom", true, ""},
	{"Outdoor spigot broken, spraying water", "a broken outdoor spigot that is spraying water", true, ""},
	{"Asking about tankless water heater installation", "pricing for a tankless water heater installation", false, ""},
	{"Question about a recent invoice", "the charges on a recent invoice", false, ""},
	{"Technician running late, asking for ETA", "the arrival time of the technician scheduled for today", false, ""},
	{"Reschedule Friday service appointment", "rescheduling the service appointment on Friday", false, ""},
	{"Cancel tomorrow's appointment", "cancelling tomorrow's appointment", false, ""},
	{"Main water shutoff valve stuck", "a main water shutoff valve that is stuck and will not turn", false, ""},
	{"Dishwasher not draining, water under cabinet", "a dishwasher that is not draining, with water under the cabinet", false, ""},
	{"Washing machine hose burst in laundry room", "a burst washing machine hose in the laundry room", true, ""},
	{"Tenant reporting leak in unit 4B", "a leak reported by the tenant of unit 4B", true, "Riverside Property Management"},
	{"Restaurant grease trap backing up", "the grease trap backing up in the restaurant kitchen", true, "Luigi's Trattoria"},
	{"Sewer line camera inspection before home purchase", "a sewer line camera inspection before buying a home", false, ""},
	{"Quote for water softener installation", "a quote to install a water softener", false, ""},
	{"Banging noise in pipes when faucets turn off", "loud banging in the pipes whenever a faucet is turned off", false, ""},
	{"Shower valve leaking, needs replacement", "replacing a leaking shower valve", false, ""},
	{"Warranty question on new water heater", "the warranty of the water heater installed last month", false, ""},
	{"Backflow preventer annual test due", "the annual backflow preventer test the city requires", false, "Greenleaf Office Park"},
	{"Rusty water from hot taps", "rust-colored water coming from the hot water taps", false, ""},
	{"Sewage smell in basement bathroom", "a sewage smell in the basement bathroom", false, ""},
}

var dentalReasons = []seedReason{
	{"Wants to reschedule cleaning appointment Thursday", "rescheduling a cleaning appointment on Thursday", false, ""},
	{"Severe toothache, swelling in jaw", "a severe toothache with swelling along the jaw", false, ""},
	{"Chipped front tooth after a fall", "a front tooth chipped in a fall", false, ""},
	{"Lost a filling while eating", "a filling that came out while eating", false, ""},
	{"Crown came off", "a crown that came off this evening", false, ""},
	{"New patient wants first available cleaning", "booking the first available cleaning as a new patient", false, ""},
	{"Question about insurance coverage for an implant", "whether their insurance covers an implant", false, ""},
	{"Needs to cancel appointment tomorrow morning", "cancelling tomorrow morning's appointment", false, ""},
	{"Child knocked out a permanent tooth", "their child knocking out a permanent tooth (advised to keep the tooth in milk)", true, ""},
	{"Bleeding after wisdom tooth extraction", "bleeding that has not stopped since a wisdom tooth extraction", true, ""},
	{"Requesting copy of x-rays for a specialist", "a copy of their x-rays for a specialist", false, ""},
	{"Billing question about last statement", "a charge on their last statement", false, ""},
	{"Wants teeth whitening pricing", "pricing for in-office teeth whitening", false, ""},
	{"Braces wire poking cheek", "a braces wire that is poking their cheek", false, ""},
	{"Question about prescribed pain medication", "the pain medication prescribed after their procedure", false, ""},
	{"Sensitivity to cold after filling", "sensitivity to cold since a filling last week", false, ""},
	{"Denture broke in half", "a denture that broke in half", false, ""},
	{"Confirming appointment time Monday", "confirming the time of their appointment on Monday", false, ""},
	{"Pharmacy calling about a prescription", "a prescription sent over by the office", false, "Lakeview Pharmacy"},
	{"Dental lab calling about crown delivery", "the delivery date of a crown case", false, "Precision Dental Lab"},
	{"Insurance verifying patient eligibility", "verifying a patient's eligibility and benefits", false, "Midwest Dental Benefits"},
	{"Swollen gums and bad taste", "swollen gums and a bad taste in the mouth", false, ""},
	{"Night guard cracked", "a cracked night guard", false, ""},
	{"Asking if office is open Saturday", "whether the office is open on Saturday", false, ""},
	{"Update address and insurance information", "updating their address and insurance information", false, ""},
	{"Clear aligner consultation request", "a consultation for clear aligners", false, ""},
	{"Temporary crown feels loose", "a temporary crown that feels loose", false, ""},
	{"Jaw pain when chewing", "jaw pain when chewing", false, ""},
	{"Possible dry socket after extraction", "possible dry socket after an extraction on Tuesday", false, ""},
	{"Question about referral to oral surgeon", "the referral to the oral surgeon", false, ""},
	{"Wants to add family member as new patient", "adding a family member as a new patient", false, ""},
	{"Running 15 minutes late for appointment", "running about 15 minutes late for their appointment", false, ""},
	{"Payment plan for root canal", "setting up a payment plan for a root canal", false, ""},
	{"Booking child's first dental visit", "booking their child's first dental visit", false, ""},
	{"Abscess, fever and facial swelling", "a suspected abscess with fever and facial swelling", true, ""},
}

var (
	plumbingIVR = []string{"2 - Schedule service", "3 - Billing", "0 - Operator", "2 - Schedule service"}
	dentalIVR   = []string{"1 - Existing patients", "2 - New patients", "3 - Billing and insurance", "1 - Existing patients"}
	wrongNumber = []string{"a pizza restaurant", "the pharmacy", "a dentist across town", "their cousin", "the county clerk", "a hair salon"}
	spamTopics  = []string{"an extended car warranty", "lowering credit card interest", "business listing verification", "solar panel financing"}
)

// seedMessage is a generated message, in the columns Seed fills, plus what its recording
// needs.
type seedMessage struct {
	acct           *seedAccount
	uuid           string
	agent          *seedAgent
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
			agentID, receiver = &m.agent.id, &m.agent.name
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
	m := &seedMessage{acct: a, uuid: randUUID(g.r), origin: g.origin(), created: at, answers: "{}"}
	call := m.origin == answerdesk.OriginCall || m.origin == answerdesk.OriginAICall
	switch m.origin {
	case answerdesk.OriginCall:
		m.agent = &seedAgents[g.r.IntN(len(seedAgents))]
	case answerdesk.OriginAICall:
		m.agent = &seedAIAgent
	case answerdesk.OriginChat:
		m.agent = &seedAgents[g.r.IntN(len(seedAgents))]
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
		m.first = ptr(g.pick(seedFirstNames))
		m.content = fmt.Sprintf("%s was trying to reach %s. Wrong number; no message taken.", *m.first, g.pick(wrongNumber))
	default:
		kind, disp = "spam", "Spam"
		m.content = fmt.Sprintf("Recorded sales call about %s. No message taken.", g.pick(spamTopics))
	}
	m.nonMessageType, m.disposition = ptr(kind), ptr(disp)
}

// body fills a real message: who called, why, how to reach them, and the message text.
func (g *gen) body(m *seedMessage, e164, area, line string) {
	a := m.acct
	reasons, places := plumbingReasons, acmePlaces
	if a.dental {
		reasons, places = dentalReasons, birchPlaces
	}
	rs := reasons[g.r.IntN(len(reasons))]
	first, last := g.pick(seedFirstNames), g.pick(seedLastNames)
	m.first, m.last = &first, &last
	name := first + " " + last
	switch {
	case rs.company != "":
		m.company = ptr(rs.company)
	case !a.dental && g.chance(0.15):
		m.company = ptr(g.pick(seedCompanies))
	}
	m.emergency = rs.emergency && g.chance(0.85)

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
		m.email = ptr(local + "@" + g.pick(seedEmailDomains))
	}
	if m.origin == answerdesk.OriginEmail {
		m.emailSubject = ptr(rs.reason)
	}
	if m.origin == answerdesk.OriginCall && g.chance(0.7) {
		switch {
		case m.emergency && a.dental:
			m.ivr = ptr("9 - Dental emergency")
		case m.emergency:
			m.ivr = ptr("1 - Emergency service")
		case a.dental:
			m.ivr = ptr(g.pick(dentalIVR))
		default:
			m.ivr = ptr(g.pick(plumbingIVR))
		}
	}
	var address string
	if !a.dental && g.chance(0.6) || a.dental && g.chance(0.1) {
		p := places[g.r.IntN(len(places))]
		address = fmt.Sprintf("%d %s", g.between(10, 2999), g.pick(seedStreets))
		m.address, m.city, m.state, m.zip = ptr(address), ptr(p.city), ptr(p.state), ptr(p.zip)
	}
	if g.chance(0.15) {
		m.heard = ptr(g.pick(seedHeardFrom))
	}
	if g.chance(0.05) {
		_, area2, line2 := g.callerNumber(a)
		m.altPhone = ptr(fmt.Sprintf("(%s) 555-%s", area2, line2))
	}
	if g.chance(0.05) {
		m.note = ptr(g.pick(seedNotes))
	}
	best := g.pick(seedBestTimes)
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
		fmt.Fprintf(&b, "%s called about %s.", who, rs.about)
	case answerdesk.OriginAICall:
		fmt.Fprintf(&b, "%s called and spoke with the AI receptionist about %s.", who, rs.about)
	case answerdesk.OriginChat:
		fmt.Fprintf(&b, "%s started a website chat about %s.", who, rs.about)
	case answerdesk.OriginSMS:
		fmt.Fprintf(&b, "%s sent a text message about %s.", who, rs.about)
	case answerdesk.OriginEmail:
		fmt.Fprintf(&b, "%s emailed about %s.", who, rs.about)
	case answerdesk.OriginWeb:
		fmt.Fprintf(&b, "%s submitted the website contact form about %s.", who, rs.about)
	default:
		fmt.Fprintf(&b, "Message from %s about %s.", who, rs.about)
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
		ans := map[string]any{"Callback number": callback, "Reason for call": rs.reason, "Best time to call": best}
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
		rec := &seedRecording{msg: m, callSID: "CA" + randHex(g.r, 16), startClient: "pstn", endClient: "agent_desktop"}
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
			m.agent.username, rec.start, rec.audio, rec.cdrID, rec.uniqID, m.agent.id, rec.originalCallID,
			rec.startClient, rec.endClient, *m.callerID, m.acct.did, m.acct.did, m.agent.name, rec.skillName, rec.skillID,
			rec.whoHungUp, rec.conn, rec.ivr, rec.wait, rec.talk, rec.hold, rec.transfer, rec.wrap,
			rec.start, rec.answer, rec.end, rec.end, rec.start).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert call recording: %w", err)
		}
		if !rec.audio {
			continue
		}
		if _, err := audio.ExecContext(ctx, id, demoWAV(id), rec.end+int64(rec.wrap)*1000); err != nil {
			return fmt.Errorf("insert recording audio: %w", err)
		}
	}
	return nil
}

// WAV format of the demo audio: 8 kHz, 8-bit unsigned PCM, mono.
const (
	wavRate = 8000
	wavBits = 8
)

// demoWAV returns a playable WAV of 2 to 4 seconds: a few beeps whose pitch, length and
// count depend on the recording id.
func demoWAV(id int64) []byte {
	r := rand.New(rand.NewPCG(uint64(id), 0x77617665))
	samples := wavRate * (4 + r.IntN(5)) / 2 // 2.0, 2.5 ... 4.0 s; always even
	pcm := make([]byte, samples)
	for i := range pcm {
		pcm[i] = 128
	}
	freqs := []float64{440, 523.25, 587.33, 659.25, 697, 770, 784, 852, 880, 941, 987.77, 1046.5, 1209, 1336}
	fade := wavRate / 200 // 5 ms ramps, no clicks
	pos := wavRate / 10
	for pos < samples-wavRate/10 {
		n := min(wavRate*(150+r.IntN(300))/1000, samples-wavRate/20-pos)
		f1, f2 := freqs[r.IntN(len(freqs))], 0.0
		if r.IntN(3) == 0 {
			f2 = freqs[r.IntN(len(freqs))] // a two-tone beep
		}
		for i := 0; i < n; i++ {
			t := float64(i) / wavRate
			v := math.Sin(2 * math.Pi * f1 * t)
			if f2 != 0 {
				v = (v + math.Sin(2*math.Pi*f2*t)) / 2
			}
			env := min(1, float64(i)/float64(fade), float64(n-1-i)/float64(fade))
			pcm[pos+i] = byte(128 + math.Round(90*env*v))
		}
		pos += n + wavRate*(80+r.IntN(250))/1000
	}
	return wavFile(pcm)
}

// wavFile wraps 8-bit mono PCM samples in a RIFF/WAVE header.
func wavFile(pcm []byte) []byte {
	b := make([]byte, 44, 44+len(pcm)+1)
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	copy(b[8:], "WAVE")
	copy(b[12:], "fmt ")
	le.PutUint32(b[16:], 16)
	le.PutUint16(b[20:], 1) // PCM
	le.PutUint16(b[22:], 1) // mono
	le.PutUint32(b[24:], wavRate)
	le.PutUint32(b[28:], wavRate*wavBits/8)
	le.PutUint16(b[32:], wavBits/8)
	le.PutUint16(b[34:], wavBits)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(len(pcm)))
	b = append(b, pcm...)
	if len(pcm)%2 == 1 {
		b = append(b, 0) // chunks are word aligned
	}
	le.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// randUUID returns a version-4 UUID built from r.
func randUUID(r *rand.Rand) string {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], r.Uint64())
	binary.BigEndian.PutUint64(u[8:], r.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}

// randHex returns n random bytes from r in hex.
func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return hex.EncodeToString(b)
}

// randToken returns a customer API token built from r.
func randToken(r *rand.Rand) string {
	b := make([]byte, 32)
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return answerdesk.TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}
