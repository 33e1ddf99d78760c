package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/public"
	"github.com/answerdesk/answerdesk/search"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const publicInstructions = `This server describes the answering-service company behind this site: its profile, services, pricing plans and every page of the site and documentation. It needs no credentials and changes nothing.

- get_company_info: the company's name, description, phone, email, mailing address, service area and links.
- list_services: every service with its slug (the value get_pricing's service argument takes).
- get_pricing: the plans of every service, or of one, for monthly or annual billing (prices in USD per month).
- search_site: find pages by words (services, industries, locations, blog posts, pages, docs); page with nextCursor.
- read_page: read one page's full Markdown by the URL or path a result gave.

Quote prices, numbers and contact details as the tools return them, and link the page URLs you used.`

// NewPublicServer is the public MCP server (/mcp/public): company, services, pricing, site
// search and pages, from the same content and index as the public API /api/v1.
func NewPublicServer(cfg Config) *server.MCPServer {
	if cfg.Site == nil {
		panic("mcp: NewPublicServer needs Config.Site")
	}
	s := newServer("answerdesk-public", "answerdesk public", cfg, publicInstructions, publicBudget(cfg)...)
	p := &publicTools{cfg: cfg, base: cfg.base()}
	// Every answer here is a function of the embedded content and the arguments alone.
	c := newResultCache(publicResultBytes)
	s.AddTools(
		c.cached(p.getCompanyInfo()),
		c.cached(p.listServices()),
		c.cached(p.getPricing()),
		c.cached(p.searchSite()),
		c.cached(p.readPage()),
	)
	fastCaches.Store(s, c) // Handler answers cached calls from c directly (fastCalls)
	return s
}

type publicTools struct {
	cfg  Config
	base string
}

// --- get_company_info ---

func (p *publicTools) getCompanyInfo() server.ServerTool {
	tool := toolDef("get_company_info",
		"Get the company's profile: name, description, phone, email, mailing address, service area, social profiles and links to the services, pricing, contact and documentation pages. "+
			"Use it to answer who the company is or how to reach it. Takes no arguments.",
		append(readOnly("Company profile"), outputSchema[public.Company]())...)
	return readTool(p.cfg, tool, noArgs(func() public.Company { return public.CompanyOf(p.cfg.Site, p.base) }), func(out public.Company) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n%s\n\nPhone: %s\nEmail: %s\n", out.Name, out.Description, out.Phone, out.Email)
		a := out.MailingAddress
		fmt.Fprintf(&b, "Mailing address: %s, %s, %s %s, %s\n", a.Street, a.City, a.Region, a.PostalCode, a.Country)
		if len(out.ServiceArea) > 0 {
			fmt.Fprintf(&b, "Service area: %s\n", strings.Join(out.ServiceArea, ", "))
		}
		for _, sp := range out.SocialProfiles {
			fmt.Fprintf(&b, "%s: %s\n", sp.Network, sp.URL)
		}
		fmt.Fprintf(&b, "Services: %s\nPricing: %s\nContact: %s\nDocs: %s\n", out.Links.Services, out.Links.Pricing, out.Links.Contact, out.Links.Docs)
		return b.String()
	})
}

// --- list_services ---

func (p *publicTools) listServices() server.ServerTool {
	tool := toolDef("list_services",
		"List every service the company offers, in the site's order, with its slug, name, one-sentence description and page URLs. "+
			"Use it to see what the company sells, and to get the slug get_pricing takes. Takes no arguments.",
		append(readOnly("Services"), outputSchema[public.Services]())...)
	return readTool(p.cfg, tool, noArgs(func() public.Services { return public.ServicesOf(p.cfg.Site, p.base) }), func(out public.Services) string {
		var b strings.Builder
		for _, si := range out.Services {
			fmt.Fprintf(&b, "- %s (slug %s): %s %s\n", si.Name, si.Slug, si.Description, si.URL)
		}
		if len(out.Services) == 0 {
			b.WriteString("No services are published.\n")
		}
		return b.String()
	})
}

// --- get_pricing ---

