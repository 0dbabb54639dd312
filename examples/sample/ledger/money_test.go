package ledger

import (
	"errors"
	"testing"
)

func TestParseAmount(t *testing.T) {
	cases := []struct {
		in   string
		want Cents
	}{
		{"0", 0},
		{"12.34", 1234},
		{"12.3", 1230},
		{"-0.5", -50},
		{"1,234.00", 123400},
		{"(7.25)", -725},
		{" 42 ", 4200},
		{".99", 99},
		{"1,000,000", 100000000},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseAmount(c.in)
			if err != nil {
				t.Fatalf("ParseAmount(%q): %v", c.in, err)
			}
			if got != c.want {
				t.Errorf("ParseAmount(%q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

func TestParseAmountErrors(t *testing.T) {
	for _, in := range []string{"", "abc", "1.234", "1.", "(-5)", "--1", "1.2x"} {
		t.Run(in, func(t *testing.T) {
			if _, err := ParseAmount(in); !errors.Is(err, ErrAmount) {
				t.Errorf("ParseAmount(%q) error = %v, want ErrAmount", in, err)
			}
		})
	}
}

func TestCentsString(t *testing.T) {
	cases := map[Cents]string{
		0:          "0.00",
		5:          "0.05",
		1234:       "12.34",
		-725:       "-7.25",
		123400:     "1,234.00",
		100000000:  "1,000,000.00",
		-123456789: "-1,234,567.89",
	}
	for c, want := range cases {
		t.Run(want, func(t *testing.T) {
			if got := c.String(); got != want {
				t.Errorf("Cents(%d).String() = %q, want %q", int64(c), got, want)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	cases := []struct {
		c    Cents
		p    int64
		want Cents
	}{
		{1000, 10, 100},
		{999, 10, 100},
		{994, 10, 99},
		{-999, 10, -100},
		{1234, 0, 0},
		{1, 50, 1},
		{-1, 50, -1},
	}
	for _, c := range cases {
		if got := c.c.Percent(c.p); got != c.want {
			t.Errorf("Cents(%d).Percent(%d) = %d, want %d", int64(c.c), c.p, got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []Cents{0, 1, 99, 100, 1001, -5, 123456789, -98765} {
		got, err := ParseAmount(c.String())
		if err != nil || got != c {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", c.String(), got, err, c)
		}
	}
}
