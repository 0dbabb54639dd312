package parallel

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The schedule is fixed, whatever the machine's load or core count: every parallel test of
// the run runs at once, and TestP2's goroutine panics only when the others selected with it
// are all running. They then wait for the panic, which ends the binary while each is still
// running, so which tests the panic cuts off does not depend on timing. Run without TestP2
// (a re-run alone), each ends on its own.

// others are the parallel tests TestP2 waits for.
var others = []string{"TestP1", "TestP3", "TestP4Fails"}

var (
	started     = make(chan string, len(others))
	withP2      bool // TestP2 is in this run
	othersInRun int  // how many of others are in this run
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Every parallel test at once, whatever -parallel says (it defaults to the core count).
	if err := flag.Set("test.parallel", "16"); err != nil {
		panic(err)
	}
	selected := func(name string) bool { return true }
	if run := flag.Lookup("test.run").Value.String(); run != "" {
		// The top level of the pattern (the runner's patterns have no deeper level here).
		re := regexp.MustCompile(strings.SplitN(run, "/", 2)[0])
		selected = re.MatchString
	}
	withP2 = selected("TestP2")
	for _, name := range others {
		if selected(name) {
			othersInRun++
		}
	}
	os.Exit(m.Run())
}

// running says name is running, then waits for TestP2's panic when TestP2 is in the run (the
// minute is only a bound should it never come).
func running(name string) {
	if !withP2 {
		return
	}
	started <- name
	time.Sleep(time.Minute)
}

func TestP1(t *testing.T) {
	t.Parallel()
	running("TestP1")
}

// TestP2 starts a goroutine that panics while TestP1, TestP3 and TestP4Fails are running too.
func TestP2(t *testing.T) {
	t.Parallel()
	for range othersInRun {
		<-started
	}
	go func() { panic("from TestP2's goroutine") }()
	time.Sleep(time.Minute)
}

func TestP3(t *testing.T) {
	t.Parallel()
	running("TestP3")
}

func TestP4Fails(t *testing.T) {
	t.Parallel()
	running("TestP4Fails")
	t.Error("fails on its own")
}

func TestSerial(t *testing.T) {}
