package store

import "errors"

var errEmpty = errors.New("empty name")

func validate(name string) error {
	check := func() bool { return len(name) == 0 }
	if check() {
		return errEmpty
	}
	return nil
}

// Box holds one value.
type Box[T any] struct{ v T }

// NewBox boxes v.
func NewBox[T any](v T) *Box[T] { return &Box[T]{v: v} }

// Get unboxes.
func (b *Box[T]) Get() T { return b.v }

func describe(x any) string {
	switch v := x.(type) {
	case *Item:
		return v.Name + itoa(v.Price())
	case Logger:
		v.Log("described")
	}
	b := NewBox[int](3)
	n := new(Item)
	return itoa(b.Get() + n.Price())
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
