package pipeline

import (
	"context"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/ste-utility/ste/kafkaconn"
)

// SaramaSecurity applies the TLS and SASL of k to a sarama configuration
// (goka's consumers and topic manager). SCRAM runs on franz-go's
// implementation, so both clients authenticate with the same code.
func SaramaSecurity(k kafkaconn.Config, cfg *sarama.Config) {
	cr := k.Credentials()
	if cr.TLS != nil {
		cfg.Net.TLS.Enable = true
		cfg.Net.TLS.Config = cr.TLS
	}
	if cr.Mechanism == "" {
		return
	}
	cfg.Net.SASL.Enable = true
	cfg.Net.SASL.Handshake = true
	cfg.Net.SASL.Version = sarama.SASLHandshakeV1
	cfg.Net.SASL.User = cr.User
	cfg.Net.SASL.Password = string(cr.Password)
	switch cr.Mechanism {
	case kafkaconn.Plain:
		cfg.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	case kafkaconn.ScramSHA256:
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
	case kafkaconn.ScramSHA512:
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
	}
	if mech := cr.SCRAM; mech != nil {
		cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{mech: mech} }
	}
}

// scramClient is sarama's SCRAMClient on a franz-go SASL mechanism. sarama
// calls Begin, Step("") for the client-first message, then Step with each
// server message until Done.
type scramClient struct {
	mech    sasl.Mechanism
	session sasl.Session
	done    bool
}

func (s *scramClient) Begin(_, _, _ string) error { return nil }

func (s *scramClient) Step(challenge string) (string, error) {
	if s.session == nil {
		sess, first, err := s.mech.Authenticate(context.Background(), "")
		if err != nil {
			return "", err
		}
		s.session = sess
		return string(first), nil
	}
	done, msg, err := s.session.Challenge([]byte(challenge))
	if err != nil {
		return "", err
	}
	s.done = done
	return string(msg), nil
}

func (s *scramClient) Done() bool { return s.done }
