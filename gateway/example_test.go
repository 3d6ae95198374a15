package gateway_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// signRequest signs req as RFC 9421 asks the gateway (docs/participants.md):
// keyid the participant's BIC, created now, a fresh nonce, covering
// "@method", "@target-uri" and, with a body, "content-digest". Only the
// standard library: the signature base is three lines and the parameters.
func signRequest(req *http.Request, body []byte, bic string, key ed25519.PrivateKey) {
	components := `"@method" "@target-uri"`
	base := fmt.Sprintf("\"@method\": %s\n\"@target-uri\": %s\n", req.Method, req.URL.String())
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		req.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		components += ` "content-digest"`
		base += "\"content-digest\": " + req.Header.Get("Content-Digest") + "\n"
	}
	n := make([]byte, 16)
	rand.Read(n)
	params := "(" + components + ");created=" + strconv.FormatInt(time.Now().Unix(), 10) +
		`;keyid="` + bic + `";alg="ed25519";nonce="` + base64.RawURLEncoding.EncodeToString(n) + `"`
	base += `"@signature-params": ` + params
	sig := ed25519.Sign(key, []byte(base))
	req.Header.Set("Signature-Input", "sig1="+params)
	req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
}

// Example_participant submits one message and reads the outputs, as a
// participant's Go program would (it needs a running gateway, so it has no
// Output line and is only compiled).
func Example_participant() {
	bic := "BRKASGSGXXX"
	seed := sha256.Sum256([]byte("ste-demo-key:" + bic)) // the demo key; yours comes from your key store
	key := ed25519.NewKeyFromSeed(seed[:])
	gw := "https://gateway.example.com"

	msg := []byte("<Msg><Header>…</Header><Body>…</Body><Sig alg=\"ed25519\">…</Sig></Msg>")
	req, _ := http.NewRequest(http.MethodPost, gw+"/v1/messages", bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/xml")
	signRequest(req, msg, bic, key)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.Status, string(b)) // 202 {"accepted":[{"partition":3,"offset":42}]}
		resp.Body.Close()
	}

	req, _ = http.NewRequest(http.MethodGet, gw+"/v1/outputs?limit=100&wait=20", nil)
	signRequest(req, nil, bic, key)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.Status, string(b)) // {"outputs":[…],"next":"…"}: keep next for the next call
		resp.Body.Close()
	}
}
