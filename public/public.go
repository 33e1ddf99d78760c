// Package public is the public read model: the company profile, services, pricing and
// search results as the public API and the public MCP server both show them. The rules
// that turn content into these views live here once; rest/ and mcp/ only translate
// parameters and errors.
package public

import (
	"errors"
	"slices"
	"time"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
)

// Address is a mailing address.
type Address struct {
	Street     string `json:"street" jsonschema:"Street address."`
	City       string `json:"city" jsonschema:"City."`
	Region     string `json:"region" jsonschema:"State or region."`
	PostalCode string `json:"postalCode" jsonschema:"Postal code."`
	Country    string `json:"country" jsonschema:"Country."`
}

// SocialProfile is a profile on a social network.
type SocialProfile struct {
	Network string `json:"network" jsonschema:"The social network, e.g. linkedin."`
	URL     string `json:"url" jsonschema:"The profile's URL."`
}

// Links are the absolute URLs of the site's key pages.
type Links struct {
	Services string `json:"services" jsonschema:"URL of the services page."`
	Pricing  string `json:"pricing" jsonschema:"URL of the pricing page."`
	Contact  string `json:"contact" jsonschema:"URL of the contact page."`
	Docs     string `json:"docs" jsonschema:"URL of the documentation."`
}

// Company is the company profile (GET /api/v1/company, get_company_info).
type Company struct {
	Name           string          `json:"name" jsonschema:"The company's name."`
	Description    string          `json:"description" jsonschema:"What the company does."`
	Phone          string          `json:"phone" jsonschema:"Phone number."`
	Email          string          `json:"email" jsonschema:"Email address."`
	MailingAddress Address         `json:"mailingAddress" jsonschema:"Mailing address."`
	ServiceArea    []string        `json:"serviceArea" jsonschema:"Regions served; empty when none is published."`
	SocialProfiles []SocialProfile `json:"socialProfiles" jsonschema:"Social network profiles; empty when none is published."`
	Links          Links           `json:"links" jsonschema:"Absolute URLs of the key pages of the site."`
}

// CompanyOf is the site's company profile, with URLs under base.
func CompanyOf(site *content.Site, base string) Company {
	c := site.Company
	out := Company{Name: c.Name, Description: c.Description, Phone: c.Phone, Email: c.Email,
		MailingAddress: Address(c.MailingAddress), ServiceArea: c.ServiceArea, SocialProfiles: []SocialProfile{},
		Links: Links{Services: base + "/services", Pricing: base + "/pricing", Contact: base + "/contact", Docs: base + "/docs"}}
	if out.ServiceArea == nil {
		out.ServiceArea = []string{}
	}
	for _, p := range c.SocialProfiles {
		out.SocialProfiles = append(out.SocialProfiles, SocialProfile(p))
	}
	return out
}

// Service is one service (GET /api/v1/services, list_services).
type Service struct {
	Slug        string `json:"slug" jsonschema:"The service's identifier: the service parameter of pricing (get_pricing's service argument)."`
	Name        string `json:"name" jsonschema:"The service's name."`
	Description string `json:"description" jsonschema:"A one-sentence summary of the service."`
	URL         string `json:"url" jsonschema:"URL of the service's page."`
	MarkdownURL string `json:"markdownUrl" jsonschema:"URL of the page's Markdown (read it with read_page)."`
}

// Services lists the services.
type Services struct {
	Services []Service `json:"services" jsonschema:"Every service, in the site's order."`
}

// ServicesOf lists the site's services, with URLs under base.
func ServicesOf(site *content.Site, base string) Services {
	out := Services{Services: []Service{}}
	for _, s := range site.Services {
		out.Services = append(out.Services, Service{Slug: s.Slug, Name: s.Title, Description: s.Summary,
			URL: base + s.Path, MarkdownURL: base + s.MarkdownPath()})
	}
	return out
}

// Plan is a pricing plan for one billing cycle.
type Plan struct {
	Name            string   `json:"name" jsonschema:"The plan's name."`
	Price           float64  `json:"price" jsonschema:"Price per month in USD; with annual billing, the monthly price when billed annually."`
	MinutesIncluded *int     `json:"minutesIncluded,omitempty" jsonschema:"Minutes included per month (call services only)."`
	ChatsIncluded   *int     `json:"chatsIncluded,omitempty" jsonschema:"Chats included per month (chat services only)."`
	OverageRate     float64  `json:"overageRate" jsonschema:"Price in USD of each minute or chat beyond those included."`
	Features        []string `json:"features" jsonschema:"What the plan includes."`
}

