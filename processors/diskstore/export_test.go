package diskstore

// Ack is the producer's acknowledgement of a write, for measurements in the
// external test package that run no producer.
func Ack(s *Store, key string, offset int64) { s.acked(key, offset, nil) }
