package cli

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want Shard
	}{{"0/3", Shard{0, 3}}, {"2/3", Shard{2, 3}}, {"0/1", Shard{0, 1}}} {
		got, err := ParseShard(ok.in)
		if err != nil || got != ok.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []string{"3/3", "x", "-1/3", "1/0", "1/x", "", "1/2/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	// Through a flag set: the error names the flag, and cli.Parse says usage.
	for _, bad := range []string{"3/3", "x"} {
		var s Shard
		var buf bytes.Buffer
		fs := flag.NewFlagSet("p", flag.ContinueOnError)
		fs.SetOutput(&buf)
		fs.Var(&s, "shard", "")
		if code := Parse(fs, []string{"-shard", bad}, false); code != ExitUsage {
			t.Errorf("-shard %s: exit %d", bad, code)
		}
		if !strings.Contains(buf.String(), "-shard") {
			t.Errorf("-shard %s: message does not name the flag: %s", bad, buf.String())
		}
	}
}

func TestShardOwns(t *testing.T) {
	// Every key belongs to exactly one shard of n; an unsharded run owns all; parts are
	// not empty on many keys.
	for _, n := range []int{1, 2, 3, 7} {
		counts := make([]int, n)
		for k := 0; k < 3000; k++ {
			key := fmt.Sprintf("pkg/file%d.go::F%d", k%17, k)
			owners := 0
			for i := 0; i < n; i++ {
				if (Shard{I: i, N: n}).Owns(key) {
					owners++
					counts[i]++
				}
			}
			if owners != 1 {
				t.Fatalf("%q has %d owners of %d shards", key, owners, n)
			}
			if !(Shard{}).Owns(key) {
				t.Fatalf("the unsharded run does not own %q", key)
			}
		}
		for i, c := range counts {
			if c < 3000/n/2 {
				t.Errorf("shard %d/%d got %d of 3000 keys", i, n, c)
			}
		}
	}
}

func TestCacheFlag(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/x")
	for _, c := range []struct{ in, want string }{
		{"", filepath.Join("/x", "faultline", "results")}, {"off", ""}, {"./off", "./off"}, {"/d", "/d"},
	} {
		got, err := CacheFlag{Value: c.in}.Dir()
		if err != nil || got != c.want {
			t.Errorf("-cache %q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// A word meaning "no cache" is refused rather than taken for a directory.
	for _, in := range []string{"none", "no", "false", "0"} {
		_, err := CacheFlag{Value: in}.Dir()
		if err == nil || !strings.Contains(err.Error(), "-cache off") || !strings.Contains(err.Error(), "./"+in) {
			t.Errorf("-cache %q: %v; want a refusal naming -cache off and ./%s", in, err, in)
		}
	}
	if got, err := (CacheFlag{Value: "./none"}).Dir(); err != nil || got != "./none" {
		t.Errorf("-cache ./none: %q, %v", got, err)
	}
}
