package difflib

import (
	"slices"
	"sort"
)

// core is the SequenceMatcher algorithm over dense integer symbols: a and b hold ids in
// [0, k), and junk (when non-nil) says which ids are junk. Working on ids instead of the
// caller's elements replaces every hash lookup of the inner loops by slice indexing; the
// generic SequenceMatcher interns its elements, and Differ interns the characters of a
// replace block once for all its line pairs.
type core struct {
	a, b     []int32
	k        int
	junk     []bool // by id; nil means no junk
	autoJunk bool

	// b2j[id] lists the positions of id in b, ascending; empty for ids absent from b, junk
	// or popular. The slices share pos.
	b2j     [][]int
	pos     []int
	bcount  []int // occurrences in b of every id, junk and popular included
	popular []int32

	matching []Match
	opcodes  []OpCode

	j2len, newj2len []int // scratch rows, all zero between calls
	used            []int // scratch for quickRatio, all zero between calls
}

func (c *core) setAlphabet(k int, junk []bool) {
	c.k, c.junk = k, junk
	if cap(c.b2j) < k {
		c.b2j = make([][]int, k)
		c.bcount = make([]int, k)
		c.used = make([]int, k)
	}
	c.b2j, c.bcount, c.used = c.b2j[:k], c.bcount[:k], c.used[:k]
}

func (c *core) setA(a []int32) {
	c.a = a
	c.matching, c.opcodes = nil, nil
}

// setB indexes b (Python's __chain_b): positions by id, then junk ids and, when autojunk
// applies (len(b) ≥ 200), ids occurring more than len(b)/100+1 times are dropped from b2j.
func (c *core) setB(b []int32) {
	c.b = b
	c.matching, c.opcodes = nil, nil
	clear(c.bcount)
	for _, id := range b {
		c.bcount[id]++
	}
	if cap(c.pos) < len(b) {
		c.pos = make([]int, len(b))
	}
	c.pos = c.pos[:len(b)]
	off := 0
	for id := range c.k {
		n := c.bcount[id]
		c.b2j[id] = c.pos[off : off : off+n]
		off += n
	}
	for j, id := range b {
		c.b2j[id] = append(c.b2j[id], j)
	}
	if c.junk != nil {
		for id := range c.k {
			if c.junk[id] {
				c.b2j[id] = nil
			}
		}
	}
	c.popular = c.popular[:0]
	if n := len(b); c.autoJunk && n >= 200 {
		ntest := n/100 + 1
		for id := range c.k {
			if len(c.b2j[id]) > ntest {
				c.popular = append(c.popular, int32(id))
				c.b2j[id] = nil
			}
		}
	}
	if cap(c.j2len) < len(b)+1 {
		c.j2len = make([]int, len(b)+1)
		c.newj2len = make([]int, len(b)+1)
	}
	c.j2len, c.newj2len = c.j2len[:len(b)+1], c.newj2len[:len(b)+1]
}

func (c *core) isJunk(id int32) bool { return c.junk != nil && c.junk[id] }

func (c *core) findLongestMatch(alo, ahi, blo, bhi int) Match {
	a, b := c.a, c.b
	besti, bestj, bestsize := alo, blo, 0
	// j2len[j+1] is the length of the match of a[..i-1] and b[..j] ending at both.
	j2len, newj2len := c.j2len, c.newj2len
	var touched, newTouched []int
	for i := alo; i < ahi; i++ {
		idx := c.b2j[a[i]]
		if len(idx) == 0 {
			for _, t := range touched {
				j2len[t] = 0
			}
			touched = touched[:0]
			continue
		}
		start := 0
		if idx[0] < blo {
			start = sort.SearchInts(idx, blo)
		}
		newTouched = newTouched[:0]
		for _, j := range idx[start:] {
			if j >= bhi {
				break
			}
			k := j2len[j] + 1
			newj2len[j+1] = k
			newTouched = append(newTouched, j+1)
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		for _, t := range touched {
			j2len[t] = 0
		}
		j2len, newj2len = newj2len, j2len
		touched, newTouched = newTouched, touched
	}
	for _, t := range touched {
		j2len[t] = 0
	}
	for besti > alo && bestj > blo && !c.isJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && !c.isJunk(b[bestj+bestsize]) &&
		a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	for besti > alo && bestj > blo && c.isJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && c.isJunk(b[bestj+bestsize]) &&
		a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return Match{besti, bestj, bestsize}
}

func (c *core) matchingBlocks() []Match {
	if c.matching != nil {
		return c.matching
	}
	la, lb := len(c.a), len(c.b)
	type rng struct{ alo, ahi, blo, bhi int }
	queue := []rng{{0, la, 0, lb}}
	var blocks []Match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := c.findLongestMatch(q.alo, q.ahi, q.blo, q.bhi)
		if x.Size > 0 {
			blocks = append(blocks, x)
			if q.alo < x.A && q.blo < x.B {
				queue = append(queue, rng{q.alo, x.A, q.blo, x.B})
			}
			if x.A+x.Size < q.ahi && x.B+x.Size < q.bhi {
				queue = append(queue, rng{x.A + x.Size, q.ahi, x.B + x.Size, q.bhi})
			}
		}
	}
	slices.SortFunc(blocks, func(x, y Match) int {
		if x.A != y.A {
			return x.A - y.A
		}
		if x.B != y.B {
			return x.B - y.B
		}
		return x.Size - y.Size
	})
	out := make([]Match, 0, len(blocks)+1)
	var cur Match
	for _, x := range blocks {
		if cur.A+cur.Size == x.A && cur.B+cur.Size == x.B {
			cur.Size += x.Size
			continue
		}
		if cur.Size > 0 {
			out = append(out, cur)
		}
		cur = x
	}
	if cur.Size > 0 {
		out = append(out, cur)
	}
	out = append(out, Match{la, lb, 0})
	c.matching = out
	return out
}

func (c *core) opCodes() []OpCode {
	if c.opcodes != nil {
		return c.opcodes
	}
	i, j := 0, 0
	out := []OpCode{}
	for _, x := range c.matchingBlocks() {
		var tag byte
		switch {
		case i < x.A && j < x.B:
			tag = 'r'
		case i < x.A:
			tag = 'd'
		case j < x.B:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, OpCode{tag, i, x.A, j, x.B})
		}
		i, j = x.A+x.Size, x.B+x.Size
		if x.Size > 0 {
			out = append(out, OpCode{'e', x.A, i, x.B, j})
		}
	}
	c.opcodes = out
	return out
}

func calculateRatio(matches, length int) float64 {
	if length > 0 {
		return 2.0 * float64(matches) / float64(length)
	}
	return 1.0
}

func (c *core) ratio() float64 {
	matches := 0
	for _, x := range c.matchingBlocks() {
		matches += x.Size
	}
	return calculateRatio(matches, len(c.a)+len(c.b))
}

// quickRatio counts the multiset intersection of a and b (junk included), as Python's
// quick_ratio does with its avail dictionary.
func (c *core) quickRatio() float64 {
	matches := 0
	for _, id := range c.a {
		if c.used[id] < c.bcount[id] {
			matches++
		}
		c.used[id]++
	}
	for _, id := range c.a {
		c.used[id] = 0
	}
	return calculateRatio(matches, len(c.a)+len(c.b))
}

func (c *core) realQuickRatio() float64 {
	la, lb := len(c.a), len(c.b)
	return calculateRatio(min(la, lb), la+lb)
}