func (p *publicTools) getPricing() server.ServerTool {
	opts := append(readOnly("Pricing plans"),
		mcpgo.WithString("billing_cycle", mcpgo.Enum(public.BillingCycles...), mcpgo.DefaultString("monthly"),
			mcpgo.Description("Billing cycle of the prices: monthly (default) or annual (the monthly price when billed yearly).")),
		mcpgo.WithString("service", mcpgo.MaxLength(100),
			mcpgo.Description("A service slug from list_services, e.g. live-answering, to get only that service's plans. Leave it out for every service.")),
		outputSchema[public.Pricing]())
	tool := toolDef("get_pricing",
		"Get the pricing plans of every service, or of one service, for monthly or annual billing: each plan's monthly price in USD, the minutes or chats included, the overage rate per extra minute or chat, and its features. "+
			"Use it to answer what a service costs or to compare plans.", opts...)
	return readTool(p.cfg, tool, p.pricing, func(out public.Pricing) string {
		var b strings.Builder
		fmt.Fprintf(&b, "Prices in %s per month, %s billing.\n", out.Currency, out.BillingCycle)
		for _, sp := range out.Services {
			fmt.Fprintf(&b, "\n%s:\n", sp.Service)
			if len(sp.Plans) == 0 {
				b.WriteString("- no plans for this billing cycle\n")
			}
			for _, pl := range sp.Plans {
				fmt.Fprintf(&b, "- %s: $%s/month", pl.Name, money(pl.Price))
				unit := "minute"
				switch {
				case pl.MinutesIncluded != nil:
					fmt.Fprintf(&b, ", %d minutes included", *pl.MinutesIncluded)
				case pl.ChatsIncluded != nil:
					fmt.Fprintf(&b, ", %d chats included", *pl.ChatsIncluded)
					unit = "chat"
				}
				fmt.Fprintf(&b, ", $%s per extra %s", money(pl.OverageRate), unit)
				if len(pl.Features) > 0 {
					fmt.Fprintf(&b, "; %s", strings.Join(pl.Features, "; "))
				}
				b.WriteString("\n")
			}
		}
		return b.String()
	})
}

func (p *publicTools) pricing(_ context.Context, req mcpgo.CallToolRequest) (public.Pricing, error) {
	a, err := readArgs(req, "billing_cycle", "service")
	if err != nil {
		return public.Pricing{}, err
	}
	cycle, err := a.str("billing_cycle", 20)
	if err != nil {
		return public.Pricing{}, err
	}
	slug, err := a.str("service", 100)
	if err != nil {
		return public.Pricing{}, err
	}
	out, err := public.PricingOf(p.cfg.Site, strings.ToLower(cycle), strings.ToLower(slug))
	switch {
	case errors.Is(err, public.ErrBillingCycle):
		return out, invalidArg("billing_cycle", fmt.Sprintf("%q is not a billing cycle", cycle), "Pass monthly or annual, or leave it out for monthly.")
	case errors.Is(err, public.ErrUnknownService):
		var slugs []string
		for _, s := range p.cfg.Site.Services {
			slugs = append(slugs, s.Slug)
		}
		return out, invalidArg("service", fmt.Sprintf("there is no service %q", slug),
			"Pass one of the slugs list_services returns ("+strings.Join(slugs, ", ")+"), or leave service out for every service.")
	}
	return out, err
}

func money(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	return strings.TrimSuffix(s, ".00")
}

// --- search_site ---

func (p *publicTools) searchSite() server.ServerTool {
	opts := append(readOnly("Search the site"),
		mcpgo.WithString("query", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(answerdesk.MaxSearchQuery),
			mcpgo.Description("The words to search for, e.g. \"after hours answering\". Every word must match (one typo per word of 4+ letters is tolerated; the last word also matches as a prefix). At most 200 characters.")),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(answerdesk.MaxSearchLimit), mcpgo.DefaultNumber(answerdesk.DefaultSearchLimit),
			mcpgo.Description("Results per page, 1 to 50; default 10.")),
		mcpgo.WithString("cursor",
			mcpgo.Description("The nextCursor of the previous result, to get the next page. Use it with the same query, type and limit; leave it out for the first page.")),
		mcpgo.WithString("type", mcpgo.Enum(answerdesk.PageTypes...),
			mcpgo.Description("Only pages of this type: service, industry, location, blog, page or docs. With docs, the results are documentation sections (any word may match; the URL carries the section's #anchor), ranked as the docs server's searchDocumentation ranks them. Leave it out for every type.")),
		outputSchema[public.Search]())
	tool := toolDef("search_site",
		"Search every page of the site and its documentation (services, industries, locations, blog posts, pages, docs) by words. "+
			"Returns matching pages, best first (title matches rank first), each with its title, summary, URL, type, last update and a highlighted snippet, and nextCursor for the next page. "+
			"Use it to find the page that answers a question, then read_page to read it.", opts...)
	return readTool(p.cfg, tool, p.search, func(out public.Search) string {
		var b strings.Builder
		if len(out.Results) == 0 {
			fmt.Fprintf(&b, "No page matches %q. Try fewer or other words.\n", out.Query)
		}
		for i, r := range out.Results {
			fmt.Fprintf(&b, "%d. %s (%s) %s\n   %s\n", i+1, r.Title, r.Type, r.URL, plainHighlight(r.Highlight))
		}
		if out.NextCursor != nil {
			fmt.Fprintf(&b, "\nMore results: call again with cursor %q.\n", *out.NextCursor)
		}
		return b.String()
	})
}

