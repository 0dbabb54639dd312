// Package store keeps items.
package store

import (
	"fmt"
	"strings"
)

// Logger receives messages.
type Logger interface {
	Log(msg string)
}

type consoleLogger struct{ prefix string }

func (c consoleLogger) Log(msg string) { fmt.Println(c.prefix + msg) }

type quietLogger struct{}

func (*quietLogger) Log(string) {}

// Item is a thing for sale.
type Item struct {
	Name  string
	cents int
}

// Price returns the price in cents.
func (i *Item) Price() int { return i.cents }

// Special is an item with a discount.
type Special struct {
	*Item
	off int
}

// Store holds items.
type Store struct {
	items map[string]*Item
	log   Logger
	last  Item
}

var defaultStore = New(consoleLogger{prefix: "> "})

// New returns an empty store.
func New(l Logger) *Store {
	return &Store{items: map[string]*Item{}, log: l}
}

// Add puts an item.
// It validates the name first.
func (s *Store) Add(name string, cents int) error {
	if err := validate(name); err != nil {
		s.log.Log(err.Error())
		return err
	}
	s.items[name] = &Item{Name: strings.ToLower(name), cents: cents}
	return nil
}

func (s Store) Total() int {
	t := 0
	for _, it := range s.items {
		t += it.Price()
	}
	return t + s.last.Price()
}

func (s *Store) Discount(name string, off int) int {
	sp := Special{Item: s.items[name], off: off}
	return sp.Price() - sp.off
}

func init() { defaultStore.Add("seed", 1) }

func init() {
	var q quietLogger
	q.Log("ready")
}
