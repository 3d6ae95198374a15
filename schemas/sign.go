package schemas

import (
	"crypto/ed25519"
	"encoding/base64"
	"sync"
	"time"

	"github.com/ste-utility/ste/schemas/signature"
)

// Sign returns the base64 signature of the exact signed range.
func Sign(key ed25519.PrivateKey, signed []byte) string {
	return base64.StdEncoding.EncodeToString(signature.Sign(key, signed))
}

// SignatureProblem says why m's signature cannot be accepted with any of keys
// (a participant's one key, or two while it rotates), or "". The checks
// follow the SIGNATURE row of section 4; the verification rule is
// signature.Verify's (cofactored, canonical R and A, S < l), the one every
// path uses. keys are the Sender's, or with a Signer in m (version 3,
// delegated signing) the Signer's: which participant may sign is the
// caller's question (it holds the reference data); the problems name it.
func SignatureProblem(keys []ed25519.PublicKey, m *Message) string {
	sig, problem := SignatureForm(keys, m)
	if problem != "" {
		return problem
	}
	for _, pub := range keys {
		if signature.Verify(pub, m.Signed(), sig) {
			return ""
		}
	}
	return SignatureMismatchOf(m, len(keys))
}

// SignatureForm is SignatureProblem up to the verification itself: the
// decoded signature to verify, or why there is none. A caller that
// verifies in batches (the validate stage) uses it with SignatureMismatch.
func SignatureForm(keys []ed25519.PublicKey, m *Message) (sig []byte, problem string) {
	switch {
	case !m.HasSig || m.Sig == "":
		return nil, "<Sig> is missing or empty"
	case m.HasSigAlg && m.SigAlg != "ed25519":
		return nil, `<Sig alg="` + Echo(m.SigAlg) + `"> is not supported; use alg="ed25519"`
	case m.SignedStart < 0:
		return nil, "<Header> must come before <Body>: the signature covers <Header> through </Body>"
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(m.Sig)
	if err != nil {
		return nil, "<Sig> is not standard base64 with padding"
	}
	if len(keys) == 0 {
		if m.Signer != "" {
			return nil, "the Signer " + m.Signer + " holds no valid public key in the reference data"
		}
		return nil, "the sender holds no valid public key in the reference data"
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, SignatureMismatchOf(m, len(keys))
	}
	return sig, ""
}

// SignatureMismatch is the problem of a signature that does not verify
// under any of the sender's keys.
func SignatureMismatch(keys int) string {
	if keys > 1 {
		return "<Sig> does not verify with either of the sender's public keys over <Header> through </Body>"
	}
	return "<Sig> does not verify with the sender's public key over <Header> through </Body>"
}

// SignatureMismatchOf is SignatureMismatch for m: with a Signer, the
// problem names the Signer's keys, which alone were tried.
func SignatureMismatchOf(m *Message, keys int) string {
	if m.Signer == "" {
		return SignatureMismatch(keys)
	}
	if keys > 1 {
		return "<Sig> does not verify with either of the public keys of the Signer " + m.Signer + " over <Header> through </Body> (the Sender's keys are not tried)"
	}
	return "<Sig> does not verify with the public key of the Signer " + m.Signer + " over <Header> through </Body> (the Sender's keys are not tried)"
}

// Signer encodes and signs outputs with the utility's key.
type Signer struct {
	BIC string
	Key ed25519.PrivateKey
	Now func() time.Time // wall clock for Header Created; time.Now when nil

	expand   sync.Once
	expanded *signature.Key // Key, expanded on first use
}

// Public is the public half of the signing key, which the utility's row of
// reference data must list (refdata.CheckSigner).
func (s *Signer) Public() ed25519.PublicKey { return s.Key.Public().(ed25519.PublicKey) }

// Encode writes o as a signed one-line XML message.
func (s *Signer) Encode(o *Output) []byte {
	return s.EncodeAll([]Output{*o})[0]
}

// EncodeAll is Encode of each of outs, their signatures computed together
// (signature.Key.SignBatch: one field inversion for all of them).
func (s *Signer) EncodeAll(outs []Output) [][]byte {
	encs := s.EncodeUnsigned(outs)
	s.Seal(encs)
	return encs
}

// unsignedStart is where the signed range of an unsigned message begins:
// after "<Msg>".
const unsignedStart = len("<Msg>")

// EncodeUnsigned writes each of outs as a one-line XML message that lacks
// its signature: "<Msg>" through "</Body>", with room for the rest. Seal
// completes them. The Kafka path's producers seal the outputs they write,
// many at a time (processors/produce, seal.go).
func (s *Signer) EncodeUnsigned(outs []Output) [][]byte {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	created := FormatTimestamp(now().UnixNano())
	encs := make([][]byte, len(outs))
	for i := range outs {
		o := &outs[i]
		b := make([]byte, 0, 320+len(o.Body)+120)
		b = append(b, "<Msg>"...)
		b = append(b, "<Header>"...)
		b = elem(b, "MsgId", o.MsgId)
		b = elem(b, "MsgType", o.Type.String())
		fn := o.Function
		if fn == 0 {
			fn = NEW
		}
		b = elem(b, "Function", fn.String())
		b = elem(b, "Sender", s.BIC)
		b = elem(b, "Receiver", o.Receiver)
		b = elem(b, "Created", created)
		if o.RelatedMsgId != "" {
			b = elem(b, "RelatedMsgId", o.RelatedMsgId)
		}
		b = append(b, "</Header><Body>"...)
		b = append(b, o.Body...)
		encs[i] = append(b, "</Body>"...)
	}
	return encs
}

// Seal signs each of msgs, messages of EncodeUnsigned, and appends the
// signature, in place: msgs[i] becomes the signed message. The signatures
// are computed together (signature.Key.SignBatch: one field inversion for
// all of them).
func (s *Signer) Seal(msgs [][]byte) {
	s.expand.Do(func() { s.expanded = signature.NewKey(s.Key) })
	n := len(msgs)
	var (
		signedBuf [4][]byte
		sigBuf    [4][ed25519.SignatureSize]byte
	)
	signed, sigs := signedBuf[:], sigBuf[:]
	if n > len(signedBuf) {
		signed, sigs = make([][]byte, n), make([][ed25519.SignatureSize]byte, n)
	}
	signed, sigs = signed[:n], sigs[:n]
	for i, b := range msgs {
		signed[i] = b[unsignedStart:]
	}
	s.expanded.SignBatch(signed, sigs)
	for i, b := range msgs {
		b = append(b, `<Sig alg="ed25519">`...)
		b = base64.StdEncoding.AppendEncode(b, sigs[i][:])
		msgs[i] = append(b, "</Sig></Msg>"...)
	}
}
