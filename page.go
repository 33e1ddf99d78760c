package answerdesk

import "fmt"

// PageMeta describes one page of a list: the "meta" object of every list response.
type PageMeta struct {
	Page       int  `json:"page"`
	PageSize   int  `json:"page_size"`
	Total      int  `json:"total"`
	TotalPages *int `json:"total_pages,omitempty"`
}

// NewPageMeta computes the meta of page (1-based) of size over total items.
func NewPageMeta(page, size, total int) PageMeta {
	pages := (total + size - 1) / size
	return PageMeta{Page: page, PageSize: size, Total: total, TotalPages: &pages}
}

// Paging is the validated page request of a list: 1-based page and its size.
type Paging struct {
	Page     int
	PageSize int
}

// Offset is the number of items before the page.
func (p Paging) Offset() int { return (p.Page - 1) * p.PageSize }

// MaxPage is the highest page number a list takes.
const MaxPage = 1_000_000

// ReadPaging reads a list's page and page_size (p records a value of the wrong type in v)
// and checks them against the list's default and maximum (CheckPaging), unless either had
// the wrong type. REST's query and the MCP tools' arguments read a list's paging with it.
func ReadPaging(p Params, v *ValidationErrors, defaultSize, maxSize int) Paging {
	page, size := p.Int("page"), p.Int("page_size")
	if v.Has("page") || v.Has("page_size") {
		return Paging{}
	}
	return CheckPaging(v, page, size, defaultSize, maxSize)
}

// CheckPaging validates optional page and page_size values against the list's default and
// maximum. Out-of-range values are errors, not clamped.
func CheckPaging(v *ValidationErrors, page, pageSize *int, defaultSize, maxSize int) Paging {
	p := Paging{Page: 1, PageSize: defaultSize}
	if page != nil {
		if *page < 1 {
			v.Add("page", "must be an integer >= 1")
		} else if *page > MaxPage {
			v.Add("page", fmt.Sprintf("must be <= %d", MaxPage))
		} else {
			p.Page = *page
		}
	}
	if pageSize != nil {
		if *pageSize < 1 || *pageSize > maxSize {
			v.Add("page_size", fmt.Sprintf("must be an integer between 1 and %d", maxSize))
		} else {
			p.PageSize = *pageSize
		}
	}
	return p
}
