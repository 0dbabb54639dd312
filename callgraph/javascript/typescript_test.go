package javascript

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	models = "src/models.ts::"
	mainTS = "src/main.ts::"
	view   = "src/view.tsx::"
)

// tsEdges is the hand-checked call graph of testdata/tsapp: typed parameters, variables
// and fields (also constructor parameter properties), declared return types, namespaces,
// `./x.js` imports of x.ts, and TSX.
var tsEdges = []string{
	models + "Base.describe -> " + models + "Logger.write",
	models + "Circle.constructor -> " + models + "Base.constructor",
	models + "Circle.area -> " + models + "square",
	models + "makeCircle -> " + models + "Circle.constructor",
	mainTS + "Util.twice -> " + models + "square",
	mainTS + "report -> " + models + "Base.describe",
	mainTS + "<module> -> " + models + "makeCircle",
	mainTS + "<module> -> " + models + "Circle.area",
	mainTS + "<module> -> " + mainTS + "report",
	mainTS + "<module> -> " + models + "Logger.write",
	mainTS + "<module> -> " + mainTS + "Util.twice",
	mainTS + "<module> -> " + models + "Base.describe",
	mainTS + "Svc.run -> " + models + "Logger.write",
	view + "View -> " + models + "makeCircle",
	view + "View -> " + models + "Base.describe",
	view + "View -> " + models + "Circle.area",
}

func TestTypeScriptEdges(t *testing.T) {
	files := loadTree(t, filepath.Join("testdata", "tsapp"))
	a, err := New(Options{}).Analyze(context.Background(), files)
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	want := append([]string(nil), tsEdges...)
	sort.Strings(want)
	assert.Equal(t, want, edgeSet(a))
	// Unresolved: console.log, this.area() (abstract: no body, no node; subclasses are not
	// searched) and three new Logger() (Logger declares no constructor).
	assert.Equal(t, 22, a.CallSites)
	assert.Equal(t, 5, a.Unresolved)
	for _, d := range a.Definitions {
		assert.Equal(t, "typescript", d.Language, d.ID)
	}

	// With TypeScript switched off nothing is claimed.
	a, err = New(Options{NoTypeScript: true}).Analyze(context.Background(), files)
	require.NoError(t, err)
	assert.Empty(t, a.Definitions)
}
