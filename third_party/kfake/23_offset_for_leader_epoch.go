package kfake

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetForLeaderEpoch: v3-4
//
// Behavior:
// * Returns the end offset for a given leader epoch
// * Used by clients to detect log truncation (KIP-320)
// * Only supports consumer replica ID (-1)
//
// Version notes:
// * v3: CurrentLeaderEpoch for fencing
// * v4: Flexible versions

func init() { regKey(23, 3, 4) }

func (c *Cluster) handleOffsetForLeaderEpoch(creq *clientReq) (kmsg.Response, error) {
	var (
		b    = creq.cc.b
		req  = creq.kreq.(*kmsg.OffsetForLeaderEpochRequest)
		resp = req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	)

	if err := c.checkReqVersion(req.Key(), req.Version); err != nil {
		return nil, err
	}

	tidx := make(map[string]int)
	donet := func(t string) *kmsg.OffsetForLeaderEpochResponseTopic {
		if i, ok := tidx[t]; ok {
			return &resp.Topics[i]
		}
		tidx[t] = len(resp.Topics)
		st := kmsg.NewOffsetForLeaderEpochResponseTopic()
		st.Topic = t
		resp.Topics = append(resp.Topics, st)
		return &resp.Topics[len(resp.Topics)-1]
	}
	donep := func(t string, p int32, errCode int16) *kmsg.OffsetForLeaderEpochResponseTopicPartition {
		sp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
		sp.Partition = p
		sp.ErrorCode = errCode
		st := donet(t)
		st.Partitions = append(st.Partitions, sp)
		return &st.Partitions[len(st.Partitions)-1]
	}

	for _, rt := range req.Topics {
		tk := faultKey{topic: rt.Topic}
		if e := c.deny(creq, rt.Topic, kmsg.ACLResourceTypeTopic, kmsg.ACLOperationDescribe, tk); e != nil {
			for _, rp := range rt.Partitions {
				donep(rt.Topic, rp.Partition, e.Code)
			}
			continue
		}
		ps, ok := c.data.tps.gett(rt.Topic)
		for _, rp := range rt.Partitions {
			if e := creq.faults.check(tk.part(rp.Partition)); e != nil {
				donep(rt.Topic, rp.Partition, e.Code)
				continue
			}
			if req.ReplicaID >= 0 {
				donep(rt.Topic, rp.Partition, kerr.UnknownServerError.Code)
				continue
			}
			if !ok {
				donep(rt.Topic, rp.Partition, kerr.UnknownTopicOrPartition.Code)
				continue
			}
			pd, ok := ps[rp.Partition]
			if !ok {
				donep(rt.Topic, rp.Partition, kerr.UnknownTopicOrPartition.Code)
				continue
			}
			if pd.leader != b {
				donep(rt.Topic, rp.Partition, kerr.NotLeaderForPartition.Code)
				continue
			}
			if le := rp.CurrentLeaderEpoch; le != -1 {
				if le < pd.epoch {
					donep(rt.Topic, rp.Partition, kerr.FencedLeaderEpoch.Code)
					continue
				} else if le > pd.epoch {
					donep(rt.Topic, rp.Partition, kerr.UnknownLeaderEpoch.Code)
					continue
				}
			}

			sp := donep(rt.Topic, rp.Partition, 0)

			// If the user is requesting our current epoch, we return the HWM.
			if rp.LeaderEpoch == pd.epoch {
				sp.LeaderEpoch = pd.epoch
				sp.EndOffset = pd.highWatermark
				continue
			}

			// An epoch past ours is unknown.
			if rp.LeaderEpoch > pd.epoch {
				sp.LeaderEpoch = -1
				sp.EndOffset = -1
				continue
			}

			// Kafka's leader epoch cache gains an entry, at the
			// log end offset, every time a leader takes over,
			// whether or not it writes; kfake's epochs move
			// without records (leader shuffles, nodes removed
			// and added) and it knows epochs only from batches.
			// With no batch written in a later epoch than the
			// requested one, that epoch's records end at the log
			// end, as Kafka answers. Answering "unknown epoch"
			// (-1) made every franz-go consumer that had read the
			// partition reset (to ConsumeResetOffset) after a
			// leader move on a partition not written since.
			if !pd.hasBatches() {
				sp.LeaderEpoch = rp.LeaderEpoch
				sp.EndOffset = pd.highWatermark
				continue
			}

			// Two-level binary search for the first batch with epoch > requested.
			nextEpoch := rp.LeaderEpoch + 1
			si, mi, cur := pd.findBatchMeta(int64(nextEpoch), func(m *batchMeta) int64 { return int64(m.epoch) })

			if cur == nil {
				lastSeg := &pd.segments[len(pd.segments)-1]
				sp.LeaderEpoch = rp.LeaderEpoch
				if len(lastSeg.index) > 0 {
					sp.LeaderEpoch = min(rp.LeaderEpoch, lastSeg.index[len(lastSeg.index)-1].epoch)
				}
				sp.EndOffset = pd.highWatermark
				continue
			}

			// Next epoch is actually the first epoch: return the
			// requested epoch and the LSO.
			if si == 0 && mi == 0 {
				sp.LeaderEpoch = rp.LeaderEpoch
				sp.EndOffset = pd.logStartOffset
				continue
			}

			// Get the batch before cur.
			var prev *batchMeta
			if mi > 0 {
				prev = &pd.segments[si].index[mi-1]
			} else {
				prevSeg := &pd.segments[si-1]
				prev = &prevSeg.index[len(prevSeg.index)-1]
			}
			sp.LeaderEpoch = prev.epoch
			sp.EndOffset = cur.firstOffset
		}
	}
	return resp, nil
}
