package topology

// Size limits, in one place because they must agree: a topic refuses a
// record batch larger than its max.message.bytes, and a producer cannot send
// a record larger than its batch limit.
const (
	// MaxRecordBytes is the largest record STE accepts on inbound and carries
	// on: far above the contract's 64 KiB, so that an oversized message
	// reaches validation and is rejected as TOO_LARGE with its first 64 KiB
	// kept, instead of being refused by the broker where nobody sees it.
	MaxRecordBytes = 8 << 20
	// MaxBatchBytes bounds a producer's record batch: one largest record plus
	// its envelope fits.
	MaxBatchBytes = MaxRecordBytes + 1<<20
	// TopicMaxBytes is every topic's max.message.bytes: above any batch.
	TopicMaxBytes = 2 * MaxBatchBytes
)
