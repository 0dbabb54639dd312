package area

// Half is exported for the external tests.
var Half = half
