package wire

import (
	chproto "github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"
)

// HelloNative answers clickhouse-go's HTTP handshake query
// (`SELECT displayName(), version(), revision(), timezone()`) without chDB.
//
// Why: the driver decodes this one response with the protocol revision it
// announced in client_protocol_version (block info, per-column serialization
// flags), and every later response with the revision the answer contains.
// chDB only writes the revision-0 Native layout, so the endpoint encodes the
// hello block itself at the client's revision — with the driver's own
// encoder, so the bytes match by construction — and answers revision 0, which
// makes every later chDB-encoded Native result decode correctly.
func HelloNative(displayName, version, timezone string, clientRevision uint64) ([]byte, error) {
	b := proto.NewBlock()
	for _, c := range []struct {
		name string
		typ  column.Type
	}{
		{"displayName()", "String"},
		{"version()", "String"},
		{"revision()", "UInt32"},
		{"timezone()", "String"},
	} {
		if err := b.AddColumn(c.name, c.typ); err != nil {
			return nil, err
		}
	}
	if err := b.Append(displayName, version, uint32(0), timezone); err != nil {
		return nil, err
	}
	var buf chproto.Buffer
	if err := b.Encode(&buf, clientRevision); err != nil {
		return nil, err
	}
	return buf.Buf, nil
}
