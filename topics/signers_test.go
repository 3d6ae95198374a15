package topics_test

import (
	"context"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

func refdataDir(t *testing.T, participants string) *refdata.Set {
	t.Helper()
	s, err := refdata.Load(fstest.MapFS{
		"currencies.csv":   {Data: []byte("code,minor_units\nSGD,2\n")},
		"countries.csv":    {Data: []byte("code,name\nSG,Singapore\n")},
		"securities.csv":   {Data: []byte("isin,name,currency,country,status\nSG1L01001701,DBS,SGD,SG,ACTIVE\n")},
		"participants.csv": {Data: []byte(participants)},
		"holidays.csv":     {Data: []byte("country,date\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ste refdata load of a participants.csv without the signers column keeps
// the stored signers (messages.md §8) — also once the topic is compacted:
// the record it publishes says them.
func TestLoadWithoutSignersColumnKeepsThemThroughCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	addr, _ := startBroker(t)
	c := kafkaconn.Plaintext(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	key := base64.StdEncoding.EncodeToString(refdata.DemoPublicKey("BRKASGSGXXX"))
	o := topics.Options{Partitions: 1}
	if _, err := topics.LoadRefdata(ctx, c, "sg", o, refdataDir(t, "bic,name,roles,country,status,public_key,signers\n"+
		"BRKASGSGXXX,A,BROKER,SG,ACTIVE,"+key+",STEUTLSGFIX\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.LoadRefdata(ctx, c, "sg", o, refdataDir(t, "bic,name,roles,country,status,public_key\n"+
		"BRKASGSGXXX,A renamed,BROKER,SG,ACTIVE,"+key+"\n"+
		"BRKBSGSGXXX,B,BROKER,SG,ACTIVE,"+key+"\n")); err != nil {
		t.Fatal(err)
	}
	// Compaction keeps the last record of each key.
	last := map[string][]byte{}
	if _, err := topics.Dump(ctx, c, topology.Names{NS: "sg"}.Refdata(), func(r *kgo.Record) error {
		last[string(r.Key)] = r.Value
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if v := string(last["participant:BRKASGSGXXX"]); !strings.Contains(v, `"name":"A renamed"`) || !strings.Contains(v, `"signers":"STEUTLSGFIX"`) {
		t.Fatalf("the last record of A: %s", v)
	}
	if v := string(last["participant:BRKBSGSGXXX"]); strings.Contains(v, "signers") {
		t.Fatalf("B, new and without the column, got signers: %s", v)
	}
	compacted := refdata.NewSet()
	for k, v := range last {
		if err := compacted.Apply([]byte(k), v); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := compacted.Participant("BRKASGSGXXX"); !reflect.DeepEqual(p.Signers, []string{"STEUTLSGFIX"}) {
		t.Fatalf("after compaction: %+v", p)
	}
	// With the column, an empty cell clears.
	if _, err := topics.LoadRefdata(ctx, c, "sg", o, refdataDir(t, "bic,name,roles,country,status,public_key,signers\n"+
		"BRKASGSGXXX,A,BROKER,SG,ACTIVE,"+key+",\n")); err != nil {
		t.Fatal(err)
	}
	stored, err := topics.ReadRefdata(ctx, c, "sg")
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := stored.Participant("BRKASGSGXXX"); p.Signers != nil {
		t.Fatalf("not cleared: %+v", p)
	}
}
