package gateway

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"hash"
	"net/http"
	"strings"
	"time"

	"github.com/ste-utility/ste/schemas/refdata"
)

// Refusal reasons of docs/spec/gateway.md §1, in the order the checks run: the first
// check that fails names the reason.
const (
	ReasonMissingSignature   = "missing_signature"
	ReasonMalformed          = "malformed"
	ReasonComponents         = "components"
	ReasonUnknownParticipant = "unknown_participant"
	ReasonStale              = "stale"
	ReasonBadSignature       = "bad_signature"
	ReasonDigestMismatch     = "digest_mismatch"
	ReasonReplayed           = "replayed"
)

// Reasons lists the refusal reasons in check order (metrics pre-declare them).
var Reasons = []string{ReasonMissingSignature, ReasonMalformed, ReasonComponents, ReasonUnknownParticipant,
	ReasonStale, ReasonBadSignature, ReasonDigestMismatch, ReasonReplayed}

const (
	// createdWindow: a signature's created is within this of the gateway's clock.
	createdWindow = 300 * time.Second
	// NonceWindow: a nonce is never accepted twice for a participant within
	// it. Twice the created window: any replay of a signature still inside
	// its window comes within 600 s of its first use.
	NonceWindow = 600 * time.Second
	maxNonce    = 64
)

// signed is a request's one signature, parsed and checked for form.
type signed struct {
	label      string
	components []sfItem
	params     []sfParam
	sig        []byte
	keyid      string
	created    int64
	expires    int64
	hasExpires bool
	nonce      string
}

// parseSignature reads Signature-Input and Signature; the reason is "" when
// both are there, parse, hold exactly one signature of one label, and carry
// the required parameters in their forms.
func parseSignature(h http.Header) (*signed, string) {
	inputs, sigs := h.Values("Signature-Input"), h.Values("Signature")
	if len(inputs) == 0 && len(sigs) == 0 {
		return nil, ReasonMissingSignature
	}
	if len(inputs) == 0 || len(sigs) == 0 {
		return nil, ReasonMalformed
	}
	in, err := parseDictionary(strings.Join(inputs, ", "))
	if err != nil || len(in) != 1 || !in[0].IsList {
		return nil, ReasonMalformed
	}
	sg, err := parseDictionary(strings.Join(sigs, ", "))
	if err != nil || len(sg) != 1 || sg[0].IsList || sg[0].Key != in[0].Key || sg[0].Item.Kind != sfBytes {
		return nil, ReasonMalformed
	}
	s := &signed{label: in[0].Key, components: in[0].Inner, params: in[0].Params, sig: sg[0].Item.Bytes}
	seen := map[string]bool{}
	for _, c := range s.components {
		if c.Kind != sfString || c.Str == "" || strings.ToLower(c.Str) != c.Str {
			return nil, ReasonMalformed
		}
		id := c.serialize()
		if seen[id] {
			return nil, ReasonMalformed
		}
		seen[id] = true
	}
	var hasKey, hasCreated, hasNonce bool
	for _, p := range s.params {
		v := p.Value
		switch p.Key {
		case "keyid":
			if v.Kind != sfString {
				return nil, ReasonMalformed
			}
			s.keyid, hasKey = v.Str, true
		case "created":
			if v.Kind != sfInteger {
				return nil, ReasonMalformed
			}
			s.created, hasCreated = v.Int, true
		case "expires":
			if v.Kind != sfInteger {
				return nil, ReasonMalformed
			}
			s.expires, s.hasExpires = v.Int, true
		case "nonce":
			if v.Kind != sfString || !validNonce(v.Str) {
				return nil, ReasonMalformed
			}
			s.nonce, hasNonce = v.Str, true
		case "alg":
			if v.Kind != sfString || v.Str != "ed25519" {
				return nil, ReasonMalformed
			}
		}
	}
	if !hasKey || !hasCreated || !hasNonce {
		return nil, ReasonMalformed
	}
	return s, ""
}

func validNonce(n string) bool {
	if len(n) == 0 || len(n) > maxNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !isAlpha(c) && !isDigit(c) && strings.IndexByte("._~+/=-", c) < 0 {
			return false
		}
	}
	return true
}

// covers reports whether the signature covers the component name with no
// parameters.
func (s *signed) covers(name string) bool {
	for _, c := range s.components {
		if c.Str == name && len(c.Params) == 0 {
			return true
		}
	}
	return false
}

// componentsReason checks the required components: @method, @target-uri or
// @path (with @query when the URL has one), content-digest with a body.
func (s *signed) componentsReason(r *http.Request, bodyLen int64) string {
	if !s.covers("@method") {
		return ReasonComponents
	}
	if !s.covers("@target-uri") {
		if !s.covers("@path") {
			return ReasonComponents
		}
		if strings.Contains(r.RequestURI, "?") && !s.covers("@query") {
			return ReasonComponents
		}
	}
	if bodyLen > 0 && !s.covers("content-digest") {
		return ReasonComponents
	}
	return ""
}

// origin is where the gateway was reached: the scheme and authority a
// participant signs in "@target-uri" and "@authority".
type origin struct {
	scheme    string
	authority string // as in the URL (for @target-uri)
}

