package topics_test

import "github.com/twmb/franz-go/pkg/kgo"

func recordWithKey(k string) *kgo.Record { return &kgo.Record{Key: []byte(k)} }
