package main

import (
	"os"

	st "example.com/shop/store"
)

type app struct {
	s *st.Store
}

func (a *app) run() int {
	if err := a.s.Add("pen", 150); err != nil {
		return 1
	}
	return a.s.Total()
}

func main() {
	a := &app{s: st.New(nil)}
	defer func() { a.run() }()
	os.Exit(a.run() + len(st.NewBox("x").Get()))
}
