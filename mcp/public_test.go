package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/public"
	"github.com/answerdesk/answerdesk/search"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func TestPublicServer(t *testing.T) {
	s := serve(t, "public", nil)
	c, init := s.connectInit(t, false)
	site := s.cfg.Site
	base := s.cfg.BaseURL

	t.Run("initialize_and_list_tools", func(t *testing.T) {
		if init.ServerInfo.Name != "answerdesk-public" || !strings.Contains(init.Instructions, "search_site") {
			t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
		}
		tools, names := listTools(t, c)
		for _, tool := range tools {
			if tool.OutputSchema.Type != "object" || tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
				t.Errorf("%s: output schema %+v, annotations %+v", tool.Name, tool.OutputSchema, tool.Annotations)
			}
		}
		if want := []string{"get_company_info", "get_pricing", "list_services", "read_page", "search_site"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}
	})

	t.Run("get_company_info_has_the_public_api_fields", func(t *testing.T) {
		res := call(t, c, "get_company_info", nil)
		var m map[string]any
		structured(t, res, &m)
		keys := slices.Sorted(maps.Keys(m))
		want := []string{"description", "email", "links", "mailingAddress", "name", "phone", "serviceArea", "socialProfiles"}
		if !slices.Equal(keys, want) {
			t.Errorf("keys %v, want %v (GET /api/v1/company)", keys, want)
		}
		var out public.Company
		structured(t, res, &out)
		if out.Name != site.Company.Name || out.Phone != site.Company.Phone || out.MailingAddress.City != site.Company.MailingAddress.City {
			t.Errorf("company %+v", out)
		}
		if out.Links.Docs != base+"/docs" || out.Links.Pricing != base+"/pricing" {
			t.Errorf("links %+v", out.Links)
		}
		if !strings.Contains(text(res), site.Company.Phone) {
			t.Errorf("text rendering lacks the phone: %s", text(res))
		}
	})

	t.Run("get_company_info_refuses_arguments", func(t *testing.T) {
		wantToolError(t, call(t, c, "get_company_info", map[string]any{"verbose": true}), "verbose", "takes no arguments")
	})

	t.Run("list_services", func(t *testing.T) {
		var out public.Services
		structured(t, call(t, c, "list_services", nil), &out)
		if len(out.Services) != len(site.Services) || len(out.Services) == 0 {
			t.Fatalf("%d services, want %d", len(out.Services), len(site.Services))
		}
		for i, svc := range out.Services {
			if svc.Slug != site.Services[i].Slug || svc.URL != base+site.Services[i].Path || svc.MarkdownURL != svc.URL+".md" {
				t.Errorf("service %d: %+v", i, svc)
			}
		}
	})

	t.Run("get_pricing_defaults_to_monthly", func(t *testing.T) {
		var out public.Pricing
		structured(t, call(t, c, "get_pricing", nil), &out)
		if out.BillingCycle != "monthly" || out.Currency != "USD" || len(out.Services) != len(site.Services) {
			t.Fatalf("%+v", out)
		}
		first := site.Services[0]
		if len(out.Services[0].Plans) != len(first.Plans["monthly"]) || out.Services[0].Plans[0].Price != first.Plans["monthly"][0].Price {
			t.Errorf("plans %+v, want %+v", out.Services[0].Plans, first.Plans["monthly"])
		}
	})

	t.Run("get_pricing_annual_for_one_service", func(t *testing.T) {
		slug := site.Services[len(site.Services)-1].Slug
		var out public.Pricing
		structured(t, call(t, c, "get_pricing", map[string]any{"billing_cycle": "annual", "service": slug}), &out)
		if out.BillingCycle != "annual" || len(out.Services) != 1 || out.Services[0].Service != slug {
			t.Errorf("%+v", out)
		}
	})

	t.Run("get_pricing_bad_arguments", func(t *testing.T) {
		wantToolError(t, call(t, c, "get_pricing", map[string]any{"billing_cycle": "weekly"}), "billing_cycle", "monthly or annual")
		wantToolError(t, call(t, c, "get_pricing", map[string]any{"service": "nothing"}), "no service \"nothing\"", site.Services[0].Slug)
		wantToolError(t, call(t, c, "get_pricing", map[string]any{"billing_cycle": 12}), "must be a string")
		wantToolError(t, call(t, c, "get_pricing", map[string]any{"cycle": "annual"}), "cycle", "billing_cycle, service")
	})

	t.Run("search_site_pages_with_cursors", func(t *testing.T) {
		var p1 public.Search
		structured(t, call(t, c, "search_site", map[string]any{"query": "answering", "limit": 2}), &p1)
		if len(p1.Results) != 2 || p1.NextCursor == nil {
			t.Fatalf("page 1: %+v", p1)
		}
		for _, r := range p1.Results {
			if !strings.HasPrefix(r.URL, base+"/") || r.MarkdownURL != r.URL+".md" || r.Highlight == "" {
				t.Errorf("result %+v", r)
			}
		}
		var p2 public.Search
		structured(t, call(t, c, "search_site", map[string]any{"query": "answering", "limit": 2, "cursor": *p1.NextCursor}), &p2)
		if len(p2.Results) == 0 || p2.Results[0].URL == p1.Results[0].URL || p2.Results[0].URL == p1.Results[1].URL {
			t.Errorf("page 2 %+v repeats page 1 %+v", p2.Results, p1.Results)
		}
	})

	t.Run("search_site_type_filter", func(t *testing.T) {
		var out public.Search
		structured(t, call(t, c, "search_site", map[string]any{"query": "rate limit", "type": "docs", "limit": "5"}), &out)
		if len(out.Results) == 0 {
			t.Fatal("no docs result for rate limit")
		}
		for _, r := range out.Results {
			if r.Type != "docs" {
				t.Errorf("result of type %s", r.Type)
			}
		}
	})

	t.Run("search_site_no_match_is_an_empty_list", func(t *testing.T) {
		res := call(t, c, "search_site", map[string]any{"query": "zzqxv"})
		var out public.Search
		structured(t, res, &out)
		if len(out.Results) != 0 || out.NextCursor != nil || !strings.Contains(text(res), "No page matches") {
			t.Errorf("%+v %s", out, text(res))
		}
	})

	t.Run("search_site_bad_arguments", func(t *testing.T) {
		wantToolError(t, call(t, c, "search_site", nil), "query: is required")
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": "  "}), "query: is required")
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": "x", "limit": 51}), "limit", "from 1 to 50")
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": "x", "limit": 2.5}), "limit", "whole number")
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": "x", "type": "movie"}), "type", "service, industry")
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": "answering", "cursor": "bogus"}),
			"cursor: "+search.ErrBadCursor.Fields[0].Message, search.ErrBadCursor.Hint)
		wantToolError(t, call(t, c, "search_site", map[string]any{"query": strings.Repeat("a", 201)}), "query", "at most 200 characters")
	})

	t.Run("read_page_by_path_and_url", func(t *testing.T) {
		pg, _ := site.Page("/docs/errors")
		for _, u := range []string{"/docs/errors", "docs/errors.md", base + "/docs/errors#invalid_parameter", base + "/docs/errors.md?x=1"} {
			var out pageContent
			res := call(t, c, "read_page", map[string]any{"url": u})
			structured(t, res, &out)
			if out.Title != pg.Title || out.URL != base+"/docs/errors" || out.Type != "docs" || out.UpdatedAt == nil ||
				!strings.HasPrefix(out.Markdown, "# "+pg.Title+"\n\n> "+pg.Summary) || !strings.Contains(out.Markdown, "## invalid_parameter") {
				t.Errorf("%s: %+v", u, out.pageContent())
			}
			if text(res) != out.Markdown {
				t.Errorf("%s: the text is not the page's Markdown", u)
			}
		}
	})

	t.Run("read_page_section_index", func(t *testing.T) {
		var out pageContent
		structured(t, call(t, c, "read_page", map[string]any{"url": "/services"}), &out)
		if out.Type != "index" || !strings.Contains(out.Markdown, site.Services[0].MarkdownPath()) {
			t.Errorf("%+v", out)
		}
	})

	t.Run("read_page_errors", func(t *testing.T) {
		wantToolError(t, call(t, c, "read_page", map[string]any{"url": "/docs/nothing"}), "no page at /docs/nothing", "search_site")
		wantToolError(t, call(t, c, "read_page", map[string]any{"url": "https://evil.example/docs/errors"}), "not a page of this site", base)
		wantToolError(t, call(t, c, "read_page", map[string]any{"url": "ftp://" + strings.TrimPrefix(base, "http://") + "/x"}), "not a page of this site")
		wantToolError(t, call(t, c, "read_page", nil), "url: is required")
		wantToolError(t, call(t, c, "read_page", map[string]any{"url": "a b"}), "not a URL or path")
	})

	t.Run("unknown_tool_is_a_protocol_error", func(t *testing.T) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "delete_everything"
		if _, err := c.CallTool(context.Background(), req); err == nil {
			t.Error("want an error")
		}
	})
}

// pageContent makes test output of a page readable (without the Markdown).
func (p pageContent) pageContent() string {
	p.Markdown = p.Markdown[:min(len(p.Markdown), 80)] + "…"
	b, _ := json.Marshal(p)
	return string(b)
}

// TestPublicServerLegacyProtocol runs the initialize handshake (protocol 2025-11-25, with a
// session id) instead of the stateless protocol, as older clients do.
func TestPublicServerLegacyProtocol(t *testing.T) {
	s := serve(t, "public", nil)
	c, init := s.connectInit(t, true)
	if init.ProtocolVersion != mcpgo.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Errorf("protocol %s", init.ProtocolVersion)
	}
	if c.GetSessionId() == "" {
		t.Error("no session id")
	}
	var out public.Services
	structured(t, call(t, c, "list_services", nil), &out)
	if len(out.Services) == 0 {
		t.Error("no services")
	}
	wantToolError(t, call(t, c, "get_pricing", map[string]any{"billing_cycle": "daily"}), "monthly or annual")
}
