// Package testca writes throw-away certificate authorities for tests of TLS
// connections (crypto/x509, ECDSA P-256): a CA, a broker certificate for
// 127.0.0.1 and localhost signed by it, and a client certificate. Keys are
// unencrypted PKCS#8, which Kafka's PEM key stores read as they are.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files are the PEM files Write made.
type Files struct {
	CA         string // the CA certificate: what clients trust
	ServerCert string // broker certificate followed by the CA
	ServerKey  string
	// ServerKeystore holds the broker's key and certificate chain in one
	// file (Kafka's ssl.keystore.type=PEM).
	ServerKeystore string
	ClientCert     string
	ClientKey      string
}

// Write makes a CA named name and its certificates under dir.
func Write(dir, name string) (Files, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, err
	}
	now := time.Now()
	caKey, caDER, err := issue(&x509.Certificate{
		Subject: pkix.Name{CommonName: name + " test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil, now)
	if err != nil {
		return Files{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Files{}, err
	}
	srvKey, srvDER, err := issue(&x509.Certificate{
		Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, caKey, now)
	if err != nil {
		return Files{}, err
	}
	cliKey, cliDER, err := issue(&x509.Certificate{
		Subject:  pkix.Name{CommonName: "ste-client"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca, caKey, now)
	if err != nil {
		return Files{}, err
	}
	f := Files{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey: filepath.Join(dir, "server-key.pem"), ServerKeystore: filepath.Join(dir, "server-keystore.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	caPEM := block("CERTIFICATE", caDER)
	srvPEM := append(block("CERTIFICATE", srvDER), caPEM...)
	for path, data := range map[string][]byte{
		f.CA: caPEM, f.ServerCert: srvPEM, f.ServerKey: keyPEM(srvKey), f.ServerKeystore: append(keyPEM(srvKey), srvPEM...),
		f.ClientCert: append(block("CERTIFICATE", cliDER), caPEM...), f.ClientKey: keyPEM(cliKey),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return Files{}, err
		}
	}
	return f, nil
}

// issue makes a key and a certificate from tmpl, signed by parent (self-signed
// when parent is nil).
func issue(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, now time.Time) (key *ecdsa.PrivateKey, der []byte, err error) {
	key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(24*time.Hour)
	signer, signKey := parent, parentKey
	if parent == nil {
		signer, signKey = tmpl, key
	}
	der, err = x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signKey)
	return key, der, err
}

// keyPEM is key as unencrypted PKCS#8 PEM.
func keyPEM(key *ecdsa.PrivateKey) []byte {
	p8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err) // a P-256 key always marshals
	}
	return block("PRIVATE KEY", p8)
}

func block(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// ServerTLS is the broker side of f (kfake.TLS): its certificate, and
// client certificates verified against the CA when presented.
func ServerTLS(f Files) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool,
		ClientAuth: tls.VerifyClientCertIfGiven, MinVersion: tls.VersionTLS12}, nil
}
