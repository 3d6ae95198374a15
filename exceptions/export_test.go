package exceptions

import (
	"encoding/json"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// ApplyForTest reads state records of id into b as if from the topic, in
// order, each proven under secret, after an exception of that id.
func ApplyForTest(b *Book, secret *trust.Secret, id string, recs ...Record) {
	n := topology.Names{NS: "t"}
	b.addException(&Exception{Exception: schemas.Exception{ID: id}})
	for _, r := range recs {
		v, _ := json.Marshal(r)
		rec := &kgo.Record{Topic: n.ExceptionStates(), Key: []byte(id), Value: v}
		topics.Prove(secret, rec)
		b.apply(n, rec)
	}
}
