package plot

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"

	"github.com/faultline-dev/faultline/stats"
)

// synthetic draws n tasks whose success falls with x1 (and x2), like code lines and
// centrality.
func synthetic(seed uint64, n int, slope float64) (x1, x2, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x1, x2, y = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range y {
		x1[i] = 5 + 40*rng.Float64()
		x2[i] = 0.3*x1[i]/40 + rng.Float64()
		eta := 2 - slope*(x1[i]-25)/10 - 1.5*(x2[i]-0.5)
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return x1, x2, y
}

// checkRender renders p as PNG and SVG and checks the PNG decodes to a picture of reasonable
// size that is not a single colour, and the SVG is an SVG document with drawing in it.
func checkRender(t *testing.T, p *gplot.Plot) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, p, PNG, 0, 0); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 5000 {
		t.Errorf("PNG is only %d bytes", buf.Len())
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("PNG is %dx%d", b.Dx(), b.Dy())
	}
	if n := distinctColors(img, 10); n < 10 {
		t.Errorf("PNG has %d distinct colours", n)
	}
	buf.Reset()
	if err := Render(&buf, p, SVG, 0, 0); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.Contains(s, "<svg") || strings.Count(s, "<path") < 10 {
		t.Errorf("SVG has %d paths: %.200s", strings.Count(s, "<path"), s)
	}
}

