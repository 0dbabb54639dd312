package golang

import "github.com/faultline-dev/faultline/callgraph/internal/tsnode"

// The syntax tree and parser pool are shared with the other tree-sitter front ends.
type (
	node       = tsnode.Node
	parserPool = tsnode.ParserPool
)

var newParserPool = tsnode.NewParserPool
