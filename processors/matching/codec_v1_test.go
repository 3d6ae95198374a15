package matching

import (
	"encoding/binary"
)

// marshalV1 is the encoder of state layout v1 (with its timeliness
// extension) as the release before version 3 wrote it, frozen here so that
// the upgrade tests read values of that layout. keyIdx gives each entry's
// index into keys (a v1 trade could hold two key tuples).
func marshalV1(t *Trade, keys [][6]string, keyIdx []uint8, withTimeliness bool) []byte {
	b := make([]byte, 0, 256+len(t.Entries)*160)
	b = append(b, layoutV1, kindTrade)
	b = binary.BigEndian.AppendUint64(b, uint64(t.Newest))
	b = binary.BigEndian.AppendUint64(b, uint64(t.Key))
	b = binary.AppendUvarint(b, uint64(t.Version))
	b = appendBool(b, t.Live)
	b = append(b, t.LiveDigest[:]...)
	b = binary.AppendUvarint(b, uint64(t.StatusN))
	b = append(b, byte(t.Last.Status))
	b = appendBytes(b, t.Last.Criteria)
	b = appendBytes(b, t.Last.Body)
	b = binary.AppendUvarint(b, uint64(len(t.Last.To)))
	for _, s := range t.Last.To {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		for _, s := range k {
			b = appendString(b, s)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(t.Entries)))
	for i := range t.Entries {
		e := &t.Entries[i]
		for _, s := range [...]string{e.Sender, e.MsgId, e.Related} {
			b = appendString(b, s)
		}
		b = append(b, e.Digest[:]...)
		b = append(b, byte(e.Type), byte(e.Function), keyIdx[i], byte(e.NetUnits))
		b = binary.AppendUvarint(b, uint64(e.Has))
		b = binary.AppendVarint(b, e.Created)
		b = binary.AppendVarint(b, e.Quantity)
		b = appendDec(b, e.Price)
		b = appendDec(b, e.NetAmount)
		b = binary.AppendVarint(b, int64(e.SettleDate))
		b = binary.AppendVarint(b, int64(e.AllocCount))
		for _, s := range [...]string{e.TradeCcy, e.SettleCcy, e.Account, e.Custodian, e.PSET, e.SafekeepingAccount, e.CashAccount} {
			b = appendString(b, s)
		}
	}
	if !withTimeliness {
		return b
	}
	for i := range t.Entries {
		b = appendString(b, t.Entries[i].Market)
	}
	return appendRisk(b, t)
}

// marshalTombstoneV1 is layout v1's tombstone encoder, frozen.
func marshalTombstoneV1(key uint64, version, statusN int, purgedAt int64) []byte {
	b := append([]byte(nil), layoutV1, kindTombstone)
	b = binary.BigEndian.AppendUint64(b, uint64(purgedAt))
	b = binary.BigEndian.AppendUint64(b, key)
	b = binary.AppendUvarint(b, uint64(version))
	return binary.AppendUvarint(b, uint64(statusN))
}
