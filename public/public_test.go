package public_test

import (
	"errors"
	"os"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/public"
)

func TestPricingOf(t *testing.T) {
	site, err := content.Load(os.DirFS("../content/testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cycle, slug string
		price       float64
		err         error
	}{
		{"", "", 49, nil},
		{"annual", "live-answering", 44, nil},
		{"weekly", "", 0, public.ErrBillingCycle},
		{"monthly", "nope", 0, public.ErrUnknownService},
	}
	for _, tc := range tests {
		p, err := public.PricingOf(site, tc.cycle, tc.slug)
		if !errors.Is(err, tc.err) {
			t.Fatalf("%q %q: err %v, want %v", tc.cycle, tc.slug, err, tc.err)
		}
		if err == nil && (p.Currency != "USD" || p.Services[0].Plans[0].Price != tc.price || p.Services[0].Plans[0].Features == nil) {
			t.Fatalf("%q %q: %+v", tc.cycle, tc.slug, p)
		}
	}
	c := public.CompanyOf(site, "https://x.example")
	if c.Links.Pricing != "https://x.example/pricing" || c.MailingAddress.PostalCode != "97201" {
		t.Fatalf("company %+v", c)
	}
}
