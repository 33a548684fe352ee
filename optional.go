package adcamp

// Optional is a field of a partial update: absent, explicitly null, or a
// value. The JSON decoder in internal/httpapi fills it; the service reads it.
type Optional[T any] struct {
	Set   bool // the field was present in the request
	Null  bool // it was present and null
	Value T    // its value when Set && !Null
}

// Some returns a present, non-null Optional.
func Some[T any](v T) Optional[T] { return Optional[T]{Set: true, Value: v} }

// Null returns a present, null Optional.
func Null[T any]() Optional[T] { return Optional[T]{Set: true, Null: true} }

// Has reports whether the field is present with a non-null value.
func (o Optional[T]) Has() bool { return o.Set && !o.Null }