// base builds the signature base (RFC 9421 §2.5); ok is false when a
// covered component cannot be resolved for this request (then the signature
// cannot be one made for it: bad_signature).
func (s *signed) base(r *http.Request, o origin) ([]byte, bool) {
	var b bytes.Buffer
	for _, c := range s.components {
		v, ok := componentValue(r, o, c)
		if !ok {
			return nil, false
		}
		b.WriteString(c.serialize())
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(serializeInnerList(s.components, s.params))
	return b.Bytes(), true
}

func componentValue(r *http.Request, o origin, c sfItem) (string, bool) {
	name := c.Str
	target := r.RequestURI
	path, query, hasQuery := strings.Cut(target, "?")
	if strings.HasPrefix(name, "@") {
		if len(c.Params) > 0 {
			return "", false // @query-param and the like: not served
		}
		switch name {
		case "@method":
			return r.Method, true
		case "@target-uri":
			return o.scheme + "://" + o.authority + target, true
		case "@authority":
			return normalAuthority(o), true
		case "@scheme":
			return o.scheme, true
		case "@request-target":
			return target, true
		case "@path":
			if path == "" {
				path = "/"
			}
			return path, true
		case "@query":
			if !hasQuery {
				return "?", true
			}
			return "?" + query, true
		}
		return "", false
	}
	if len(c.Params) > 0 {
		return "", false
	}
	var vals []string
	if name == "host" {
		vals = []string{r.Host}
	} else {
		vals = r.Header.Values(name)
	}
	if len(vals) == 0 {
		return "", false
	}
	for i := range vals {
		vals[i] = strings.Trim(vals[i], " \t")
	}
	return strings.Join(vals, ", "), true
}

// normalAuthority is "@authority": the host lower-cased, the scheme's
// default port left out (RFC 9421 §2.2.3).
func normalAuthority(o origin) string {
	a := strings.ToLower(o.authority)
	if (o.scheme == "https" && strings.HasSuffix(a, ":443")) || (o.scheme == "http" && strings.HasSuffix(a, ":80")) {
		a = a[:strings.LastIndexByte(a, ':')]
	}
	return a
}

// verifies is the check of docs/spec/messages.md §2 under any of the participant's
// keys (refdata.Participant.Verifies: signature.Verify, cofactored, the one
// rule the utility uses everywhere; keys were checked canonical and of order
// l when reference data was read).
func verifies(p refdata.Participant, msg, sig []byte) bool {
	return len(sig) == ed25519.SignatureSize && p.Verifies(msg, sig)
}

// digestReason checks Content-Digest (RFC 9530) against the body: needed
// when the body is not empty, checked whenever the header is there; at
// least one sha-256 or sha-512 member, every such member matching.
func digestReason(h http.Header, b *body) string {
	vals := h.Values("Content-Digest")
	if len(vals) == 0 {
		if b.size == 0 {
			return ""
		}
		return ReasonDigestMismatch
	}
	d, err := parseDictionary(strings.Join(vals, ", "))
	if err != nil {
		return ReasonDigestMismatch
	}
	found := false
	for _, m := range d {
		var want []byte
		switch m.Key {
		case "sha-256", "sha-512":
			want = b.digest(m.Key)
		default:
			continue
		}
		if m.IsList || m.Item.Kind != sfBytes || subtle.ConstantTimeCompare(m.Item.Bytes, want) != 1 {
			return ReasonDigestMismatch
		}
		found = true
	}
	if !found {
		return ReasonDigestMismatch
	}
	return ""
}

// body is a request body as read (readBody): its bytes (at most MaxBody+1),
// its size, and the digests its Content-Digest header named, computed as
// it was read.
type body struct {
	data       []byte
	size       int64
	h256, h512 hash.Hash
	pooled     *[]byte // data's buffer, from bodies
	inUse      bool    // data is still read after the answer: not released
}

// digest is the body's sha-256 or sha-512 (computed while reading when the
// header named it, else now from the bytes kept).
func (b *body) digest(alg string) []byte {
	if alg == "sha-256" {
		if b.h256 != nil {
			return b.h256.Sum(nil)
		}
		s := sha256.Sum256(b.data)
		return s[:]
	}
	if b.h512 != nil {
		return b.h512.Sum(nil)
	}
	s := sha512.Sum512(b.data)
	return s[:]
}

// digestAlgs are the members of Content-Digest the gateway checks (sha-256,
// sha-512) that the header names; none when it does not parse (then the
// digest check refuses it anyway).
func digestAlgs(h http.Header) []string {
	vals := h.Values("Content-Digest")
	if len(vals) == 0 {
		return nil
	}
	d, err := parseDictionary(strings.Join(vals, ", "))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range d {
		if m.Key == "sha-256" || m.Key == "sha-512" {
			out = append(out, m.Key)
		}
	}
	return out
}

// createdInWindow: created (integer seconds) is within createdWindow of
// now, to the instant — not of now truncated to its second, which let a
// signature live 601 s (issue 45, finding 4). A signature is then valid
// for at most 2×createdWindow = 600 s of real time, and nonceHold covers
// that span whatever the rounding of the nonce record's time stamp.
func createdInWindow(now time.Time, created int64) bool {
	d := now.Sub(time.Unix(created, 0))
	return d <= createdWindow && d >= -createdWindow
}