func distinctColors(img image.Image, stop int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= stop {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func TestDifficultyCurves(t *testing.T) {
	xa, _, ya := synthetic(1, 150, 1.5)
	xb, _, yb := synthetic(2, 120, 0.6)
	models := []Outcomes{{Model: "model-a", X: xa, Solved: ya}, {Model: "model-b", X: xb, Solved: yb}}
	p, curves, err := DifficultyCurves(models, CurveOptions{Title: "success vs code lines", XLabel: "code lines", Reps: 60, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, p)
	for m, c := range curves {
		fit, err := stats.Logit(models[m].Solved, [][]float64{models[m].X}, nil)
		if err != nil {
			t.Fatal(err)
		}
		inside := 0
		for i, x := range c.X {
			if math.Abs(c.P[i]-fit.Prob(x)) > 1e-9 {
				t.Fatalf("%s: P(%v) = %v, direct fit %v", c.Model, x, c.P[i], fit.Prob(x))
			}
			if c.Lo[i] > c.Hi[i] || c.Lo[i] < 0 || c.Hi[i] > 1 {
				t.Fatalf("%s: band [%v, %v]", c.Model, c.Lo[i], c.Hi[i])
			}
			if c.Lo[i] <= c.P[i] && c.P[i] <= c.Hi[i] {
				inside++
			}
		}
		if inside < len(c.X)*9/10 {
			t.Errorf("%s: fitted curve inside its band at %d of %d points", c.Model, inside, len(c.X))
		}
		if c.Reps+c.Missing != 60 || c.Reps < 50 {
			t.Errorf("%s: %d refits, %d missing", c.Model, c.Reps, c.Missing)
		}
		if c.P[0] <= c.P[len(c.P)-1] {
			t.Errorf("%s: success does not fall with size: %v → %v", c.Model, c.P[0], c.P[len(c.P)-1])
		}
	}
	// Same seed, same band.
	_, again, err := DifficultyCurves(models, CurveOptions{Reps: 60, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if again[1].Lo[10] != curves[1].Lo[10] || again[0].Hi[50] != curves[0].Hi[50] {
		t.Error("bands differ for the same seed")
	}
	// A model that solved everything cannot be fitted.
	all := []Outcomes{{Model: "oracle", X: xa, Solved: onesLike(xa)}}
	if _, _, err := DifficultyCurves(all, CurveOptions{Reps: -1}); !errors.Is(err, stats.ErrOutcomeConstant) {
		t.Errorf("all solved: %v", err)
	}
}

func onesLike(x []float64) []float64 {
	y := make([]float64, len(x))
	for i := range y {
		y[i] = 1
	}
	return y
}

func TestSuccessHexbin(t *testing.T) {
	x1, x2, y := synthetic(3, 400, 1.2)
	p, hb, err := SuccessHexbin(x1, x2, y, HexbinOptions{Title: "success rate", XLabel: "z code lines", YLabel: "z harmonic"})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, p)
	total, solved := 0, 0
	for _, b := range hb.Bins {
		total += b.Count
		solved += b.Solved
		if r := b.Rate(); r < 0 || r > 1 {
			t.Fatalf("rate %v", r)
		}
	}
	want := 0
	for _, v := range y {
		want += int(v)
	}
	if total != len(y) || solved != want {
		t.Errorf("bins hold %d tasks, %d solved; want %d, %d", total, solved, len(y), want)
	}
	// The joint model on z-scores is what stats.Logit fits.
	fit, err := stats.Logit(y, [][]float64{x1, x2}, &stats.LogitOptions{ZScore: true})
	if err != nil {
		t.Fatal(err)
	}
	if hb.Fit.Coef[1] != fit.Coef[1] || hb.Fit.Coef[2] != fit.Coef[2] {
		t.Errorf("joint fit %v, direct %v", hb.Fit.Coef, fit.Coef)
	}
	if len(hb.Line) != 2 {
		t.Fatalf("zero-logit line %v", hb.Line)
	}
	for _, pt := range hb.Line {
		if eta := fit.Coef[0] + fit.Coef[1]*pt.X + fit.Coef[2]*pt.Y; math.Abs(eta) > 1e-9 {
			t.Errorf("line point %v has logit %v", pt, eta)
		}
	}
	if _, _, err := SuccessHexbin(x1, x2, y[:10], HexbinOptions{}); !errors.Is(err, stats.ErrLength) {
		t.Errorf("length: %v", err)
	}
}

// TestHexRound checks the binning against the definition: a point belongs to the hexagon
// whose centre is nearest.
func TestHexRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const s = 0.3
	for range 5000 {
		x, y := rng.NormFloat64()*2, rng.NormFloat64()*2
		q, r := hexRound(x, y, s)
		cx, cy := hexCenter(q, r, s)
		d := math.Hypot(x-cx, y-cy)
		if d > s+1e-12 {
			t.Fatalf("(%v, %v) is %v from its centre, radius %v", x, y, d, s)
		}
		for _, n := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}} {
			nx, ny := hexCenter(q+n[0], r+n[1], s)
			if math.Hypot(x-nx, y-ny) < d-1e-12 {
				t.Fatalf("(%v, %v): neighbour centre nearer than own", x, y)
			}
		}
	}
}

func TestZeroLogitSegment(t *testing.T) {
	seg := zeroLogitSegment([]float64{0, 1, -1}, -2, 2, -1, 1) // the line y = x
	if len(seg) != 2 || seg[0].X != -1 || seg[0].Y != -1 || seg[1].X != 1 || seg[1].Y != 1 {
		t.Errorf("y = x clipped to [-2,2]x[-1,1]: %v", seg)
	}
	if seg := zeroLogitSegment([]float64{10, 1, 1}, -1, 1, -1, 1); seg != nil {
		t.Errorf("line outside the box: %v", seg)
	}
	seg = zeroLogitSegment([]float64{0.5, 1, 0}, -1, 1, -1, 1) // vertical x = -0.5
	if len(seg) != 2 || seg[0].X != -0.5 || seg[1].X != -0.5 || seg[0].Y != -1 || seg[1].Y != 1 {
		t.Errorf("vertical line: %v", seg)
	}
}

func TestSolvedDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var models []Values
	for i, name := range []string{"model-a", "model-b", "model-c"} {
		v := make([]float64, 40+10*i)
		for j := range v {
			v[j] = math.Exp(rng.NormFloat64()*0.5 + float64(i))
		}
		models = append(models, Values{Model: name, Values: v})
	}
	for _, kind := range []string{"box", "violin"} {
		t.Run(kind, func(t *testing.T) {
			k, err := ParseDistKind(kind)
			if err != nil {
				t.Fatal(err)
			}
			p, err := SolvedDistribution(models, DistOptions{Title: "solved tasks", YLabel: "code lines", Kind: k})
			if err != nil {
				t.Fatal(err)
			}
			checkRender(t, p)
		})
	}
	if _, err := SolvedDistribution([]Values{{Model: "x"}}, DistOptions{}); !errors.Is(err, stats.ErrTooFew) {
		t.Errorf("empty model: %v", err)
	}
	if _, err := SolvedDistribution([]Values{{Model: "x", Values: []float64{2, 2}}}, DistOptions{Kind: Violin}); !errors.Is(err, stats.ErrConstant) {
		t.Errorf("constant violin: %v", err)
	}
	if _, err := SolvedDistribution([]Values{{Model: "x", Values: []float64{1, math.NaN()}}}, DistOptions{}); !errors.Is(err, stats.ErrNotFinite) {
		t.Errorf("nan: %v", err)
	}
	if _, err := ParseDistKind("pie"); !errors.Is(err, stats.ErrRange) {
		t.Errorf("parse: %v", err)
	}
}

func TestKDEMatchesScipy(t *testing.T) {
	b, err := os.ReadFile("testdata/kde.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                    string
			Values, Points, Density []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		got, err := KDE(c.Values, c.Points)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.Density[i]) > 1e-8*c.Density[i]+1e-15 {
				t.Errorf("%s: density at %v = %.17g, scipy %.17g", c.Name, c.Points[i], got[i], c.Density[i])
			}
		}
	}
}

func TestSave(t *testing.T) {
	p, err := SolvedDistribution([]Values{{Model: "m", Values: []float64{1, 2, 3, 5, 8}}}, DistOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.png", "b.SVG"} {
		path := filepath.Join(dir, name)
		if err := Save(p, path, 0, 0); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v, %v", name, fi, err)
		}
	}
	bad := filepath.Join(dir, "c.jpg")
	if err := Save(p, bad, 0, 0); err == nil || !strings.Contains(err.Error(), ".jpg") {
		t.Errorf("jpg: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a file was written for an unsupported format: %v", err)
	}
}
