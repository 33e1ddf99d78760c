// Package demo makes the demo data (the demo data Getting started describes) and the generated messages of load tests:
// the names, places, reasons for calling and texts it picks from, the random identifiers and
// audio it makes, and the generator that turns them into rows. It holds no SQL: it writes
// through store's bulk API and, for the To Dos and the on-call contact, through the
// services, so they obey the rules any client's do. The same seed gives the same data.
package demo

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"

	"github.com/answerdesk/answerdesk"
)

// Agent is a receptionist of the answering service (the agents serve every account).
type Agent struct {
	ID             int64
	Name, Username string
}

// Agents take the calls; AIAgent answers the calls the AI receptionist takes.
var (
	Agents = []Agent{
		{2101, "Maria Santos", "msantos"}, {2102, "Derek Howard", "dhoward"}, {2103, "Aisha Khan", "akhan"},
		{2104, "Tom Becker", "tbecker"}, {2105, "Lucia Ortiz", "lortiz"}, {2106, "Kevin O'Neil", "koneil"},
		{2107, "Grace Park", "gpark"}, {2108, "Sam Whitfield", "swhitfield"},
	}
	AIAgent = Agent{2900, "AI Receptionist", "ai.receptionist"}
)

// What the callers are called, where they work and live, and what they say besides why
// they called.
var (
	FirstNames = []string{"Jane", "Michael", "Priya", "Robert", "Linda", "Carlos", "Emily", "David", "Grace",
		"Ahmed", "Sarah", "James", "Olivia", "Daniel", "Sofia", "William", "Hannah", "Marcus", "Chloe", "Thomas",
		"Nina", "Brian", "Ava", "Victor", "Rachel", "Ethan", "Fatima", "George", "Megan", "Luis", "Karen", "Owen",
		"Yuki", "Patrick", "Isabel", "Andre", "Teresa", "Kyle", "Diane", "Samuel"}
	LastNames = []string{"Miller", "Johnson", "Patel", "Garcia", "Nguyen", "Smith", "Brown", "Rossi", "Kim",
		"Williams", "O'Connor", "Lopez", "Chen", "Davis", "Martinez", "Anderson", "Taylor", "Hughes", "Cohen",
		"Wright", "Kowalski", "Baker", "Singh", "Murphy", "Fischer", "Reyes", "Turner", "Edwards", "Park",
		"Sullivan", "Moreno", "Bennett", "Jackson", "Harris", "Novak", "Ward", "Price", "Foster", "Schmidt", "Ali"}
	Companies = []string{"Riverside Property Management", "Oakwood Condo Association", "Hudson Realty Group",
		"Maple Street Daycare", "Bayview Apartments", "Greenleaf Office Park", "St. Mark's Parish", "Summit Fitness"}
	BestTimes = []string{"Anytime", "Morning", "Afternoon", "Evening", "Before 9 AM", "After 5 PM",
		"Lunchtime", "As soon as possible", "Weekdays only", "Tomorrow morning"}
	HeardFrom = []string{"Google search", "Referral from a neighbor", "Yelp", "Saw the truck", "Facebook",
		"Returning customer", "Insurance directory", "Nextdoor", "Mailer"}
	Notes = []string{"Caller was calm and polite.", "Caller asked that we not call before 8 AM.",
		"Spanish-speaking caller; message taken in Spanish.", "Caller was driving; the connection was poor.",
		"Repeat caller this week.", "Caller prefers a text message over a call."}
	EmailDomains = []string{"example.com", "example.net", "example.org", "mail.example"}
	Streets      = []string{"Maple Ave", "Oak St", "Elm St", "Washington Blvd", "Park Pl", "Cedar Ln",
		"Lincoln Ave", "Hillside Dr", "Church St", "Sunset Rd", "Highland Ave", "Prospect St"}
)

// Place is a town callers live in.
type Place struct{ City, State, Zip string }

// The towns each demo account's callers live in (Acme Plumbing's, Birch Dental's).
var (
	AcmePlaces  = []Place{{"Brooklyn", "NY", "11215"}, {"Queens", "NY", "11375"}, {"Yonkers", "NY", "10701"}, {"Hoboken", "NJ", "07030"}, {"White Plains", "NY", "10601"}, {"Hempstead", "NY", "11550"}, {"Jersey City", "NJ", "07302"}}
	BirchPlaces = []Place{{"Evanston", "IL", "60201"}, {"Oak Park", "IL", "60302"}, {"Chicago", "IL", "60614"}, {"Skokie", "IL", "60077"}, {"Naperville", "IL", "60540"}}
)

// Reason is why someone called: the short reason an agent records, a phrase for the
// message text ("... called about <about>"), whether it is an emergency, and the kind of
// company that calls about it, if any.
type Reason struct {
	Reason, About string
	Emergency     bool
	Company       string
}

// PlumbingReasons are why Acme Plumbing's callers call.
var PlumbingReasons = []Reason{
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

// DentalReasons are why Birch Dental's callers call.
var DentalReasons = []Reason{
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

// The phone menu choices callers pick, who the wrong-number callers meant to reach, and
// what the spam calls sell.
var (
	PlumbingIVR  = []string{"2 - Schedule service", "3 - Billing", "0 - Operator", "2 - Schedule service"}
	DentalIVR    = []string{"1 - Existing patients", "2 - New patients", "3 - Billing and insurance", "1 - Existing patients"}
	WrongNumbers = []string{"a pizza restaurant", "the pharmacy", "a dentist across town", "their cousin", "the county clerk", "a hair salon"}
	SpamTopics   = []string{"an extended car warranty", "lowering credit card interest", "business listing verification", "solar panel financing"}
)

// WAV format of the demo audio: 8 kHz, 8-bit unsigned PCM, mono.
const (
	wavRate = 8000
	wavBits = 8
)

// WAV returns a playable WAV of 2 to 4 seconds: a few beeps whose pitch, length and
// count depend on the recording id.
func WAV(id int64) []byte {
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

// UUID returns a version-4 UUID built from r.
func UUID(r *rand.Rand) string {
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

// Hex returns n random bytes from r in hex.
func Hex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return hex.EncodeToString(b)
}

// Token returns a customer API token built from r.
func Token(r *rand.Rand) string {
	b := make([]byte, 32)
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return answerdesk.TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}