func (p *publicTools) search(ctx context.Context, req mcpgo.CallToolRequest) (public.Search, error) {
	a, err := readArgs(req, "query", "limit", "cursor", "type")
	if err != nil {
		return public.Search{}, err
	}
	in := answerdesk.SearchInput{}
	if in.Query, err = a.text("query"); err != nil {
		return public.Search{}, err
	}
	if in.Cursor, err = a.text("cursor"); err != nil {
		return public.Search{}, err
	}
	if in.Type, err = a.text("type"); err != nil {
		return public.Search{}, err
	}
	if a.m["limit"] != nil {
		// Anything but a whole number is -1, which the rule refuses in its own words.
		n, err := a.integer("limit", math.MinInt32, math.MaxInt32, -1)
		if err != nil {
			n = -1
		}
		in.Limit = &n
	}
	ss, err := answerdesk.ParseSearch(in)
	if e := (*answerdesk.Error)(nil); errors.As(err, &e) && len(e.Fields) == 1 {
		return public.Search{}, invalidArg(e.Fields[0].Field, e.Fields[0].Message, e.Hint) // as every tool words it
	}
	if err != nil {
		return public.Search{}, err
	}
	if p.cfg.Index == nil {
		return public.Search{}, &answerdesk.Error{Code: answerdesk.EUNAVAILABLE, Message: "search is not available on this server", Hint: "Use list_services or read_page instead."}
	}
	page, err := p.cfg.Index.Search(ctx, search.Query{Q: ss.Query, Limit: ss.Limit, Cursor: ss.Cursor, Type: ss.Type})
	if err != nil {
		return public.Search{}, err
	}
	out := public.SearchOf(ss.Query, page, p.base)
	return out, nil
}

// plainHighlight is a highlight as plain text, the matched words in **…**.
func plainHighlight(h string) string {
	h = strings.NewReplacer("<mark>", "**", "</mark>", "**").Replace(h)
	return html.UnescapeString(h)
}

// --- read_page ---

// pageContent is a page's Markdown with its metadata.
type pageContent struct {
	URL         string  `json:"url" jsonschema:"URL of the page."`
	MarkdownURL string  `json:"markdownUrl" jsonschema:"URL of the page's Markdown."`
	Title       string  `json:"title" jsonschema:"The page's title."`
	Summary     string  `json:"summary" jsonschema:"The page's one-sentence summary (empty for some index pages)."`
	Type        string  `json:"type" jsonschema:"The page type: service, industry, location, blog, page, docs, or index for a section's list of pages."`
	UpdatedAt   *string `json:"updatedAt" jsonschema:"The day the page was last updated (YYYY-MM-DD), or null."`
	Markdown    string  `json:"markdown" jsonschema:"The page as Markdown: its title, summary and body, the same text as the page's .md URL."`
}

func (p *publicTools) readPage() server.ServerTool {
	opts := append(readOnly("Read a page"),
		mcpgo.WithString("url", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(maxLocatorLen),
			mcpgo.Description("The page to read: an absolute URL of this site (e.g. "+p.base+"/services/live-answering, as search_site and list_services return) or a path (e.g. /docs/errors). A .md suffix, a query and a #fragment are ignored. Section indexes (/, /services, /industries, /locations, /blog, /docs) list their pages.")),
		outputSchema[pageContent]())
	tool := toolDef("read_page",
		"Read one page of the site or its documentation as Markdown: the full text of a service, industry, location, blog post, page or docs page, or the list of pages of a section. "+
			"Use it after search_site or list_services to read a page in full. Only this site's pages can be read.", opts...)
	return readTool(p.cfg, tool, p.page, func(out pageContent) string { return out.Markdown })
}

func (p *publicTools) page(_ context.Context, req mcpgo.CallToolRequest) (pageContent, error) {
	a, err := readArgs(req, "url")
	if err != nil {
		return pageContent{}, err
	}
	v, err := a.str("url", maxLocatorLen)
	if err != nil {
		return pageContent{}, err
	}
	if v == "" {
		return pageContent{}, invalidArg("url", "is required", "Pass the page's URL (e.g. "+p.base+"/docs/errors) or its path (e.g. /docs/errors).")
	}
	path, err := locate("url", v, p.base)
	if err != nil {
		return pageContent{}, err
	}
	pc, ok := renderPage(p.cfg.Site, path, p.base)
	if !ok {
		return pageContent{}, notFound(fmt.Sprintf("no page at %s", path),
			"Find the page with search_site (or list_services), then pass one of the URLs it returns.")
	}
	return pc, nil
}

// renderPage is the Markdown of the page at a URL path, as the site serves it at path.md:
// a content page, a section index, or the home page.
func renderPage(site *content.Site, path, base string) (pageContent, bool) {
	doc, ok := site.Document(path)
	if !ok {
		return pageContent{}, false
	}
	pc := pageContent{URL: base + doc.Path, MarkdownURL: base + doc.MarkdownPath, Title: doc.Title, Summary: doc.Summary,
		Type: "index", Markdown: doc.Markdown()}
	if doc.Page != nil {
		pc.Type, pc.UpdatedAt = doc.Page.Type, public.UpdatedAt(doc.Page.Updated)
	}
	return pc, true
}
