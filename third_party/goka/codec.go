package goka

// Codec decodes and encodes from and to []byte
type Codec interface {
	Encode(value any) (data []byte, err error)
	Decode(data []byte) (value any, err error)
}

// RefDecoder is a Codec whose decoded value is a consumed record's bytes as
// they are: given where the record's context holds them, it returns them by
// reference (a *[]byte, which an interface holds without an allocation,
// where the slice itself takes one). A partition processor decodes through
// DecodeRef when its codec has it (STE patch 10).
type RefDecoder interface {
	DecodeRef(data *[]byte) (value any, err error)
}
