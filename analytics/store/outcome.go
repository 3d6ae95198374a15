package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/outcome"
)

// OutcomeTables are the tables a run's outcome is read from.
var OutcomeTables = []string{TableCLS, TableOutbound, TableExceptions}

// Outcome folds what the store holds of namespace ns — its CLS, outbound
// and exception rows — into an outcome.Set, the same Set topics.ReadOutcome
// folds from the topics: ste diff --clickhouse compares two of them. Rows
// are read as they are, re-emissions included (the Set deduplicates by
// MsgId and exception id). A namespace whose topics were deleted and made
// again under the same name (a sandbox replayed again) has the rows of both
// until their TTL: ids, by table, names the topic whose rows are read (the
// topic's current Kafka id); a table without one is read whole.
func (s *Store) Outcome(ctx context.Context, ns string, ids map[string]uuid.UUID) (*outcome.Set, error) {
	set := outcome.New()
	q := func(table, cols string, scan func(func(...any) error) error) error {
		where, args := " WHERE namespace = ?", []any{ns}
		if id, ok := ids[table]; ok && id != uuid.Nil {
			where, args = where+" AND topic_id = toUUID(?)", append(args, id.String())
		}
		rows, err := s.conn.Query(ctx, "SELECT "+cols+" FROM "+s.Table(table)+where, args...)
		if err != nil {
			return fmt.Errorf("clickhouse: read %s of %s: %s", table, ns, oneLine(err))
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows.Scan); err != nil {
				return fmt.Errorf("clickhouse: %s of %s: %w", table, ns, err)
			}
		}
		return rows.Err()
	}
	err := q(TableCLS, "msg_id, function, trade_key, version, related_msg_id, body", func(scan func(...any) error) error {
		r := &schemas.Received{MsgType: "CLS"}
		var v uint32
		var body string
		if err := scan(&r.MsgId, &r.Function, &r.TradeKey, &v, &r.RelatedMsgId, &body); err != nil {
			return err
		}
		r.Version, r.Body = int(v), []byte(body)
		set.AddReceived(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = q(TableOutbound, "msg_id, msg_type, function, receiver, related_msg_id, trade_key, status, reason, criteria, body",
		func(scan func(...any) error) error {
			r := &schemas.Received{}
			var crit []uint8
			var body string
			if err := scan(&r.MsgId, &r.MsgType, &r.Function, &r.Receiver, &r.RelatedMsgId, &r.TradeKey, &r.Status, &r.Reason, &crit, &body); err != nil {
				return err
			}
			for _, c := range crit {
				r.Criteria = append(r.Criteria, int(c))
			}
			r.Body = []byte(body)
			r.Tolerances = schemas.StatusTolerances(r.Body) // not a column: read from the body
			set.AddReceived(r)
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = q(TableExceptions, "id, sender, msg_id, reason", func(scan func(...any) error) error {
		var id string
		var r outcome.Rejection
		if err := scan(&id, &r.Sender, &r.MsgId, &r.Reason); err != nil {
			return err
		}
		return set.AddRejection(id, r)
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// TopicIDs lists, by table, the distinct topics (Kafka ids) whose rows the
// store holds for namespace ns: more than one is a namespace made again
// under its old name.
func (s *Store) TopicIDs(ctx context.Context, ns string) (map[string][]uuid.UUID, error) {
	out := map[string][]uuid.UUID{}
	for _, table := range OutcomeTables {
		rows, err := s.conn.Query(ctx, "SELECT DISTINCT topic_id FROM "+s.Table(table)+" WHERE namespace = ?", ns)
		if err != nil {
			return nil, fmt.Errorf("clickhouse: topics of %s in %s: %s", ns, table, oneLine(err))
		}
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			out[table] = append(out[table], id)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
