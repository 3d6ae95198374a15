package store

import (
	"context"
	"fmt"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/outcome"
)

// Outcome folds what the store holds of namespace ns — its CLS, outbound
// and exception rows — into an outcome.Set, the same Set topics.ReadOutcome
// folds from the topics: ste diff --clickhouse compares two of them. Rows
// are read as they are, re-emissions included (the Set deduplicates by
// MsgId and exception id); a namespace whose topics were deleted and made
// again under the same name has the rows of both until their TTL.
func (s *Store) Outcome(ctx context.Context, ns string) (*outcome.Set, error) {
	set := outcome.New()
	q := func(table, cols string, scan func(func(...any) error) error) error {
		rows, err := s.conn.Query(ctx, "SELECT "+cols+" FROM "+s.Table(table)+" WHERE namespace = ?", ns)
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
