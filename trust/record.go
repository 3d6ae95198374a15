package trust

import "encoding/binary"

// ProofHeader is the record header that carries a control record's proof:
// RecordMAC of its topic, key and value. The utility's control records —
// exceptions, exception states, registry entries, origin markers — carry
// it; a reader believes one only when it verifies. A header keeps the
// records' values as the contract has them.
const ProofHeader = "ste-proof"

// RecordMAC is the proof of one record: the MAC of its topic, key and value
// (a nil value, a tombstone, apart from an empty one). The topic is bound
// in, so a record copied to another topic or namespace proves nothing there;
// the key too, so a genuine value under another key (another exception id)
// proves nothing either.
func (s *Secret) RecordMAC(topic string, key, value []byte) []byte {
	return s.MAC("record", recordData(topic, key, value))
}

// VerifyRecord reports whether mac is the proof of that record. A nil
// secret verifies nothing.
func (s *Secret) VerifyRecord(topic string, key, value, mac []byte) bool {
	if s == nil || len(mac) == 0 {
		return false
	}
	return s.Verify("record", recordData(topic, key, value), mac)
}

// recordData frames the three fields unambiguously: lengths first.
func recordData(topic string, key, value []byte) []byte {
	b := make([]byte, 0, 3*binary.MaxVarintLen64+len(topic)+len(key)+len(value)+1)
	b = binary.AppendUvarint(b, uint64(len(topic)))
	b = append(b, topic...)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	if value == nil {
		return append(b, 0) // a tombstone
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}