// ServicePlans are a service's plans.
type ServicePlans struct {
	Service string `json:"service" jsonschema:"The service's slug."`
	Plans   []Plan `json:"plans" jsonschema:"The service's plans for this billing cycle."`
}

// Pricing is the plans per service for a billing cycle (GET /api/v1/pricing, get_pricing).
type Pricing struct {
	BillingCycle string         `json:"billingCycle" jsonschema:"monthly or annual."`
	Currency     string         `json:"currency" jsonschema:"Always USD."`
	Services     []ServicePlans `json:"services" jsonschema:"Plans per service."`
}

// BillingCycles are the billing cycles; the first is the default.
var BillingCycles = []string{"monthly", "annual"}

// Pricing errors, which callers phrase for their parameter names.
var (
	ErrBillingCycle   = errors.New("public: billing cycle must be monthly or annual")
	ErrUnknownService = errors.New("public: no such service")
)

// PricingOf is the pricing for a billing cycle ("" for monthly), of one service (by slug)
// or of all ("").
func PricingOf(site *content.Site, cycle, slug string) (Pricing, error) {
	if cycle == "" {
		cycle = BillingCycles[0]
	}
	if !slices.Contains(BillingCycles, cycle) {
		return Pricing{}, ErrBillingCycle
	}
	out := Pricing{BillingCycle: cycle, Currency: "USD", Services: []ServicePlans{}}
	for _, s := range site.Services {
		if slug != "" && s.Slug != slug {
			continue
		}
		sp := ServicePlans{Service: s.Slug, Plans: []Plan{}}
		for _, p := range s.Plans[cycle] {
			features := p.Features
			if features == nil {
				features = []string{}
			}
			sp.Plans = append(sp.Plans, Plan{Name: p.Name, Price: p.Price, MinutesIncluded: p.MinutesIncluded,
				ChatsIncluded: p.ChatsIncluded, OverageRate: p.OverageRate, Features: features})
		}
		out.Services = append(out.Services, sp)
	}
	if slug != "" && len(out.Services) == 0 {
		return Pricing{}, ErrUnknownService
	}
	return out, nil
}

// Result is a search result.
type Result struct {
	Title       string  `json:"title" jsonschema:"The page's title."`
	Summary     string  `json:"summary" jsonschema:"The page's one-sentence summary."`
	URL         string  `json:"url" jsonschema:"URL of the page (pass it to read_page for the full text)."`
	MarkdownURL string  `json:"markdownUrl" jsonschema:"URL of the page's Markdown."`
	Type        string  `json:"type" jsonschema:"The page type: service, industry, location, blog, page or docs."`
	UpdatedAt   *string `json:"updatedAt" jsonschema:"The day the page was last updated (YYYY-MM-DD), or null."`
	Highlight   string  `json:"highlight" jsonschema:"A snippet of the page with the matched words in <mark>…</mark>; the rest is HTML-escaped."`
}

// UpdatedAt is the day a page was last updated as the public views write it, YYYY-MM-DD,
// or nil when the page does not say.
func UpdatedAt(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	d := t.Format("2006-01-02")
	return &d
}

// Search is a page of search results (GET /api/v1/search, search_site).
type Search struct {
	Query      string   `json:"query" jsonschema:"The words searched for."`
	Results    []Result `json:"results" jsonschema:"Matching pages, best first."`
	NextCursor *string  `json:"nextCursor" jsonschema:"Pass as cursor (with the same query, type and limit) for the next page; null on the last page."`
}

// SearchOf is a page of the index's results for query, with URLs under base.
func SearchOf(query string, page *search.Page, base string) Search {
	out := Search{Query: query, Results: []Result{}}
	for _, r := range page.Results {
		out.Results = append(out.Results, Result{Title: r.Title, Summary: r.Summary, URL: base + r.URL, MarkdownURL: base + r.MarkdownURL,
			Type: r.Type, UpdatedAt: UpdatedAt(r.Updated), Highlight: r.Highlight})
	}
	if page.NextCursor != "" {
		next := page.NextCursor
		out.NextCursor = &next
	}
	return out
}
