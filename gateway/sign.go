package gateway

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"time"
)

// SignedHeaders are the headers that sign a request as a participant signs
// it (docs/spec/gateway.md §1): covering "@method", "@target-uri" and, with a body,
// "content-digest"; keyid the BIC, created now, a fresh nonce. The demo
// prints a request signed so; participants use their own RFC 9421 client.
func SignedHeaders(method, targetURI string, body []byte, bic string, key ed25519.PrivateKey, now time.Time) http.Header {
	h := http.Header{}
	components := []sfItem{{Kind: sfString, Str: "@method"}, {Kind: sfString, Str: "@target-uri"}}
	base := `"@method": ` + method + "\n" + `"@target-uri": ` + targetURI + "\n"
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		d := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
		h.Set("Content-Digest", d)
		components = append(components, sfItem{Kind: sfString, Str: "content-digest"})
		base += `"content-digest": ` + d + "\n"
	}
	n := make([]byte, 16)
	rand.Read(n)
	params := []sfParam{
		{Key: "created", Value: sfItem{Kind: sfInteger, Int: now.Unix()}},
		{Key: "keyid", Value: sfItem{Kind: sfString, Str: bic}},
		{Key: "alg", Value: sfItem{Kind: sfString, Str: "ed25519"}},
		{Key: "nonce", Value: sfItem{Kind: sfString, Str: base64.RawURLEncoding.EncodeToString(n)}},
	}
	sp := serializeInnerList(components, params)
	base += `"@signature-params": ` + sp
	h.Set("Signature-Input", "sig1="+sp)
	h.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(key, []byte(base)))+":")
	return h
}
