package search

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"

	"github.com/answerdesk/answerdesk"
)

// A cursor is base64url (no padding) of:
//
//	version byte (1) | offset (uvarint) | first 16 bytes of HMAC-SHA256(key, binding)
//
// where binding encodes the normalized query, the type filter, the limit and the offset.
// The query, type and limit are not carried in the cursor (the caller sends them with
// every request anyway): the MAC binds the cursor to them, so a cursor presented with
// another query, type or limit, a tampered offset, or garbage fails the check. The key is
// derived from the content hash (see cursorKey), so cursors stay valid across restarts and
// replicas serving the same content, and go stale when the content changes.
const (
	cursorVersion = 1
	cursorMACLen  = 16
)

// cursorKey derives the cursor MAC key from the content hash. The content is public, so
// this key only makes cursors tamper-evident and bound to their query; a client able to
// forge one gains nothing it could not get by paging (an offset into the same results).
func cursorKey(contentHash []byte) []byte {
	m := hmac.New(sha256.New, []byte("answerdesk search cursor v1"))
	m.Write(contentHash)
	return m.Sum(nil)
}

func (ix *Index) cursorMAC(q, typ string, limit, offset int) []byte {
	m := hmac.New(sha256.New, ix.cursorKey)
	var b []byte
	b = strconv.AppendQuote(b, q) // quoting keeps the fields unambiguous
	b = append(b, 0)
	b = strconv.AppendQuote(b, typ)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(offset), 10)
	m.Write(b)
	return m.Sum(nil)[:cursorMACLen]
}

func (ix *Index) encodeCursor(q, typ string, limit, offset int) string {
	b := []byte{cursorVersion}
	b = binary.AppendUvarint(b, uint64(offset))
	b = append(b, ix.cursorMAC(q, typ, limit, offset)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the offset of a cursor issued for this query, type and limit.
func (ix *Index) decodeCursor(cursor, q, typ string, limit int) (int, error) {
	if len(cursor) > answerdesk.MaxSearchCursor {
		return 0, ErrBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) < 2 || b[0] != cursorVersion {
		return 0, ErrBadCursor
	}
	off, n := binary.Uvarint(b[1:])
	if n <= 0 || off > maxOffset || len(b) != 1+n+cursorMACLen {
		return 0, ErrBadCursor
	}
	// Reject non-minimal varints so each offset has exactly one encoding.
	if len(binary.AppendUvarint(nil, off)) != n {
		return 0, ErrBadCursor
	}
	if !hmac.Equal(b[1+n:], ix.cursorMAC(q, typ, limit, int(off))) {
		return 0, ErrBadCursor
	}
	return int(off), nil
}
