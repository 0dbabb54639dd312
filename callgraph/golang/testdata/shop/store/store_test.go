package store_test

import (
	"testing"

	"example.com/shop/store"
)

func TestAdd(t *testing.T) {
	s := store.New(nil)
	if err := s.Add("", 1); err == nil {
		t.Fatal("no error")
	}
	helper(t)
}

func helper(t *testing.T) { t.Helper() }
